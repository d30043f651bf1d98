"""What every fetcher must make of the offline web's fault hosts."""

from __future__ import annotations

from fathom_ray.models import FetchStatus

FAULT_CASES = [
    ("http://error.test/", FetchStatus.HTTP_ERROR),
    ("http://loop.test/a", FetchStatus.TOO_MANY_REDIRECTS),
    ("http://redirect-private.test/", FetchStatus.BLOCKED),
    ("http://redirect-private.test/metadata", FetchStatus.BLOCKED),
    ("http://huge.test/", FetchStatus.TOO_LARGE),
    ("http://binary.test/", FetchStatus.UNSUPPORTED_TYPE),
    ("http://hang.test/", FetchStatus.TIMEOUT),
    ("http://nowhere.example/", FetchStatus.BLOCKED),
    # hostile servers
    ("http://gzip-bomb.test/", FetchStatus.TOO_LARGE),
    ("http://drip.test/", FetchStatus.TIMEOUT),
    ("http://file-redirect.test/", FetchStatus.BLOCKED),
]
# An endless chunked body ends at the size limit, or at the page timeout while a browser still parses it.
ENDLESS = ("http://chunked.test/", {FetchStatus.TOO_LARGE, FetchStatus.TIMEOUT})
# Hostile pages that do load: 100,000 links, 100,000 nested elements, a charset no codec knows.
HOSTILE_PAGES = ["http://links.test/", "http://nested.test/", "http://charset.test/"]
