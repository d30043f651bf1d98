"""The offline test web server: one port, sites chosen by the Host header.

Serves the documentation sites, ``search.test`` (SearXNG's JSON API at
``/search?format=json`` and ``/api``, an HTML results page at ``/html/``) and
the fault hosts. Runs in background threads; ``stop`` ends hanging requests.
"""

from __future__ import annotations

import html
import json
import logging
import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from fathom_ray.testweb import faults
from fathom_ray.testweb.index import DEFAULT_CACHE, load_or_build
from fathom_ray.testweb.sites import SITES, read_body, site_for
from fathom_ray.text.text_index import Hit, TextIndex

logger = logging.getLogger(__name__)
SEARCH_HOST = "search.test"
HANG_LIMIT_S = 3600.0
LOAD_TIMEOUT_S = 600.0


class TestWeb:
    """The offline web on 127.0.0.1; use as a context manager or ``start``/``stop``."""

    def __init__(self, port: int = 0, cache_dir: Path = DEFAULT_CACHE) -> None:
        self._cache_dir = cache_dir
        self._port = port
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._loaded = threading.Event()
        self._index: TextIndex | None = None
        self._load_error: BaseException | None = None
        self.requested: set[tuple[str, str]] = set()  # (Host, path) of every request, for tests

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the offline web is not running")
        return int(self._server.server_address[1])

    @property
    def hosts(self) -> tuple[str, ...]:
        return (*(site.host for site in SITES), SEARCH_HOST, *faults.FAULT_HOSTS)

    def resolver_rules(self) -> str:
        """Chromium's ``--host-resolver-rules`` that send every .test host here and nothing elsewhere."""
        return f"MAP *.test 127.0.0.1:{self.port}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"

    @property
    def index(self) -> TextIndex:
        """The search index, once loaded (a load that failed raises here, for every request)."""
        if not self._loaded.wait(LOAD_TIMEOUT_S):
            raise RuntimeError(f"the offline web's index did not load in {LOAD_TIMEOUT_S:g} s")
        if self._index is None:
            raise RuntimeError(f"the offline web's index did not load: {self._load_error}")
        return self._index

    def _load(self) -> None:
        try:
            self._index = load_or_build(self._cache_dir)
            for make in (faults.gzip_bomb, faults.many_links, faults.deep_nesting):
                make()  # built once now, so no request waits on it
        except Exception as e:  # said by every request that needs it  # noqa: BLE001
            self._load_error = e
        finally:
            self._loaded.set()

    def start(self) -> TestWeb:
        """Listen at once (the port is known), the index loading beside whatever starts next;
        a request waits for the load."""
        threading.Thread(target=self._load, name="testweb-index", daemon=True).start()
        handler = type("BoundHandler", (_Handler,), {"web": self})
        self._server = _QuietServer(("127.0.0.1", self._port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="testweb", daemon=True)
        self._thread.start()
        logger.info("offline web on 127.0.0.1:%d", self.port)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if the web is stopping."""
        return self._stopping.wait(seconds)

    def __enter__(self) -> TestWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up (timeouts, cancelled fetches) are normal here: log them quietly."""

    def handle_error(self, request: object, client_address: object) -> None:
        logger.debug("connection from %s ended abruptly", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    web: TestWeb
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        logger.debug("%s " + format, self.host, *args)

    @property
    def host(self) -> str:
        return (self.headers.get("Host") or "").split(":", 1)[0].lower()

    def do_GET(self) -> None:
        try:
            self._dispatch()
        except (BrokenPipeError, ConnectionResetError):
            logger.debug("client went away from %s%s", self.host, self.path)

    def do_HEAD(self) -> None:
        self.do_GET()

    def _dispatch(self) -> None:
        self.web.index  # noqa: B018 (every page waits for the load: the fault pages are built there)
        parts = urlsplit(self.path)
        self.web.requested.add((self.host, parts.path))
        if self.host == SEARCH_HOST:
            self._search(parts.path, parse_qs(parts.query))
        elif self.host == "slow.test":
            if not self.web.wait(faults.SLOW_DELAY_S):
                self._send(200, "text/html; charset=utf-8", faults.page("Slow page", "Worth the wait."))
        elif self.host == "hang.test":
            self.web.wait(HANG_LIMIT_S)
        elif self.host == "huge.test":
            self._stream_huge()
        elif self.host == "chunked.test":
            self._stream_chunked()
        elif self.host == "drip.test":
            self._drip()
        elif (reply := faults.fault_reply(self.host, parts.path, self.web.port)) is not None:
            if faults.late(self.host, parts.path) and self.web.wait(faults.LATE_S):
                return  # the server stops
            self._send(reply.status, reply.content_type, reply.body, reply.location, reply.encoding)
        else:
            self._site(parts.path)

    def _site(self, path: str) -> None:
        site = site_for(self.host)
        if site is None:
            self._send(404, "text/plain", f"no site is called {self.host}\n".encode())
            return
        if path in ("", "/") and site.prefix != "/":
            self._send(301, "text/plain", b"", location=site.prefix)
            return
        file = site.file_for(path)
        if file is None:
            self._send(404, "text/html; charset=utf-8", faults.page("Not Found", f"No page at {path}."))
            return
        name = file.name.removesuffix(".gz")
        if file.is_dir() or name == "":
            self._send(404, "text/plain", b"")
            return
        content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if content_type.startswith("text/"):
            content_type += "; charset=utf-8"
        self._send(200, content_type, read_body(file))

    def _search(self, path: str, query: dict[str, list[str]]) -> None:
        text = query.get("q", [""])[0]
        limit = min(50, int(query.get("n", ["10"])[0] or 10))
        hits = self.web.index.search(text, limit=limit) if text.strip() else []
        if path.startswith("/html"):
            self._send(200, "text/html; charset=utf-8", _results_page(text, hits))
        elif path in ("/api", "/search"):
            self._send(200, "application/json", _results_json(text, hits))
        else:
            self._send(404, "text/plain", b"try /search?q=...&format=json or /html/?q=...\n")

    def _stream_huge(self) -> None:
        chunk = b"<p>" + b"filler " * 1024 + b"</p>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(faults.HUGE_BYTES))
        self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        while sent < faults.HUGE_BYTES and not self.web.wait(0):
            piece = chunk[: faults.HUGE_BYTES - sent]
            self.wfile.write(piece)
            sent += len(piece)

    def _stream_chunked(self) -> None:
        """A chunked body that never ends (until the web stops or the client goes)."""
        self.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        piece = b"<p>" + b"more " * 4096 + b"</p>\n"
        frame = b"%x\r\n" % len(piece) + piece + b"\r\n"
        while not self.web.wait(0):
            self.wfile.write(frame)

    def _drip(self) -> None:
        """A page sent a byte a second."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(faults.DRIP_BYTES))
        self.end_headers()
        for _ in range(faults.DRIP_BYTES):
            self.wfile.write(b" ")
            self.wfile.flush()
            if self.web.wait(1.0):
                return

    def _send(
        self,
        status: int,
        content_type: str,
        body: bytes,
        location: str | None = None,
        encoding: str | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if location is not None:
            self.send_header("Location", location)
        if encoding is not None:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _results_json(query: str, hits: list[Hit]) -> bytes:
    results = [
        {"url": h.url, "title": h.title, "content": h.snippet, "engine": "testweb", "score": h.score}
        for h in hits
    ]
    return json.dumps({"query": query, "number_of_results": len(results), "results": results}).encode()


def _results_page(query: str, hits: list[Hit]) -> bytes:
    items = "".join(
        f'<li class="result"><a href="{html.escape(h.url)}">{html.escape(h.title)}</a>'
        f"<p>{html.escape(h.snippet)}</p></li>"
        for h in hits
    )
    return (
        f"<!doctype html><html><head><title>{html.escape(query)} - search.test</title></head>"
        f'<body><form action="/html/"><input name="q" value="{html.escape(query)}"></form>'
        f"<ol>{items}</ol></body></html>"
    ).encode()
