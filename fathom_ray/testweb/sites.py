"""The documentation sites of the offline test web and how a request path maps to a file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from fathom_ray.web.local_index import html_files, read_html


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
        relative = unquote(path[len(self.prefix) :])
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
            yield self.url_for(relative), file

    def url_for(self, relative: str) -> str:
        """The URL of the file at ``relative`` (a path under the root), percent-encoded."""
        return f"{self.base_url}{quote(relative, safe='/')}"


read_body = read_html


DOC = Path("/usr/share/doc")
SITES: tuple[Site, ...] = (
    # The first three are the original offline web: their hosts and URLs never change.
    Site("docs.python.test", "/3.11/", DOC / "python3.11/html", "python3.11-doc"),
    Site("www.postgresql.test", "/docs/15/", DOC / "postgresql-doc-15/html", "postgresql-doc-15"),
    Site("www.sqlite.test", "/", DOC / "sqlite3", "sqlite3-doc"),
    Site("git-scm.test", "/docs/", DOC / "git-doc", "git-doc"),
    Site("reference.debian.test", "/", Path("/usr/share/debian-reference"), "debian-reference-en"),
    Site("policy.debian.test", "/", DOC / "debian-policy", "debian-policy"),
    Site("docs.djangoproject.test", "/en/3.2/", DOC / "python-django-doc/html", "python-django-doc"),
    Site("docs.sqlalchemy.test", "/en/14/", DOC / "python-sqlalchemy-doc/html", "python-sqlalchemy-doc"),
    Site("flask.palletsprojects.test", "/en/2.2.x/", DOC / "python-flask-doc/html", "python-flask-doc"),
    Site(
        "werkzeug.palletsprojects.test", "/en/2.2.x/", DOC / "python-werkzeug-doc/html", "python-werkzeug-doc"
    ),
    Site("jinja.palletsprojects.test", "/en/3.1.x/", DOC / "python-jinja2-doc/html", "python-jinja2-doc"),
    Site("click.palletsprojects.test", "/en/8.1.x/", DOC / "python-click-doc/html", "python-click-doc"),
    Site("docs.pytest.test", "/en/7.2.x/", DOC / "python-pytest-doc/html", "python-pytest-doc"),
    Site("requests.readthedocs.test", "/en/latest/", DOC / "python-requests-doc/html", "python-requests-doc"),
    Site("cmake.test", "/cmake/help/v3.25/", DOC / "cmake-data/html", "cmake-doc"),
    Site("www.gnu.test", "/software/bash/manual/", DOC / "bash", "bash-doc"),  # bash-doc links its pages here
)


def site_for(host: str) -> Site | None:
    return next((site for site in SITES if site.host == host), None)
