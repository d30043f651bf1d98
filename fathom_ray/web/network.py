"""Where host names lead: the offline web's map, shared by Chromium, httpx and the egress proxy."""

from __future__ import annotations

from dataclasses import dataclass

from fathom_ray.settings import Settings
from fathom_ray.web.security import host_matches

OFFLINE_SEARCH_URL = "http://search.test"  # the offline web's search engine (SearXNG's JSON API)


@dataclass(frozen=True, slots=True)
class HostRoute:
    """Hosts matching ``pattern`` (exact or ``*.suffix``) go to ``address``, on ``port`` if given."""

    pattern: str
    address: str
    port: int | None = None


@dataclass(frozen=True, slots=True)
class NetworkMap:
    """Host routes; when ``exclusive``, hosts that no route names do not resolve at all."""

    routes: tuple[HostRoute, ...] = ()
    exclusive: bool = False

    @classmethod
    def offline(cls, port: int) -> NetworkMap:
        """Every ``.test`` host on the offline web's port, and nothing else."""
        return cls((HostRoute("*.test", "127.0.0.1", port),), exclusive=True)

    def route_for(self, host: str) -> HostRoute | None:
        return next((r for r in self.routes if host_matches(host, (r.pattern,))), None)

    def chromium_rules(self) -> str:
        """The same map as Chromium's ``--host-resolver-rules``."""
        rules = [f"MAP {r.pattern} {r.address}" + (f":{r.port}" if r.port else "") for r in self.routes]
        if self.exclusive:
            rules.append("MAP * ~NOTFOUND")
        return ", ".join(rules)

    @property
    def allowed_hosts(self) -> tuple[str, ...]:
        """The routed patterns: hosts we mapped ourselves may use loopback addresses."""
        return tuple(r.pattern for r in self.routes)


def settings_for(settings: Settings, network: NetworkMap, search_backend: str | None = None) -> Settings:
    """``settings`` for research through ``network``.

    The hosts the map routes may be fetched; on the offline web (an exclusive map) its own search
    engine is the searcher. ``search_backend`` (a command's option) overrides the backend.
    """
    fetch = settings.fetch.model_copy(
        update={"allow_hosts": (*settings.fetch.allow_hosts, *network.allowed_hosts)}
    )
    search: dict[str, object] = {}
    if network.exclusive:
        search = {"backend": "searxng", "searxng_url": OFFLINE_SEARCH_URL}
    if search_backend:
        search["backend"] = search_backend
    return settings.model_copy(update={"fetch": fetch, "search": settings.search.model_copy(update=search)})
