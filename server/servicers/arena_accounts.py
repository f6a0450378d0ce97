"""The ``Arena`` calls about identities: who am I, users and tokens (translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern; the policy and every check are in :mod:`server.services.accounts`.
"""

from __future__ import annotations

import grpc

from hamlet.v1 import arena_pb2
from server.auth import current_principal
from server.auth.identity import names
from server.servicers import convert
from server.servicers.errors import unary
from server.services.accounts import AccountService


class AccountRpcs:
    """``WhoAmI``, ``CreateUser``, ``CreateToken``, ``ListTokens``, ``RevokeToken``."""

    accounts: AccountService

    @unary
    def WhoAmI(
        self, request: arena_pb2.WhoAmIRequest, context: grpc.ServicerContext
    ) -> arena_pb2.WhoAmIResponse:
        who = current_principal()
        if who.anonymous:
            return arena_pb2.WhoAmIResponse(anonymous=True)
        return arena_pb2.WhoAmIResponse(
            user=arena_pb2.User(name=who.name, admin=who.admin),
            scopes=names(who.scopes),
            token_id=who.token_id,
        )

    @unary
    def CreateUser(
        self, request: arena_pb2.CreateUserRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CreateUserResponse:
        user, issued = self.accounts.create_user(current_principal(), request.name, request.admin)
        return arena_pb2.CreateUserResponse(
            user=convert.user(user),
            token_info=convert.token_info(issued.record),
            token=issued.token,
        )

    @unary
    def CreateToken(
        self, request: arena_pb2.CreateTokenRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CreateTokenResponse:
        issued = self.accounts.create_token(
            current_principal(),
            request.user,
            list(request.scopes),
            request.expires_in_seconds,
            request.label,
        )
        return arena_pb2.CreateTokenResponse(
            token_info=convert.token_info(issued.record), token=issued.token
        )

    @unary
    def ListTokens(
        self, request: arena_pb2.ListTokensRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListTokensResponse:
        found = self.accounts.list_tokens(current_principal(), request.user)
        return arena_pb2.ListTokensResponse(tokens=[convert.token_info(t) for t in found])

    @unary
    def RevokeToken(
        self, request: arena_pb2.RevokeTokenRequest, context: grpc.ServicerContext
    ) -> arena_pb2.TokenInfo:
        return convert.token_info(self.accounts.revoke(current_principal(), request.token_id))
