"""Per-host politeness: a minimum delay between requests and robots.txt rules.

``Politeness`` hands out start times so that requests to one host are at
least ``delay`` apart (a host's Crawl-delay, when longer, wins). ``RobotsRules``
caches one parsed robots.txt per origin; fetching it is the caller's I/O.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from protego import Protego


@dataclass(slots=True)
class Politeness:
    """Start times for requests, per host, shared by every session of a frontier."""

    min_delay_s: float = 1.0
    _next_start: dict[str, float] = field(default_factory=dict)
    _crawl_delay: dict[str, float] = field(default_factory=dict)

    def delay_for(self, host: str) -> float:
        return max(self.min_delay_s, self._crawl_delay.get(host, 0.0))

    def set_crawl_delay(self, host: str, delay_s: float | None) -> None:
        """Record a host's robots.txt Crawl-delay (None clears it)."""
        if delay_s is None:
            self._crawl_delay.pop(host, None)
        else:
            self._crawl_delay[host] = max(0.0, float(delay_s))

    def ready_at(self, host: str) -> float:
        """The earliest time a request to ``host`` may start."""
        return self._next_start.get(host, 0.0)

    def reserve(self, host: str, now: float) -> float:
        """Book the next slot for ``host``; returns its start time (``>= now``)."""
        start = max(now, self.ready_at(host))
        self._next_start[host] = start + self.delay_for(host)
        return start


RobotsFetch = Callable[[str], Awaitable[str | None]]


@dataclass(slots=True)
class RobotsRules:
    """Parsed robots.txt per origin, kept ``ttl_s`` seconds; a missing file allows all."""

    user_agent: str
    ttl_s: float = 3600.0
    clock: Callable[[], float] = time.monotonic
    _parsed: dict[str, tuple[float, Protego]] = field(default_factory=dict)

    async def rules_for(self, url: str, fetch: RobotsFetch) -> Protego:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        cached = self._parsed.get(origin)
        if cached is not None and self.clock() - cached[0] < self.ttl_s:
            return cached[1]
        text = await fetch(f"{origin}/robots.txt")
        parser = Protego.parse(text or "")
        self._parsed[origin] = (self.clock(), parser)
        return parser

    async def allowed(self, url: str, fetch: RobotsFetch) -> bool:
        rules = await self.rules_for(url, fetch)
        return bool(rules.can_fetch(url, self.user_agent))

    async def crawl_delay(self, url: str, fetch: RobotsFetch) -> float | None:
        rules = await self.rules_for(url, fetch)
        delay = rules.crawl_delay(self.user_agent)
        return None if delay is None else float(delay)
