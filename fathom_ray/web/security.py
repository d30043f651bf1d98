"""Safe fetching: which URLs and addresses a fetcher may reach, and which bodies it keeps.

The policy is pure: adapters resolve host names and hand the addresses in.
Every hop of every fetch (browser or httpx, redirects included) is checked.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

ALLOWED_SCHEMES = frozenset({"http", "https"})
CONTENT_KINDS = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "application/pdf": "pdf",
}


def address_problem(address: str) -> str | None:
    """Why an address must not be fetched (private, loopback, ...), or None if it is public."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address!r} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for label, flagged in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved or ip.is_unspecified),
        ("private", ip.is_private),
    ):
        if flagged:
            return f"{ip} is a {label} address"
    return None


def host_matches(host: str, patterns: Iterable[str]) -> bool:
    """Whether ``host`` is named by an allow-list entry: an exact host or ``*.suffix``."""
    host = host.lower().rstrip(".")
    for entry in patterns:
        pattern = entry.lower().rstrip(".")
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]):
                return True
        elif host == pattern:
            return True
    return False


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """Only http(s); only public addresses unless the URL's host is on the allow-list."""

    allow_hosts: frozenset[str] = frozenset()

    @classmethod
    def allowing(cls, hosts: Iterable[str]) -> UrlPolicy:
        return cls(frozenset(hosts))

    def url_problem(self, url: str) -> str | None:
        """Why a URL may not be fetched before resolving it, or None."""
        parts = urlsplit(url)
        if parts.scheme.lower() not in ALLOWED_SCHEMES:
            return f"scheme {parts.scheme or '(none)'!r} is not http or https"
        if not parts.hostname:
            return "no host"
        return None

    def resolved_problem(self, url: str, addresses: Sequence[str]) -> str | None:
        """Why a URL whose host resolved to ``addresses`` may not be fetched, or None."""
        problem = self.url_problem(url)
        if problem is not None:
            return problem
        host = urlsplit(url).hostname or ""
        if host_matches(host, self.allow_hosts):
            return None
        if not addresses:
            return f"{host} did not resolve"
        for address in addresses:
            problem = address_problem(address)
            if problem is not None:
                return problem if host.strip("[]") == address else f"{host} resolves to {address}: {problem}"
        return None


def encoding_problem(content_encoding: str) -> str | None:
    """Why a body sent with this Content-Encoding may not be read, or None: fetches ask for bodies
    as they are, so the size limit counts what is decoded; a compressed one (a gzip bomb) is not."""
    encoding = content_encoding.strip().lower() or "identity"
    if encoding == "identity":
        return None
    return f"a {encoding}-encoded body not asked for: its decoded size is unbounded"


def content_kind(content_type: str) -> str | None:
    """``html``, ``text`` or ``pdf`` for a Content-Type we keep; None for any other."""
    media = content_type.split(";", 1)[0].strip().lower()
    if not media:
        return "html"  # servers that send no type are nearly always sending HTML
    return CONTENT_KINDS.get(media)
