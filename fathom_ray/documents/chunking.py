"""Chunks of about 900 characters with 150 of overlap, cut at paragraph, then sentence boundaries.

A chunk is an exact slice of the document's text (``text[start:end]``), so its offsets locate it
and a fact's evidence taken from it occurs in the document. Paragraphs (blank-line separated) are
packed whole while they fit; a paragraph longer than a chunk is cut at sentence ends, and a
sentence longer than a chunk at spaces. The next chunk starts far enough back to repeat at least
``overlap`` characters, at a boundary, and always moves forward. Each chunk keeps the nearest
heading above its start.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from fathom_ray.documents.models import Chunk
from fathom_ray.documents.reading import DocumentText

CHUNK_CHARS = 900
OVERLAP_CHARS = 150
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


def chunk_document(
    document_id: str, document: DocumentText, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS
) -> list[Chunk]:
    if not 0 <= overlap < size // 2:
        raise ValueError(f"overlap must lie in [0, size / 2), got {overlap} for size {size}")
    text = document.text
    units = _units(text, size)
    chunks: list[Chunk] = []
    first = 0
    while first < len(units):
        last = first
        while last + 1 < len(units) and units[last + 1][1] - units[first][0] <= size:
            last += 1
        # end at a paragraph's end when one falls in the second half of the chunk
        ends = [
            i for i in range(first, last + 1) if units[i][2] and units[i][1] - units[first][0] >= size // 2
        ]
        if ends and last + 1 < len(units):
            last = ends[-1]
        start, end = units[first][0], units[last][1]
        heading = _heading(document.headings, start)
        chunks.append(Chunk(document_id, len(chunks), text[start:end], heading, start, end))
        if last + 1 >= len(units):
            break
        following = last + 1  # back off whole sentences until the overlap is covered
        while following - 1 > first and end - units[following][0] < overlap:
            following -= 1
        first = following
    return chunks


def _units(text: str, size: int) -> list[tuple[int, int, bool]]:
    """Sentence spans (word runs where a sentence is longer than ``size``), each marked True when
    it ends its paragraph."""
    units: list[tuple[int, int, bool]] = []
    for start, end in _spans(text, _PARAGRAPH_BREAK, 0, len(text)):
        pieces: list[tuple[int, int]] = []
        for s_start, s_end in _spans(text, _SENTENCE_END, start, end):
            pieces += [(s_start, s_end)] if s_end - s_start <= size else _words(text, s_start, s_end, size)
        units += [(a, b, n == len(pieces) - 1) for n, (a, b) in enumerate(pieces)]
    return units


def _spans(text: str, separator: re.Pattern[str], start: int, end: int) -> list[tuple[int, int]]:
    """The stripped, non-empty pieces of ``text[start:end]`` between separators."""
    spans: list[tuple[int, int]] = []
    at = start
    for match in separator.finditer(text, start, end):
        spans.append((at, match.start()))
        at = match.end()
    spans.append((at, end))
    result = []
    for a, b in spans:
        piece = text[a:b]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            result.append((a + lead, a + lead + len(stripped)))
    return result


def _words(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """A run of text longer than ``size`` cut at the last space before each limit."""
    pieces: list[tuple[int, int]] = []
    while end - start > size:
        cut = text.rfind(" ", start + 1, start + size)
        cut = cut if cut > start else start + size
        pieces.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        pieces.append((start, end))
    return pieces


def _heading(headings: Sequence[tuple[int, str]], offset: int) -> str:
    at = bisect.bisect_right([h[0] for h in headings], offset) - 1
    return headings[at][1] if at >= 0 else ""
