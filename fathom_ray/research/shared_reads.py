"""Pages claimed within a group of sessions: a swarm's researchers never read one page twice.

A swarm's researchers research parts of one goal, so their searches find the same top pages; each
used to read them all (one swarm spent 30 fetches on 10 pages), paying the fetch, the extraction
and the judge again and leaving the rest of its budget unread. The frontier keeps, per group (a
swarm's id), which session claimed each page: a session takes only what no other session of its
group claimed, and no longer sees those pages as pending. A session outside any group claims freely.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fathom_ray.models import Candidate
from fathom_ray.web.urls import canonical_or_none


class SharedReads:
    def __init__(self) -> None:
        self._group_of: dict[str, str] = {}  # session id -> its group
        self._claims: dict[str, dict[str, str]] = {}  # group -> page URL -> the session that claimed it

    def join(self, session_id: str, group: str) -> None:
        """``session_id`` reads in ``group`` from now on (no group: "")."""
        if group:
            self._group_of[session_id] = group

    def leave(self, session_id: str) -> None:
        """The session ended: its claims stay with its group, for the sessions still to come."""
        self._group_of.pop(session_id, None)

    def drop(self, group: str) -> None:
        """The group is over (its swarm ended): its claims go."""
        self._claims.pop(group, None)
        self._group_of = {s: g for s, g in self._group_of.items() if g != group}

    def claim(self, session_id: str, urls: Iterable[str]) -> list[str]:
        """The ``urls`` that are now ``session_id``'s to read, in order: every one outside a group;
        in a group, those no other session of it claimed first."""
        group = self._group_of.get(session_id)
        if group is None:
            return list(urls)
        claims = self._claims.setdefault(group, {})
        return [url for url in urls if claims.setdefault(_key(url), session_id) == session_id]

    def unclaimed(self, session_id: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates`` less those another session of the group claimed."""
        group = self._group_of.get(session_id)
        claims = self._claims.get(group, {}) if group is not None else {}
        return [c for c in candidates if claims.get(_key(c.url), session_id) == session_id]


def _key(url: str) -> str:
    return canonical_or_none(url) or url
