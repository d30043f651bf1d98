"""Fault hosts of the offline web: each misbehaves in one way a real site can."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from fathom_ray.testweb.attacks import HOST as ATTACK_HOST
from fathom_ray.testweb.attacks import attack_page
from fathom_ray.testweb.monuments import HOST as MONUMENTS_HOST
from fathom_ray.testweb.monuments import monument_page

SLOW_DELAY_S = 3.0
HUGE_BYTES = 64 * 1024 * 1024
BOMB_BYTES = 256 * 1024 * 1024  # what the gzip bomb's quarter megabyte decodes to
MANY_LINKS = 100_000
NESTING = 100_000
DRIP_BYTES = 1_000  # the slow drip's declared length, sent a byte a second
JS_PAGE = b"""<!doctype html>
<html><head><title>Rendered by script</title></head>
<body><div id="app">Loading...</div>
<script>
setTimeout(function () {
  document.getElementById("app").innerHTML =
    "<h1>Rendered by script</h1><p>The answer to the test question is forty-two. " +
    "This paragraph exists only after JavaScript runs in the page.</p>";
}, 300);
</script></body></html>"""
# js.test/fetched and js.test/inserted render their text from a request that starts after "load"
# and that the server answers LATE_S later (js.test/late...): the fetcher must wait for it
LATE_S = 0.6
JS_FETCH_PAGE = b"""<!doctype html>
<html><head><title>Rendered from a request</title></head>
<body><div id="app">Loading...</div>
<script>
setTimeout(function () {
  fetch("/late.json").then(function (r) { return r.json(); }).then(function (data) {
    document.getElementById("app").innerHTML = "<h1>Rendered from a request</h1><p>" + data.text + "</p>";
  });
}, 50);
</script></body></html>"""
JS_LATE_JSON = b'{"text": "The fetched answer is seventeen, and it came after the page loaded."}'
JS_INSERT_PAGE = b"""<!doctype html>
<html><head><title>Rendered by an inserted script</title></head>
<body><div id="app">Loading...</div>
<script>
window.addEventListener("load", function () {
  var script = document.createElement("script");
  script.src = "/late.js";
  document.body.appendChild(script);
});
</script></body></html>"""
JS_LATE_SCRIPT = (
    b'document.getElementById("app").innerHTML = '
    b'"<h1>Rendered by an inserted script</h1><p>The inserted script says nineteen.</p>";'
)
JS_BUSY_PAGE = b"""<!doctype html>
<html><head><title>Never still</title></head>
<body><h1>Never still</h1><p>This page counts for ever: <span id="n">0</span></p>
<script>
var n = 0;
setInterval(function () { document.getElementById("n").textContent = String(++n); }, 30);
</script></body></html>"""
JS_PAGES: dict[str, tuple[str, bytes]] = {
    "/busy": ("text/html; charset=utf-8", JS_BUSY_PAGE),
    "/fetched": ("text/html; charset=utf-8", JS_FETCH_PAGE),
    "/late.json": ("application/json", JS_LATE_JSON),
    "/inserted": ("text/html; charset=utf-8", JS_INSERT_PAGE),
    "/late.js": ("text/javascript", JS_LATE_SCRIPT),
}
ROBOTS_TXT = b"User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"


@dataclass(frozen=True, slots=True)
class Reply:
    """A canned answer: status, headers and body."""

    status: int
    content_type: str = "text/html; charset=utf-8"
    body: bytes = b""
    location: str | None = None
    encoding: str | None = None  # Content-Encoding, whether asked for or not


def pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` in Helvetica, written object by object."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


PDF_TEXT = "PostgreSQL 15 was released on 13 October 2022."


def page(title: str, text: str) -> bytes:
    return (
        f"<!doctype html><html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}</p></body></html>"
    ).encode()


@cache
def gzip_bomb() -> bytes:
    """Zeros that decode to ``BOMB_BYTES`` from about a quarter of a megabyte on the wire."""
    return gzip.compress(b"\0" * BOMB_BYTES, compresslevel=9, mtime=0)


@cache
def many_links() -> bytes:
    anchors = "".join(f"<a href={n}>.</a>" for n in range(MANY_LINKS))  # under 2 MB in all
    return page("A hundred thousand links", "Links follow.").replace(
        b"</body>", anchors.encode() + b"</body>"
    )


@cache
def deep_nesting() -> bytes:
    body = "<div>" * NESTING + "<p>The deepest paragraph of the page.</p>" + "</div>" * NESTING
    return f"<!doctype html><html><head><title>Deep</title></head><body>{body}</body></html>".encode()


def _redirect_private(path: str, web_port: int) -> Reply:
    if path.startswith("/metadata"):
        return Reply(302, location="http://169.254.169.254/latest/meta-data/")
    return Reply(302, location=f"http://127.0.0.1:{web_port}/")


def _js(path: str) -> Reply:
    kind, body = JS_PAGES.get(path, ("text/html; charset=utf-8", JS_PAGE))
    return Reply(200, content_type=kind, body=body)


def late(host: str, path: str) -> bool:
    """Whether the server answers this request ``LATE_S`` late."""
    return host == "js.test" and path.startswith("/late")


def _robots(path: str, web_port: int) -> Reply:
    if path == "/robots.txt":
        return Reply(200, content_type="text/plain", body=ROBOTS_TXT)
    return Reply(200, body=page("Robots test", f"You are looking at {path}."))


_CANNED: dict[str, Callable[[str, int], Reply]] = {
    "error.test": lambda path, port: Reply(500, body=page("Internal Server Error", "The server fell over.")),
    "loop.test": lambda path, port: Reply(302, location="/b" if path != "/b" else "/a"),
    "redirect-private.test": _redirect_private,
    "binary.test": lambda path, port: Reply(
        200, content_type="application/octet-stream", body=os.urandom(4096)
    ),
    "js.test": lambda path, port: _js(path),
    "robots.test": _robots,
    "pdf.test": lambda path, port: Reply(200, content_type="application/pdf", body=pdf(PDF_TEXT)),
    # hostile servers: each must end as a fetch status within the fetch timeout, memory bounded
    "gzip-bomb.test": lambda path, port: Reply(200, body=gzip_bomb(), encoding="gzip"),
    "links.test": lambda path, port: Reply(200, body=many_links()),
    "nested.test": lambda path, port: Reply(200, body=deep_nesting()),
    "charset.test": lambda path, port: Reply(
        200,
        content_type="text/html; charset=x-no-such-charset",
        body=page("Wrong charset", "Café crème, naïve façade: the header names no real charset."),
    ),
    "file-redirect.test": lambda path, port: Reply(302, location="file:///etc/passwd"),
}


def _attack(path: str, web_port: int) -> Reply:
    body = attack_page(path, web_port)
    return Reply(404, body=page("Not Found", "No such attack.")) if body is None else Reply(200, body=body)


def _monuments(path: str, web_port: int) -> Reply:
    body = monument_page(path)
    return Reply(404, body=page("Not Found", "No such monument.")) if body is None else Reply(200, body=body)


_CANNED[ATTACK_HOST] = _attack
_CANNED[MONUMENTS_HOST] = _monuments  # not a fault: small pages of the research case's own


def fault_reply(host: str, path: str, web_port: int) -> Reply | None:
    """The canned reply of a fault host, or None (not a fault host, or one the server streams)."""
    make = _CANNED.get(host)
    return None if make is None else make(path, web_port)


FAULT_HOSTS = (
    "slow.test",
    "hang.test",
    "error.test",
    "loop.test",
    "redirect-private.test",
    "huge.test",
    "binary.test",
    "robots.test",
    "js.test",
    "pdf.test",
    "gzip-bomb.test",
    "chunked.test",
    "drip.test",
    "links.test",
    "nested.test",
    "charset.test",
    "file-redirect.test",
    ATTACK_HOST,
    MONUMENTS_HOST,
)
