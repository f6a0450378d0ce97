"""The caller of a gRPC method: a user's token with scopes, a worker, or nobody."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


class Scope(enum.Enum):
    """What a token may be used for.

    ``submit`` includes ``read``; ``admin`` includes both (and needs an admin user).
    ``worker`` is the workers' credential for ``MatchHost`` and grants nothing else.
    """

    READ = "read"
    SUBMIT = "submit"
    ADMIN = "admin"
    WORKER = "worker"

    @classmethod
    def parse(cls, names: Iterable[str]) -> frozenset[Scope]:
        """Scopes from their names; ``ValueError`` names the first unknown one."""
        out = set()
        for name in names:
            try:
                out.add(cls(name.strip().lower()))
            except ValueError:
                known = ", ".join(s.value for s in cls)
                raise ValueError(f"unknown scope {name!r}; scopes are {known}") from None
        return frozenset(out)


#: What each scope implies (a token with SUBMIT may also read).
_IMPLIED: dict[Scope, frozenset[Scope]] = {
    Scope.READ: frozenset({Scope.READ}),
    Scope.SUBMIT: frozenset({Scope.READ, Scope.SUBMIT}),
    Scope.ADMIN: frozenset({Scope.READ, Scope.SUBMIT, Scope.ADMIN}),
    Scope.WORKER: frozenset({Scope.WORKER}),
}


def effective(scopes: Iterable[Scope]) -> frozenset[Scope]:
    """The scopes a set of scopes grants, implications included."""
    out: set[Scope] = set()
    for scope in scopes:
        out |= _IMPLIED[scope]
    return frozenset(out)


def names(scopes: Iterable[Scope]) -> list[str]:
    """Scope names in a stable order (read, submit, admin, worker)."""
    order = list(Scope)
    return [s.value for s in sorted(set(scopes), key=order.index)]


@dataclass(frozen=True, slots=True)
class Principal:
    """Who made a call. ``user_id`` is None for an anonymous caller."""

    user_id: int | None
    name: str
    admin: bool
    scopes: frozenset[Scope]
    token_id: str = ""
    #: When the caller's token expires (None: never); tokens it creates expire no later.
    expires_at: datetime | None = None

    @property
    def anonymous(self) -> bool:
        """True when the call carried no token."""
        return self.user_id is None

    def grants(self, scope: Scope) -> bool:
        """Whether the token allows ``scope`` (admin needs an admin user as well)."""
        if scope is Scope.ADMIN and not self.admin:
            return False
        return scope in effective(self.scopes)

    def describe(self) -> str:
        """A short description for messages: ``token 1a2b3c (alice; read, submit)``."""
        if self.anonymous:
            return "an anonymous caller"
        return f"token {self.token_id} ({self.name}; {', '.join(names(self.scopes))})"


ANONYMOUS = Principal(user_id=None, name="", admin=False, scopes=frozenset())
