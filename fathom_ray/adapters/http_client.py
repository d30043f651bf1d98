"""httpx GETs that are safe hop by hop: preview, full body (PDF, text) and robots.txt.

Every hop (redirects included) is resolved through the network map, checked
against the URL policy, and then connected to the very address that was
checked (no second DNS lookup to rebind); the Host header and TLS server name
stay the original host's.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser

from fathom_ray.models import FetchResult, FetchStatus, Preview
from fathom_ray.ports import Resolver
from fathom_ray.settings import FetchSettings
from fathom_ray.web.network import NetworkMap
from fathom_ray.web.security import UrlPolicy, content_kind, encoding_problem

MAX_REDIRECTS = 5
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class _ReadRules:
    """How much of a body to read, whether to cut it quietly, and whether only JSON will do."""

    max_bytes: int
    truncate: bool
    json_only: bool = False


class _FetchFailedError(Exception):
    """Ends one fetch with a status; caught inside this module and turned into a value."""

    def __init__(self, status: FetchStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class SafeHttpClient:
    """One pooled httpx client; use ``async with`` or call ``aclose``."""

    def __init__(
        self, settings: FetchSettings, policy: UrlPolicy, network: NetworkMap, resolver: Resolver
    ) -> None:
        self._settings = settings
        self._policy = policy
        self._network = network
        self._resolver = resolver
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(settings.timeout_s), follow_redirects=False, trust_env=False
        )

    async def __aenter__(self) -> SafeHttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def check(self, url: str) -> str | None:
        """Why ``url`` may not be fetched (scheme, resolved address), or None."""
        problem = self._policy.url_problem(url)
        if problem is not None:
            return problem
        host = urlsplit(url).hostname or ""
        return self._policy.resolved_problem(url, await self._resolver.resolve(host))

    async def fetch(self, url: str, max_bytes: int | None = None) -> FetchResult:
        """The whole body (up to the size limit) of an HTML, text or PDF resource."""
        return await self._get(url, _ReadRules(max_bytes or self._settings.max_body_bytes, truncate=False))

    async def preview(self, url: str) -> Preview:
        """Status, type, title and amount of text of the first ``preview_bytes`` of a page."""
        result = await self._get(url, _ReadRules(self._settings.preview_bytes, truncate=True))
        title, chars = _title_and_text(result.body) if result.ok else ("", 0)
        if result.ok and content_kind(result.content_type) == "pdf":
            chars = len(result.data)
        return Preview(
            url=url,
            status=result.status,
            final_url=result.final_url,
            http_status=result.http_status,
            content_type=result.content_type,
            title=title,
            text_chars=chars,
            error=result.error,
        )

    async def fetch_json(self, url: str, max_bytes: int = 2_000_000) -> FetchResult:
        """A JSON document (an API answer), body as text; other types are refused."""
        return await self._get(url, _ReadRules(max_bytes, truncate=False, json_only=True))

    async def robots_txt(self, url: str) -> str | None:
        """The robots.txt of ``url``'s origin; None (allow all) when missing or unreachable."""
        rules = _ReadRules(512_000, truncate=True)
        result = await self._get(url, rules, timeout_s=min(5.0, self._settings.timeout_s))
        if result.ok and content_kind(result.content_type) in ("text", "html"):
            return result.body
        return None

    async def _get(self, url: str, rules: _ReadRules, timeout_s: float | None = None) -> FetchResult:
        started = time.monotonic()
        hops: list[str] = []
        try:
            async with asyncio.timeout(timeout_s or self._settings.timeout_s):
                return await self._follow(url, rules, hops, started)
        except _FetchFailedError as failure:
            status, reason = failure.status, failure.reason
        except TimeoutError:
            status, reason = (
                FetchStatus.TIMEOUT,
                f"no complete answer within {timeout_s or self._settings.timeout_s:g} s",
            )
        except httpx.TimeoutException as e:
            status, reason = FetchStatus.TIMEOUT, f"{type(e).__name__}"
        except httpx.HTTPError as e:
            status, reason = FetchStatus.NETWORK_ERROR, f"{type(e).__name__}: {e}"
        return FetchResult(
            url,
            status,
            final_url=hops[-1] if hops else url,
            elapsed_s=time.monotonic() - started,
            error=reason,
            redirects=tuple(hops[1:]),
        )

    async def _follow(self, url: str, rules: _ReadRules, hops: list[str], started: float) -> FetchResult:
        current = url
        while True:
            hops.append(current)
            if len(hops) > MAX_REDIRECTS + 1:
                raise _FetchFailedError(
                    FetchStatus.TOO_MANY_REDIRECTS, f"more than {MAX_REDIRECTS} redirects"
                )
            request = await self._request(current)
            response = await self._client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_CODES and location:
                    current = urljoin(current, location)
                    continue
                return await self._read(
                    url=url,
                    final_url=current,
                    response=response,
                    rules=rules,
                    hops=hops,
                    started=started,
                )
            finally:
                await response.aclose()

    async def _request(self, url: str) -> httpx.Request:
        parts = urlsplit(url)
        host = parts.hostname or ""
        problem = self._policy.url_problem(url)
        if problem is not None:
            raise _FetchFailedError(FetchStatus.BLOCKED, f"{url}: {problem}")
        addresses = await self._resolver.resolve(host)
        problem = self._policy.resolved_problem(url, addresses)
        if problem is not None:
            raise _FetchFailedError(FetchStatus.BLOCKED, f"{url}: {problem}")
        route = self._network.route_for(host)
        address = route.address if route else addresses[0]
        port = (route.port if route else None) or parts.port or (443 if parts.scheme == "https" else 80)
        target = httpx.URL(url).copy_with(host=address, port=port)
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        headers = {
            "Host": parts.netloc,
            "User-Agent": self._settings.user_agent,
            "Accept": "*/*",
            "Accept-Encoding": "identity",  # the size limit counts the body as it is
        }
        return self._client.build_request("GET", target, headers=headers, extensions=extensions)

    async def _read(
        self,
        *,
        url: str,
        final_url: str,
        response: httpx.Response,
        rules: _ReadRules,
        hops: list[str],
        started: float,
    ) -> FetchResult:
        max_bytes = rules.max_bytes
        content_type = response.headers.get("content-type", "")
        kind = content_kind(content_type)
        if rules.json_only:
            kind = "text" if "json" in content_type.lower() else None
        if kind is None:
            wanted = "JSON" if rules.json_only else "HTML, text or PDF"
            raise _FetchFailedError(
                FetchStatus.UNSUPPORTED_TYPE, f"content type {content_type!r} is not {wanted}"
            )
        if problem := encoding_problem(response.headers.get("content-encoding", "")):
            raise _FetchFailedError(FetchStatus.TOO_LARGE, problem)
        declared = int(response.headers.get("content-length", "0") or 0)
        if declared > max_bytes and not rules.truncate:
            raise _FetchFailedError(FetchStatus.TOO_LARGE, f"{declared} bytes declared, limit {max_bytes}")
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > max_bytes:
                if not rules.truncate:
                    raise _FetchFailedError(
                        FetchStatus.TOO_LARGE, f"body passed the limit of {max_bytes} bytes"
                    )
                del data[max_bytes:]
                break
        ok = response.status_code < 400
        body = "" if kind == "pdf" else data.decode(response.encoding or "utf-8", "replace")
        return FetchResult(
            url,
            FetchStatus.OK if ok else FetchStatus.HTTP_ERROR,
            final_url=final_url,
            http_status=response.status_code,
            content_type=content_type,
            body=body,
            data=bytes(data) if kind == "pdf" else b"",
            elapsed_s=time.monotonic() - started,
            error="" if ok else f"HTTP {response.status_code}",
            redirects=tuple(hops[1:]),
        )


def _title_and_text(html: str) -> tuple[str, int]:
    match = TITLE.search(html)
    title = " ".join(match.group(1).split()) if match else ""
    body = LexborHTMLParser(html).body
    if body is None:
        return title, 0
    for node in body.css("script,style,noscript"):
        node.decompose()
    return title, len(" ".join(body.text(separator=" ").split()))
