"""Operator commands that need no token: ``hamlet health`` (the probe of a deployment) and
``hamlet token generate`` (a worker token made offline, for the deployment's secret).

``hamlet health`` asks the gRPC health service, over TLS when ``HAMLET_TLS_CA`` is set, so a
container's health check and a Kubernetes probe work the same with TLS on or off (Kubernetes'
own ``grpc`` probe speaks plaintext only). Exit 0: serving; 1: answering but not serving
(shutting down); 4: not reachable (the one-line reason is printed).
"""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cli import credentials
from cli.commands import EXIT_FAILED, EXIT_OK
from cli.console import err, out, print_json
from hamlet.channels import open_channel
from hamlet.tlsprobe import diagnose

EXIT_UNAVAILABLE = 4


def explain_unavailable(exc: grpc.RpcError, server: str, ca: Path | None) -> str:
    """One line on why ``server`` did not answer: the TLS mistake if there is one (see
    :mod:`hamlet.tlsprobe`), else what gRPC said."""
    found = diagnose(server, ca)
    if not found.ok:
        return found.message
    details = exc.details() or exc.code().name  # type: ignore[attr-defined]
    return f"{server} did not answer: {details}"


def health(args: argparse.Namespace) -> int:
    """``hamlet health``: SERVING or not, in one line."""
    ca = credentials.tls_ca()
    try:
        channel = open_channel(args.server, ca_file=ca)
    except OSError as exc:
        err.print(f"hamlet health: cannot read HAMLET_TLS_CA {ca}: {exc.strerror or exc}")
        return EXIT_UNAVAILABLE
    with channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as exc:
            reason = explain_unavailable(exc, args.server, ca)
            if args.json:
                print_json({"server": args.server, "status": "UNREACHABLE", "reason": reason})
            else:
                err.print(f"hamlet health: {reason}")
            return EXIT_UNAVAILABLE
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
    if args.json:
        print_json({"server": args.server, "status": status})
    else:
        out.print(f"{args.server}: {status}")
    return EXIT_OK if answer.status == health_pb2.HealthCheckResponse.SERVING else EXIT_FAILED


def token_generate(args: argparse.Namespace) -> int:
    """``hamlet token generate``: a new token string, made here (no server is asked).

    The server enrolls it as a worker token when it finds it in its HAMLET_WORKER_TOKEN_FILE;
    anywhere else it is nobody's token."""
    token = f"hmt_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
    print(token)
    return EXIT_OK
