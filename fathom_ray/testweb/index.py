"""The offline web's search index: BM25 over the three sites, built once and cached."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from pathlib import Path

from fathom_ray.bm25 import Bm25Index
from fathom_ray.local_index import index_folder
from fathom_ray.testweb.sites import SITES, Site

logger = logging.getLogger(__name__)


def _fingerprint(sites: Iterable[Site]) -> str:
    digest = hashlib.sha256()
    for site in sites:
        for url, file in site.pages():
            digest.update(f"{url}\0{file.stat().st_size}\n".encode())
    return digest.hexdigest()[:16]


def load_or_build(cache_dir: Path, sites: tuple[Site, ...] = SITES) -> Bm25Index:
    """The index of ``sites``, read from ``cache_dir`` when the sites have not changed."""
    missing = [site.package for site in sites if not site.root.is_dir()]
    if missing:
        raise FileNotFoundError(f"documentation packages missing: {', '.join(missing)} (run scripts/setup)")
    path = cache_dir / f"testweb-index-{_fingerprint(sites)}.json"
    if path.is_file():
        return Bm25Index.load(path)
    logger.info("building the offline web's search index into %s", path)
    index = Bm25Index()
    for site in sites:
        index_folder(index, site.root, site.base_url)
    index.save(path)
    return index
