"""Who asks a service for something, as the services see it (no tokens, no scopes: the
authorization layer has already let the call through)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """A user calling a service. ``user_id`` None means the server itself (the demo, the
    ladder's seasons): not a user, so no quota and no consent applies."""

    user_id: int | None
    name: str = ""
    admin: bool = False

    @property
    def system(self) -> bool:
        """True for the server's own calls."""
        return self.user_id is None


#: The server's own calls.
SYSTEM = Caller(user_id=None, name="", admin=True)
