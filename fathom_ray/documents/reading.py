"""A file as a document's text: .txt, .md, .html and .pdf (its text layer), headings kept.

The text is what the chunks slice (their offsets point into it) and what a fact's evidence must
occur in. Headings are recorded by their offset, so a chunk knows the nearest one above it:
Markdown's ``#`` lines, HTML's ``h1``-``h6``, a PDF's pages ("page 3"). A file that cannot be a
document (unreadable, empty, too large, an unsupported kind, a PDF without a text layer) raises
``DocumentError`` naming it and why; the caller goes on with the other files.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from fathom_ray.errors import DocumentError

SUFFIXES = frozenset((".txt", ".md", ".markdown", ".html", ".htm", ".pdf"))
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
# Every text node is read once, by its nearest block: a block's text is its own, outside the blocks in it.
_BLOCKS = (
    *("h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "dt", "dd", "td", "th", "blockquote"),
    *("body", "main", "article", "section", "aside", "div", "table", "tr", "ul", "ol", "dl"),
    *("figure", "figcaption", "caption", "address", "details", "summary"),
)
_BLOCK_SELECTOR = ", ".join(_BLOCKS)
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))


@dataclass(frozen=True, slots=True)
class DocumentText:
    title: str
    text: str
    headings: tuple[tuple[int, str], ...] = ()  # (offset in text, heading), in order


def files_under(paths: list[Path]) -> Iterator[Path]:
    """Each path, a folder's supported files recursively (sorted, hidden ones skipped)."""
    for path in paths:
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in found.relative_to(path).parts)
                if found.is_file() and found.suffix.lower() in SUFFIXES and not hidden:
                    yield found
        else:
            yield path


def read_document(path: Path, max_bytes: int) -> tuple[DocumentText, bytes]:
    """The document's text and the file's bytes (for its content hash)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DocumentError(
            str(path), f"unsupported file type {suffix or '(none)'}; supported: .txt .md .html .pdf"
        )
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DocumentError(
                str(path), f"{size} bytes is over the limit of {max_bytes} (FATHOM_DOCS__MAX_BYTES)"
            )
        data = path.read_bytes()
    except OSError as e:
        raise DocumentError(str(path), f"unreadable: {e.strerror or e}") from e
    if not data.strip():
        raise DocumentError(str(path), "empty file")
    if suffix == ".pdf":
        document = _pdf(path, data)
    elif suffix in (".html", ".htm"):
        document = _html(path, data.decode("utf-8", errors="replace"))
    elif suffix in (".md", ".markdown"):
        document = _markdown(path, data.decode("utf-8", errors="replace"))
    else:
        document = DocumentText(path.stem, data.decode("utf-8", errors="replace"))
    if not document.text.strip():
        raise DocumentError(str(path), "no text in it")
    return document, data


def _markdown(path: Path, text: str) -> DocumentText:
    found = list(_MD_HEADING.finditer(text))
    title = next((m.group(2) for m in found if m.group(1) == "#"), path.stem)
    return DocumentText(title, text, tuple((m.start(), m.group(2)) for m in found))


def _html(path: Path, html: str) -> DocumentText:
    tree = LexborHTMLParser(html)
    for node in tree.css("script, style, noscript, template, nav, header, footer"):
        node.decompose()
    for node in tree.css("br"):
        node.replace_with(" ")  # text is joined as written: inline tags add no spaces, a break does
    parts: list[str] = []
    headings: list[tuple[int, str]] = []
    offset = 0
    for node in tree.css(_BLOCK_SELECTOR):
        text = " ".join(_own_text(node).split())
        if not text:
            continue
        if node.tag in _HEADINGS:
            headings.append((offset, text))
        parts.append(text)
        offset += len(text) + 2
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    return DocumentText(
        title or (headings[0][1] if headings else path.stem), "\n\n".join(parts), tuple(headings)
    )


def _own_text(node: LexborNode) -> str:
    """The text of ``node`` outside the blocks nested in it (they are read on their own), joined as
    written: inline tags add no spaces."""
    pieces: list[str] = []
    for child in node.iter(include_text=True):
        if child.tag == "-text":
            pieces.append(child.text_content or "")
        elif child.tag in _BLOCKS:
            pieces.append(" ")
        else:
            pieces.append(_own_text(child))
    return "".join(pieces)


def _pdf(path: Path, data: bytes) -> DocumentText:
    # pypdf loads with the first PDF (a tenth of a second every process importing this would pay)
    from pypdf import PdfReader  # noqa: PLC0415
    from pypdf.errors import PyPdfError  # noqa: PLC0415

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        info = reader.metadata
        title = str(info.title) if info and info.title else ""
    except (PyPdfError, ValueError, KeyError, OSError) as e:
        raise DocumentError(str(path), f"unreadable PDF: {e}") from e
    if not any(pages):
        raise DocumentError(str(path), f"no text layer in its {len(pages)} page(s) (a scanned PDF?)")
    parts: list[str] = []
    headings: list[tuple[int, str]] = []
    offset = 0
    for number, text in enumerate(pages, start=1):
        if not text:
            continue
        headings.append((offset, f"page {number}"))
        parts.append(text)
        offset += len(text) + 2
    return DocumentText(title or path.stem, "\n\n".join(parts), tuple(headings))
