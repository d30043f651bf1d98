"""The documentation sites of the offline test web and how a request path maps to a file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fathom_ray.local_index import html_files, read_html


@dataclass(frozen=True, slots=True)
class Site:
    """A host serving one Debian documentation package under a path prefix."""

    host: str
    prefix: str
    root: Path
    package: str

    @property
    def base_url(self) -> str:
        return f"http://{self.host}{self.prefix}"

    def file_for(self, path: str) -> Path | None:
        """The file that serves ``path`` (``.gz`` twins included), or None; never outside the root."""
        if not path.startswith(self.prefix):
            return None
        relative = path[len(self.prefix) :]
        candidate = (self.root / relative).resolve()
        root = self.root.resolve()
        if candidate != root and root not in candidate.parents:
            return None
        if candidate.is_dir():
            candidate = candidate / "index.html"
        if candidate.is_file():
            return candidate
        zipped = candidate.with_name(candidate.name + ".gz")
        return zipped if zipped.is_file() else None

    def pages(self) -> Iterator[tuple[str, Path]]:
        """Every HTML page of the site as (URL, file), in a stable order."""
        for relative, file in html_files(self.root):
            yield f"{self.base_url}{relative}", file


read_body = read_html


SITES: tuple[Site, ...] = (
    Site("docs.python.test", "/3.11/", Path("/usr/share/doc/python3.11/html"), "python3.11-doc"),
    Site(
        "www.postgresql.test", "/docs/15/", Path("/usr/share/doc/postgresql-doc-15/html"), "postgresql-doc-15"
    ),
    Site("www.sqlite.test", "/", Path("/usr/share/doc/sqlite3"), "sqlite3-doc"),
)


def site_for(host: str) -> Site | None:
    return next((site for site in SITES if site.host == host), None)
