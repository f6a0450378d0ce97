"""The ``Arena`` calls about who may enter whose bot: permissions and invitations
(translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern.
"""

from __future__ import annotations

import grpc

from hamlet.v1 import arena_pb2
from server.servicers.errors import unary
from server.services.errors import FailedPreconditionError


class ConsentRpcs:
    """``SetBotPermission``, ``Challenge``, ``ListInvitations``, ``AnswerInvitation``."""

    @unary
    def SetBotPermission(
        self, request: arena_pb2.SetBotPermissionRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotInfo:
        raise FailedPreconditionError("bot permissions are not available on this server yet")

    @unary
    def Challenge(
        self, request: arena_pb2.ChallengeRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Invitation:
        raise FailedPreconditionError("invitations are not available on this server yet")

    @unary
    def ListInvitations(
        self, request: arena_pb2.ListInvitationsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListInvitationsResponse:
        raise FailedPreconditionError("invitations are not available on this server yet")

    @unary
    def AnswerInvitation(
        self, request: arena_pb2.AnswerInvitationRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Invitation:
        raise FailedPreconditionError("invitations are not available on this server yet")
