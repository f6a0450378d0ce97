"""The ``Arena`` call about quotas (translate, delegate).

A part of :class:`server.servicers.arena.ArenaServicer`, kept apart to keep each module to
one concern.
"""

from __future__ import annotations

import grpc

from hamlet.v1 import arena_pb2
from server.servicers.errors import unary
from server.services.errors import FailedPreconditionError


class QuotaRpcs:
    """``GetQuota``."""

    @unary
    def GetQuota(
        self, request: arena_pb2.GetQuotaRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Quota:
        raise FailedPreconditionError("quotas are not available on this server yet")
