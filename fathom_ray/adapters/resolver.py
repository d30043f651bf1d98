"""Host name resolution through the network map, then the system resolver."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from fathom_ray.web.network import NetworkMap


class MappedResolver:
    """Routed hosts resolve to their mapped address, others through getaddrinfo unless the map is closed."""

    def __init__(self, network: NetworkMap) -> None:
        self._network = network

    async def resolve(self, host: str) -> list[str]:
        host = host.strip("[]")
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            pass
        route = self._network.route_for(host)
        if route is not None:
            return [route.address]
        if self._network.exclusive:
            return []
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            return []
        return list(dict.fromkeys(str(info[4][0]) for info in infos))
