"""Who is asking: the bearer token against the operator's token and the named ones.

With no token set (loopback only), every caller sees everything. ``FATHOM_API__TOKEN`` is the
operator's. ``FATHOM_API__TOKENS`` names more, one per user or client: each sees only the sessions
it started (another's id answers 404, as an unknown one does), and the list shows it only its own.
Every token is compared in constant time, and all of them on each request, so the time taken does
not say which one came close.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from fathom_ray.settings import ApiSettings


@dataclass(frozen=True, slots=True)
class Caller:
    name: str = ""  # the token's name; "" for the operator (or no token at all)
    sees_all: bool = True

    def may_see(self, owner: str) -> bool:
        return self.sees_all or owner == self.name


def caller_for(settings: ApiSettings, given: str) -> Caller | None:
    """The caller holding ``given`` (a bearer token, "" for none); None when it is not a valid one."""
    if settings.token is None and not settings.tokens:
        return Caller()
    offered = given.encode("utf-8", "surrogateescape")
    found: Caller | None = None
    if settings.token is not None and _same(offered, settings.token.get_secret_value()):
        found = Caller()
    for name, token in settings.tokens.items():
        if _same(offered, token.get_secret_value()):
            found = Caller(name, sees_all=False)
    return found


def _same(offered: bytes, secret: str) -> bool:
    return secrets.compare_digest(offered, secret.encode("utf-8"))
