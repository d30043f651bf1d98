"""Canonical URLs, so that one page is one key however a link spelled it.

``canonicalize`` lower-cases scheme and host, encodes international host
names as IDNA, drops the default port, the fragment and empty query pairs,
sorts the query pairs, removes dot segments from the path and normalises
percent-encoding (unreserved characters decoded, other escapes upper-case,
unsafe characters encoded as UTF-8). It is idempotent.
"""

from __future__ import annotations

import functools
import re
import string
from urllib.parse import urlsplit, urlunsplit

from fathom_ray.errors import InvalidURLError

DEFAULT_PORTS = {"http": 80, "https": 443}
_DOCUMENT_CHUNK = re.compile(r"^doc://([0-9a-f]{12})#(\d+)$", re.I)
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_SUB_DELIMS = "!$'()*,;"
_PATH_SAFE = frozenset(_UNRESERVED | set(_SUB_DELIMS + "&=+:@/"))
_QUERY_PART_SAFE = frozenset(_UNRESERVED | set(_SUB_DELIMS + "+:@/?="))
_USERINFO_SAFE = frozenset(_UNRESERVED | set(_SUB_DELIMS + "&=+:"))
_HEX = frozenset(string.hexdigits)
_HOST_CHARS = frozenset(string.ascii_lowercase + string.digits + "-._")


@functools.cache
def _all_safe(safe: frozenset[str]) -> re.Pattern[str]:
    return re.compile("[" + re.escape("".join(sorted(safe))) + "]*")


def _normalise_escapes(text: str, safe: frozenset[str]) -> str:
    """Decode escapes of unreserved characters, upper-case the rest, encode unsafe ones."""
    if _all_safe(safe).fullmatch(text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        escape = text[i + 1 : i + 3]
        if char == "%" and len(escape) == 2 and set(escape) <= _HEX:
            decoded = chr(int(escape, 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + escape.upper())
            i += 3
            continue
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, on an absolute path."""
    segments = path.split("/")[1:]
    kept: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                kept.append("")
        elif segment == "..":
            if kept:
                kept.pop()
            if last:
                kept.append("")
        else:
            kept.append(segment)
    return "/" + "/".join(kept)


def _canonical_host(url: str, host: str) -> str:
    host = host.rstrip(".").lower()
    if not host:
        raise InvalidURLError(url, "no host")
    if ":" in host:  # an IPv6 literal
        return f"[{host}]"
    try:
        encoded = host.encode("idna").decode("ascii")
    except UnicodeError as e:
        raise InvalidURLError(url, f"host {host!r} is not a valid domain name") from e
    if not set(encoded.lower()) <= _HOST_CHARS:
        raise InvalidURLError(url, f"host {host!r} has characters a domain name cannot hold")
    return encoded.lower()


def _canonical_query(query: str) -> str:
    pairs: list[tuple[str, str]] = []
    for part in query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        key = _normalise_escapes(key, _QUERY_PART_SAFE - {"="})
        value = _normalise_escapes(value, _QUERY_PART_SAFE)
        if key or value:
            pairs.append((key, value))
    pairs.sort()
    return "&".join(f"{key}={value}" if value else key for key, value in pairs)


def document_chunk(url: str) -> tuple[str, int] | None:
    """(document id, chunk index) of a ``doc://ID#chunk`` source, or None for any other URL."""
    found = _DOCUMENT_CHUNK.match(url.strip())
    return (found.group(1).lower(), int(found.group(2))) if found else None


def canonical_or_none(url: str) -> str | None:
    """``canonicalize``, or None for a URL it refuses."""
    try:
        return canonicalize(url)
    except InvalidURLError:
        return None


def canonicalize(url: str) -> str:
    """The canonical form of an absolute http(s) URL, or of a document chunk's ``doc://ID#chunk``;
    ``InvalidURLError`` otherwise."""
    if (chunk := document_chunk(url)) is not None:
        return f"doc://{chunk[0]}#{chunk[1]}"
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise InvalidURLError(url, str(e)) from e
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise InvalidURLError(url, f"scheme {scheme or '(none)'!r} is not http or https")
    host = _canonical_host(url, parts.hostname or "")
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username is not None:
        userinfo = _normalise_escapes(parts.netloc.rpartition("@")[0], _USERINFO_SAFE)
        netloc = f"{userinfo}@{netloc}"
    path = _remove_dot_segments(_normalise_escapes(parts.path or "/", _PATH_SAFE))
    return urlunsplit((scheme, netloc, path, _canonical_query(parts.query), ""))


def domain_of(url: str) -> str:
    """The host a URL's productivity is counted under: canonical, without a leading ``www.``."""
    host = urlsplit(canonicalize(url)).hostname or ""
    return host.removeprefix("www.")


_SITE_FILLER = frozenset(
    {"www", "docs", "doc", "test", "com", "org", "net", "io", "en", "latest", "stable", "readthedocs"}
    | {"help", "manual", "html", "software", "api"}
)


def site_words(url: str) -> frozenset[str]:
    """The words that name a page's site: its host's labels and its first two folders, without
    the usual filler (``docs.djangoproject.test`` -> djangoproject; ``www.gnu.test/software/bash/``
    -> gnu, bash)."""
    parts = urlsplit(url)
    folders = [s for s in parts.path.split("/")[1:3] if "." not in s]  # folders, not files
    words = {w.lower() for w in [*(parts.hostname or "").split("."), *folders] if len(w) >= 3 and w.isalpha()}
    return frozenset(words - _SITE_FILLER)


def names_site(text: str, url: str) -> bool:
    """Whether ``text`` names the site of ``url``: one of its site words, or a word of four letters
    or more that begins one ("Django" names docs.djangoproject.test)."""
    said = set(re.findall(r"[a-z0-9]+", text.lower()))
    return any(w in said or any(len(t) >= 4 and w.startswith(t) for t in said) for w in site_words(url))


_HUB_PAGES = re.compile(
    r"(?:index|readme|contents|genindex|py-modindex|modindex|search|sitemap|toc)(?:\.[\w.]*)?$", re.I
)


_EXTENSION = re.compile(r"\.(html?|php|aspx?|txt)$")


def file_name(url: str) -> str:
    """The last part of a page's path in lower case, without its extension: "netrc" for
    ".../library/netrc.html", "git-fetch" for ".../docs/git-fetch"."""
    path = urlsplit(url).path.rstrip("/")
    return _EXTENSION.sub("", path.rsplit("/", 1)[-1]).lower()


def is_hub(url: str) -> bool:
    """Whether ``url`` is a site's front page or one of its indexes (``/``, ``index.html``,
    ``index.en.html``, ``README.html``, ``genindex.html``, ``contents.html``): pages that list the
    site's topics and match every query about them, but rarely state an answer themselves."""
    path = urlsplit(url).path
    return not path or path.endswith("/") or bool(_HUB_PAGES.match(path.rsplit("/", 1)[-1]))
