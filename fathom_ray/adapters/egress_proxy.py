"""A local HTTP forward proxy through which the browser reaches the web.

Chromium sends every request through it, each redirect hop and subresource
a request of its own, so every hop is resolved through the network map,
checked against the URL policy and connected to the address that was
checked. A refused request gets a 403 carrying ``X-Fathom-Refused``; bodies
past the size limit are cut off. Upstream is asked for bodies as they are
(``Accept-Encoding: identity``), so the limit counts what Chromium decodes;
a compressed body sent anyway (a gzip bomb) is refused as too large. HTTPS
goes through CONNECT, checked by host. What the proxy saw is kept per URL
for the fetcher to explain failures.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlsplit

from fathom_ray.ports import Resolver
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy, encoding_problem

logger = logging.getLogger(__name__)
REFUSED_HEADER = "X-Fathom-Refused"
TOO_LARGE_HEADER = "X-Fathom-Too-Large"
HOP_BY_HOP = frozenset(
    {"connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "upgrade"}
)
HEAD_LIMIT = 64 * 1024
SEEN_LIMIT = 4096
CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Seen:
    """What came back for a URL: status and type, or why the proxy refused or cut it."""

    status: int = 0
    content_type: str = ""
    refused: str = ""
    too_large: bool = False


class EgressProxy:
    """Start with ``start()``; ``address`` is what to hand Chromium as its proxy server."""

    def __init__(
        self, policy: UrlPolicy, network: NetworkMap, resolver: Resolver, max_body_bytes: int
    ) -> None:
        self._policy = policy
        self._network = network
        self._resolver = resolver
        self._max_body_bytes = max_body_bytes
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.seen: OrderedDict[str, Seen] = OrderedDict()

    @property
    def address(self) -> str:
        if self._server is None:
            raise RuntimeError("the egress proxy is not running")
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, limit=HEAD_LIMIT)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()
            self._server = None

    def _remember(self, url: str, seen: Seen) -> None:
        self.seen[url] = seen
        self.seen.move_to_end(url)
        while len(self.seen) > SEEN_LIMIT:
            self.seen.popitem(last=False)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except asyncio.CancelledError:
            logger.debug("proxy connection cancelled by stop()")
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            logger.debug("proxy connection ended: %s", e)
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            url = f"https://{host}/"
            upstream = await self._open(url, host, int(port or 443), writer)
            if upstream is None:
                return
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await _pipe_both(reader, writer, *upstream)
            return
        parts = urlsplit(target)
        if parts.scheme != "http" or not parts.hostname:
            await _refuse(writer, 400, f"not an absolute http URL: {target}")
            return
        upstream = await self._open(target, parts.hostname, parts.port or 80, writer)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        headers = [
            line
            for line in header_lines
            if line and line.split(":", 1)[0].strip().lower() not in (*HOP_BY_HOP, "accept-encoding")
        ]
        headers.append("Accept-Encoding: identity")  # what is counted against the limit is what is decoded
        up_writer.write(f"{method} {path} HTTP/1.1\r\n".encode("latin-1"))
        up_writer.write("".join(f"{line}\r\n" for line in [*headers, "Connection: close"]).encode("latin-1"))
        up_writer.write(b"\r\n")
        await up_writer.drain()
        upload = asyncio.create_task(_copy(reader, up_writer))
        try:
            await self._relay_response(target, up_reader, writer)
        finally:
            upload.cancel()
            up_writer.close()

    async def _open(
        self, url: str, host: str, port: int, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        addresses = await self._resolver.resolve(host)
        problem = self._policy.resolved_problem(url, addresses)
        if problem is not None:
            self._remember(url, Seen(refused=problem))
            await _refuse(writer, 403, problem)
            return None
        route = self._network.route_for(host)
        address = route.address if route else addresses[0]
        connect_port = (route.port if route and route.port else None) or port
        try:
            return await asyncio.open_connection(address, connect_port)
        except OSError as e:
            await _refuse(writer, 502, f"cannot connect to {host}: {e}", header=None)
            return None

    async def _relay_response(
        self, url: str, up_reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        head = await up_reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)}
        status = int(status_line.split(" ", 2)[1])
        declared = int(fields.get("content-length", "0") or 0)
        seen = Seen(status=status, content_type=fields.get("content-type", ""))
        encoded = encoding_problem(fields.get("content-encoding", ""))
        if declared > self._max_body_bytes or encoded:
            self._remember(url, Seen(seen.status, seen.content_type, too_large=True))
            reason = encoded or f"{declared} bytes declared, limit {self._max_body_bytes}"
            await _refuse(writer, 502, reason, header=TOO_LARGE_HEADER)
            return
        self._remember(url, seen)
        writer.write(head)
        sent = 0
        while chunk := await up_reader.read(CHUNK):
            sent += len(chunk)
            if sent > self._max_body_bytes:
                self._remember(url, Seen(seen.status, seen.content_type, too_large=True))
                return
            writer.write(chunk)
            await writer.drain()


async def _refuse(
    writer: asyncio.StreamWriter, status: int, reason: str, *, header: str | None = REFUSED_HEADER
) -> None:
    body = f"fathom-ray refused this request: {reason}\n".encode()
    safe_reason = reason.encode("ascii", "replace").decode().replace("\r", " ").replace("\n", " ")
    extra = f"{header}: {safe_reason}\r\n" if header else ""
    writer.write(
        (
            f"HTTP/1.1 {status} Refused\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            f"{extra}Connection: close\r\n\r\n"
        ).encode("latin-1")
        + body
    )
    await writer.drain()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    try:
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
    finally:
        up_writer.close()
