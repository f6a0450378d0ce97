"""Errors the services raise; servicers map each kind to one gRPC status code."""

from __future__ import annotations


class ServiceError(Exception):
    """Base: the message is shown to the caller, so it says what to fix."""


class InvalidArgumentError(ServiceError):
    """A field is malformed, out of range or too large."""


class NotFoundError(ServiceError):
    """An unknown game, bot, tournament or match."""


class FailedPreconditionError(ServiceError):
    """The request is valid but not in the current state (e.g. start a cancelled tournament)."""


class AlreadyExistsError(ServiceError):
    """A name is taken."""


class UnauthenticatedError(ServiceError):
    """The call needs a valid token and has none (or an unknown, expired or revoked one)."""


class PermissionDeniedError(ServiceError):
    """The caller is known but may not do this (scope or owner)."""


class ResourceExhaustedError(ServiceError):
    """A bounded resource is in use up to its cap (e.g. open streams); try again later."""


class CoolDownError(ResourceExhaustedError):
    """Too many failed authentications: refused before any key derivation for ``seconds``
    more, for the client's ``scope`` ("address": any token not verified before; "token":
    this token id from this address)."""

    def __init__(self, message: str, scope: str, seconds: float) -> None:
        super().__init__(message)
        self.scope = scope
        self.seconds = seconds


class UnavailableError(ServiceError):
    """A service this call needs (the queue's broker) did not answer; nothing was done."""


class DeadlineExceededError(ServiceError):
    """The caller's deadline passed before the call could finish; nothing was done."""
