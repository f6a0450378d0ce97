"""Service errors -> gRPC status codes, in one place."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar

import grpc

from hamlet.codec import CodecError
from server.services.errors import (
    AlreadyExistsError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    ServiceError,
    UnauthenticatedError,
    UnavailableError,
)

_CODES: dict[type[ServiceError], grpc.StatusCode] = {
    InvalidArgumentError: grpc.StatusCode.INVALID_ARGUMENT,
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    FailedPreconditionError: grpc.StatusCode.FAILED_PRECONDITION,
    AlreadyExistsError: grpc.StatusCode.ALREADY_EXISTS,
    UnauthenticatedError: grpc.StatusCode.UNAUTHENTICATED,
    PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    ResourceExhaustedError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    UnavailableError: grpc.StatusCode.UNAVAILABLE,
    DeadlineExceededError: grpc.StatusCode.DEADLINE_EXCEEDED,
}

F = TypeVar("F", bound=Callable[..., Any])


def abort_for(exc: Exception, context: grpc.ServicerContext) -> NoReturn:
    """Abort the call with the status code that fits ``exc``."""
    if isinstance(exc, CodecError):
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
    code = next((c for t, c in _CODES.items() if isinstance(exc, t)), grpc.StatusCode.INTERNAL)
    context.abort(code, str(exc))


def unary(fn: F) -> F:
    """Map service errors of a unary method to status codes."""

    @functools.wraps(fn)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return fn(self, request, context)
        except (ServiceError, CodecError) as exc:
            abort_for(exc, context)

    return wrapper  # type: ignore[return-value]


def stream(fn: F) -> F:
    """Map service errors of a server-streaming method to status codes."""

    @functools.wraps(fn)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from fn(self, request, context)
        except (ServiceError, CodecError) as exc:
            abort_for(exc, context)

    return wrapper  # type: ignore[return-value]
