"""The ``Arena`` call about quotas (translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern; the quotas themselves are :mod:`server.services.quotas`.
"""

from __future__ import annotations

import grpc

from hamlet.v1 import arena_pb2
from server.auth import caller, current_principal, policy
from server.servicers import convert
from server.servicers.errors import unary
from server.services import validation as v
from server.services.errors import NotFoundError
from server.services.quotas import QuotaService
from server.storage import Store


class QuotaRpcs:
    """``GetQuota``."""

    store: Store
    quotas: QuotaService

    @unary
    def GetQuota(
        self, request: arena_pb2.GetQuotaRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Quota:
        who = caller()
        name = request.user or who.name
        if name != who.name:  # another user's quota is for admins only
            v.identifier("user", name)
            policy.check_account(current_principal(), name, f"see the quota of {name}")
            found = self.store.get_user(name)
            if found is None:
                raise NotFoundError(f"unknown user {name!r}")
            return convert.quota(self.quotas.report(found.user_id, found.name, found.admin))
        assert who.user_id is not None  # the method table requires a user's token
        return convert.quota(self.quotas.report(who.user_id, who.name, self.quotas.exempt(who)))
