"""The ``Arena`` calls about who may enter whose bot: permissions and invitations
(translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern; the logic is in :mod:`server.services.invitations` and
:mod:`server.services.consent`.
"""

from __future__ import annotations

import grpc

from hamlet.v1 import arena_pb2
from server.auth import caller
from server.servicers import convert
from server.servicers.errors import unary
from server.services.invitations import InvitationService


class ConsentRpcs:
    """``SetBotPermission``, ``Challenge``, ``ListInvitations``, ``AnswerInvitation``."""

    invitations: InvitationService

    @unary
    def SetBotPermission(
        self, request: arena_pb2.SetBotPermissionRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotInfo:
        permission = convert.permission_from(request.permission)
        return convert.bot(self.invitations.set_permission(caller(), request.name, permission))

    @unary
    def Challenge(
        self, request: arena_pb2.ChallengeRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Invitation:
        made = self.invitations.challenge(caller(), request.bot, request.rated, request.message)
        return convert.invitation(made)

    @unary
    def ListInvitations(
        self, request: arena_pb2.ListInvitationsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListInvitationsResponse:
        received, sent = self.invitations.list_for(caller())
        return arena_pb2.ListInvitationsResponse(
            received=[convert.invitation(i) for i in received],
            sent=[convert.invitation(i) for i in sent],
        )

    @unary
    def AnswerInvitation(
        self, request: arena_pb2.AnswerInvitationRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Invitation:
        answered = self.invitations.answer(caller(), request.invitation_id, request.accept)
        return convert.invitation(answered)
