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
]
