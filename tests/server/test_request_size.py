"""The size rule before authentication, at the deserializer: a large request to a small
method, or without a token, is never parsed; a large one with a token is parsed only after
the token is checked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from server.auth import AuthInterceptor, Principal, Scope, size
from server.services.errors import UnauthenticatedError


class _AbortedError(Exception):
    pass


class _Context:
    def __init__(self, token: str | None) -> None:
        self.metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        self.aborted: tuple[grpc.StatusCode, str] | None = None

    def invocation_metadata(self) -> Any:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.aborted = (code, details)
        raise _AbortedError


class _Details:
    def __init__(self, method: str, token: str | None) -> None:
        self.method = method
        self.invocation_metadata = _Context(token).metadata


def _handler(parsed: list[bytes]) -> Any:
    def parse(data: bytes) -> bytes:
        parsed.append(data)
        return data

    return grpc.unary_unary_rpc_method_handler(lambda request, context: "done", parse)


def _call(method: str, token: str | None, data: bytes, accept: bool) -> tuple[Any, list[bytes]]:
    parsed: list[bytes] = []

    def authenticate(token: str, client: str) -> Any:
        if not accept:
            raise UnauthenticatedError("no")
        return Principal(1, "alice", False, frozenset({Scope.READ, Scope.SUBMIT}), "abc")

    interceptor = AuthInterceptor(authenticate, public_reads=True)
    handler = interceptor.intercept_service(
        lambda details: _handler(parsed),
        _Details(method, token),  # type: ignore[arg-type]
    )
    assert handler is not None
    context = _Context(token)
    parse = handler.request_deserializer
    assert parse is not None
    try:
        if handler.request_streaming:  # read only when iterated: after authentication
            assert handler.stream_unary is not None
            result = handler.stream_unary(_lazy(parse, data), context)
        else:
            assert handler.unary_unary is not None
            result = handler.unary_unary(parse(data), context)
    except _AbortedError:
        result = context.aborted
    return result, parsed


def _lazy(parse: Any, data: bytes) -> Iterator[Any]:
    yield parse(data)


BIG = b"\0" * (size.SMALL_BYTES + 1)
SUBMIT = "/hamlet.v1.Arena/SubmitBot"


@pytest.mark.parametrize(
    ("method", "token"),
    [
        ("/hamlet.v1.Arena/ListMatches", "hmt_x"),
        ("/hamlet.v1.Arena/GetMatch", None),
    ],
)
def test_a_large_request_is_refused_without_parsing(method: str, token: str | None) -> None:
    result, parsed = _call(method, token, BIG, accept=True)
    assert parsed == []
    assert result[0] is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_an_anonymous_call_that_needs_a_token_never_reads_its_request() -> None:
    parsed: list[bytes] = []
    interceptor = AuthInterceptor(lambda token, client: pytest.fail("no token"), True)
    handler = interceptor.intercept_service(
        lambda details: _handler(parsed),
        _Details(SUBMIT, None),  # type: ignore[arg-type]
    )
    assert handler is not None and handler.request_streaming

    def requests() -> Iterator[bytes]:
        pytest.fail("the request was read")
        yield b""

    context = _Context(None)
    with pytest.raises(_AbortedError):
        handler.stream_unary(requests(), context)
    assert context.aborted is not None
    assert context.aborted[0] is grpc.StatusCode.UNAUTHENTICATED
    assert parsed == []


def test_a_large_request_with_a_wrong_token_is_never_parsed() -> None:
    result, parsed = _call(SUBMIT, "hmt_x", BIG, accept=False)
    assert parsed == []
    assert result[0] is grpc.StatusCode.UNAUTHENTICATED


def test_a_large_request_with_a_good_token_is_parsed_after_authentication() -> None:
    result, parsed = _call(SUBMIT, "hmt_x", BIG, accept=True)
    assert parsed == [BIG]
    assert result == "done"


def test_a_small_request_is_parsed_at_once() -> None:
    result, parsed = _call(SUBMIT, "hmt_x", b"small", accept=True)
    assert result == "done"
    assert parsed == [b"small"]
