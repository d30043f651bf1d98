"""A page's text as sentences that are exact slices of it, each with the heading it sits under.

Extracted text keeps each block (paragraph, list item, table row, heading) on
lines of its own, though a paragraph may be wrapped over several: a line that
starts in lower case after a line that does not end a sentence continues it, as
does one after a line that ends on a word no sentence ends on ("load templates
with" / "PackageLoader."), unless it is a list item of its own.
A block is a unit and a sentence never crosses one. Inside a block a
sentence ends at ``.``, ``!`` or ``?`` followed by space and a capital, digit or
quote, unless the word before the stop is a known abbreviation. A sentence
longer than ``MAX_SENTENCE_CHARS`` is cut at the last ``;`` or ``,`` before the
limit (or a space), so every piece can be quoted whole as evidence. A short line
without a final stop is taken as a heading for the lines that follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from fathom_ray.text.term_match import STOPWORDS

MAX_SENTENCE_CHARS = 380
MIN_SENTENCE_CHARS = 12
MAX_HEADING_CHARS = 90
MAX_PAGE_CHARS = 2_000_000  # beyond this the page's tail is not read (the Python changelog is 3.9 MB)

_BOUNDARY = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])")
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "cf",
        "al",
        "fig",
        "no",
        "nos",
        "approx",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
        "ed",
        "eds",
        "vol",
        "pp",
        "resp",
    ]
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_CUT = re.compile(r"[;,]\s")
# Words a sentence never ends on: a line ending in one is wrapped before the words they lead to
_LEADING_ON = (
    "a an the and or nor but of to for with from by in on at as into onto than that which whose via "
    "like about over under between through"
)
_UNFINISHED = frozenset(_LEADING_ON.split())
_LIST_ITEM = re.compile(r"[-*\u2022]\s|\d+[.)]\s")
_NOT_HEADING = re.compile(r"[|=<>{}\[\];@$\\]")


@dataclass(frozen=True, slots=True)
class Sentence:
    """``text`` is ``page_text[start:end]``; ``heading`` the nearest heading line above it, if any."""

    text: str
    start: int
    end: int
    heading: str = ""
    index: int = 0
    is_heading: bool = False

    @property
    def plain(self) -> str:
        """The text on one line, whitespace collapsed."""
        return " ".join(self.text.split())


def split_sentences(text: str) -> list[Sentence]:
    """Every sentence of ``text`` in order, numbered from 0; headings are sentences too."""
    sentences: list[Sentence] = []
    heading = ""
    for block_start, block in _blocks(text[:MAX_PAGE_CHARS]):
        if is_heading := _is_heading(block):
            heading = block.rstrip("¶# ").strip()
        for start, end in _pieces(block):
            piece = block[start:end]
            if len(piece) >= MIN_SENTENCE_CHARS or is_heading:
                sentences.append(
                    Sentence(
                        piece, block_start + start, block_start + end, heading, len(sentences), is_heading
                    )
                )
    return sentences


def _blocks(text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each block: its lines, the wrapped ones joined, exactly as in ``text``."""
    start = end = -1
    offset = 0
    for raw in text.split("\n"):
        stripped = raw.strip()
        if stripped:
            first = offset + raw.index(stripped[0])
            if start >= 0 and not _continues(text[start:end], stripped):
                yield start, text[start:end]
                start = -1
            if start < 0:
                start = first
            end = first + len(stripped)
        offset += len(raw) + 1
    if start >= 0:
        yield start, text[start:end]


def _continues(block: str, line: str) -> bool:
    """Whether ``line`` is the wrapped rest of ``block``'s last sentence: the block does not end one,
    and the line starts in lower case, or the block ends in a comma or a word that never ends a
    sentence ("load templates with / PackageLoader."), unless the line is a list item of its own."""
    if block[-1] in ".!?:;)¶":
        return False
    if line[0].islower() or block[-1] == ",":
        return True
    last = block.rsplit(None, 1)[-1].lower()
    return last in _UNFINISHED and not _LIST_ITEM.match(line)


def _is_heading(line: str) -> bool:
    return (
        len(line) <= MAX_HEADING_CHARS
        and "\n" not in line
        and line[-1] not in ".!?:;,)"
        and not line[0].islower()
        and line[0] != "("
        and ". " not in line
        and any(c.isalpha() for c in line)
        and not _NOT_HEADING.search(line)
        and line.rsplit(None, 1)[-1].lower() not in STOPWORDS
    )


def _pieces(line: str) -> Iterator[tuple[int, int]]:
    start = 0
    for match in _BOUNDARY.finditer(line):
        before = _WORD_BEFORE.search(line[start : match.start()])
        word = before.group(1).lower().rstrip(".") if before else ""
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        yield from _bounded(line, start, match.start() + len(match.group(0).rstrip()))
        start = match.end()
    if start < len(line):
        yield from _bounded(line, start, len(line))


def _bounded(line: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Cut [start, end) into pieces of at most MAX_SENTENCE_CHARS at a ';' or ',' (else a space)."""
    while end - start > MAX_SENTENCE_CHARS:
        window = line[start : start + MAX_SENTENCE_CHARS]
        cuts = [m.end() for m in _CUT.finditer(window) if m.end() > MAX_SENTENCE_CHARS // 3]
        cut = cuts[-1] if cuts else (window.rfind(" ") + 1 or MAX_SENTENCE_CHARS)
        piece_end = start + len(line[start : start + cut].rstrip())
        yield start, piece_end
        start += cut
        while start < end and line[start] == " ":
            start += 1
    if end > start:
        yield start, end
