"""The offline web's search index: tantivy over every site, built once and cached.

The cache is keyed by the index format and each site's host, prefix, package and the package's
installed version (from dpkg's status file), so a new package version or a new site builds a new
index, and nothing else does. Where dpkg is absent, the sizes of the site's files stand in.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from fathom_ray.testweb.sites import SITES, Site
from fathom_ray.text.text_index import FORMAT, IndexedDocument, TextIndex
from fathom_ray.web.local_index import document_for, read_html

logger = logging.getLogger(__name__)
DPKG_STATUS = Path("/var/lib/dpkg/status")
DEFAULT_CACHE = Path.home() / ".cache" / "fathom-ray" / "testweb"  # one index per machine, shared


def installed_versions(status: Path = DPKG_STATUS) -> dict[str, str]:
    """Package name -> installed version, from dpkg's status file ({} when there is none)."""
    if not status.is_file():
        return {}
    versions: dict[str, str] = {}
    for stanza in status.read_text(encoding="utf-8", errors="replace").split("\n\n"):
        name = re.search(r"^Package: (\S+)", stanza, re.MULTILINE)
        version = re.search(r"^Version: (\S+)", stanza, re.MULTILINE)
        if name and version and "install ok installed" in stanza:
            versions[name.group(1)] = version.group(1)
    return versions


def cache_key(sites: Iterable[Site], versions: dict[str, str]) -> str:
    digest = hashlib.sha256(FORMAT.encode())
    for site in sites:
        digest.update(f"{site.host}\0{site.prefix}\0{site.root}\0{site.package}\0".encode())
        if site.package in versions:
            digest.update(versions[site.package].encode())
        else:
            for url, file in site.pages():
                digest.update(f"{url}\0{file.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def site_documents(sites: Iterable[Site]) -> Iterator[IndexedDocument]:
    for site in sites:
        for url, file in site.pages():
            yield document_for(url, read_html(file))


def load_or_build(cache_dir: Path, sites: tuple[Site, ...] = SITES) -> TextIndex:
    """The index of ``sites``, opened from ``cache_dir`` when one was built for these packages."""
    missing = [site.package for site in sites if not site.root.is_dir()]
    if missing:
        raise FileNotFoundError(f"documentation packages missing: {', '.join(missing)} (run scripts/setup)")
    folder = cache_dir / f"testweb-index-{cache_key(sites, installed_versions())}"
    try:
        return TextIndex.open(folder)
    except ValueError:
        logger.info("building the offline web's search index into %s", folder)
    return TextIndex.build(folder, site_documents(sites), replace=False)


if __name__ == "__main__":  # scripts/setup builds the index once, so no test or command waits on it
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    built = load_or_build(DEFAULT_CACHE)
    logger.info("the offline web's index: %d pages in %s", len(built), built.folder)
