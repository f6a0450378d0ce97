"""The web app's health routes, for a load balancer or a Kubernetes probe.

``/livez`` answers 200 while this process serves HTTP (restart it when it does not).
``/healthz`` answers 200 only when the Hamlet server answers its gRPC health check SERVING
too, else 503 with the reason: a web app that cannot reach its server shows only error pages,
so it should get no visitors (readiness), but restarting it would not help (not liveness).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from hamlet.channels import open_channel

#: How long /healthz waits for the server (probes time out at a few seconds).
CHECK_TIMEOUT = 2.0


def server_status(target: str, ca_file: Path | None, timeout: float = CHECK_TIMEOUT) -> str:
    """The server's health status name (SERVING, NOT_SERVING...) or why it is unknown."""
    try:
        channel = open_channel(target, ca_file=ca_file)
    except OSError as exc:
        return f"cannot read the CA file: {exc.strerror or exc}"
    with channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
        except grpc.RpcError as exc:
            code = exc.code().name  # type: ignore[attr-defined]
            return f"the server at {target} did not answer: {code}"
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))


async def livez(request: Request) -> Response:
    """200 while this process answers."""
    return PlainTextResponse("ok\n")


async def healthz(request: Request) -> Response:
    """200 when the server answers SERVING, else 503 saying why."""
    settings = request.app.state.settings
    status = await asyncio.to_thread(server_status, settings.server, settings.ca_file)
    if status == "SERVING":
        return PlainTextResponse("ok\n")
    return PlainTextResponse(f"not ready: {status}\n", status_code=503)


ROUTES = [Route("/livez", livez), Route("/healthz", healthz)]
