"""What the local search index holds of a page: its title and visible text, from HTML files (a folder,
a mirror) or fetched pages."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser

from fathom_ray.text.text_index import IndexedDocument

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
NOISE_SELECTORS = (
    "script,style,nav,header,footer,noscript,[role=navigation],"
    ".related,.sphinxsidebar,.navheader,.navfooter,.nosearch,.menu"
)


def document_for(url: str, html: bytes | str) -> IndexedDocument:
    """Title and visible text of a page, without navigation, for indexing."""
    text = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
    tree = LexborHTMLParser(text)
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node else url
    body = tree.body
    if body is None:
        return IndexedDocument(url, title, "")
    for node in body.css(NOISE_SELECTORS):
        node.decompose()
    return IndexedDocument(url, title, " ".join(body.text(separator=" ").split()))


def html_files(folder: Path) -> Iterator[tuple[str, Path]]:
    """(path relative to ``folder`` as served, file) for every HTML file, gzipped ones included."""
    for file in sorted(folder.rglob("*")):
        name = file.name.removesuffix(".gz")
        if file.is_file() and name.endswith(HTML_SUFFIXES):
            yield file.relative_to(folder).with_name(name).as_posix(), file


def read_html(file: Path) -> bytes:
    data = file.read_bytes()
    return gzip.decompress(data) if file.name.endswith(".gz") else data


def folder_documents(folder: Path, base_url: str) -> Iterator[IndexedDocument]:
    """Every HTML file under ``folder``, its URL ``base_url`` + relative path (percent-encoded)."""
    base = base_url if base_url.endswith("/") else base_url + "/"
    for relative, file in html_files(folder):
        yield document_for(base + quote(relative, safe="/"), read_html(file))
