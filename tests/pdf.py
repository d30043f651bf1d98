"""A printed PDF's text, page by page, for tests that check what a report printed."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader


def pdf_pages(pdf: bytes | Path) -> list[str]:
    """Each page's text with its runs of white space made one space (a PDF lays text out in lines
    of its own)."""
    reader = PdfReader(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf)
    return [" ".join((page.extract_text() or "").split()) for page in reader.pages]


def pdf_text(pdf: bytes | Path) -> str:
    """The whole document's text, its pages joined (``pdf_pages``)."""
    return " ".join(pdf_pages(pdf))
