"""Who is calling and what they may do: tokens, the authenticating interceptor, the policy.

- :mod:`server.auth.tokens` makes and checks API tokens (salted PBKDF2, constant-time compare);
- :mod:`server.auth.interceptor` turns ``authorization: Bearer`` metadata into a
  :class:`Principal` for every call and enforces each method's access level;
- :mod:`server.auth.policy` is the one place that says who may do what.
"""

from server.auth.identity import ANONYMOUS, Principal, Scope
from server.auth.interceptor import AuthInterceptor, caller, current_principal

__all__ = ["ANONYMOUS", "AuthInterceptor", "Principal", "Scope", "caller", "current_principal"]
