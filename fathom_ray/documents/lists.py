"""Enumerated lists in the documents: a question that asks for several things is answered by one.

"What must a redistributor do?" or "Which steps ...?" asks for every obligation or step, and a
document states them as an enumerated list ("(a) ...; and (b) ..."; "1. ..."; "- ..."). The list is
the one holding the passage sentence the judge cited first; a list that runs on past its chunk (its
last item ends the chunk, or ends "; and") is read on in the next chunks of the same document, and
one that starts past its first item in the chunks before, so no item is lost at a chunk boundary.
Each item is a verbatim span of its chunk: its first clause, the item's marker left off.

A list is a run of items of one marker style ("(a)", "1.", "-") with only white space between one
item's body and the next marker; an item's body ends at the next marker or the paragraph's end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from fathom_ray.documents.models import DocumentHit
from fathom_ray.ports import DocumentSearch

MAX_ITEMS = 12
MAX_READ_ON = 3  # chunks read on each way
MAX_ITEM_CHARS = 300
_LIST_QUESTION = re.compile(
    r"\b(?:what|which)\b(?:\s+[\w'-]+){0,3}?\s+(?:must|should|shall|needs? to|has to|have to)\b"
    r"|\b(?:what|which)\s+(?:[\w'-]+\s+){0,2}(?:steps|obligations|requirements|conditions|duties|stages)\b"
    r"|^\s*(?:list|enumerate)\b",
    re.I,
)
_MARKER = re.compile(
    r"^[ \t]*(\((?:[a-z]|[ivx]{2,4}|\d{1,2})\)|(?:[a-z]|\d{1,2})[.)]|[-*\u2022])[ \t]+(?=\S)", re.M
)
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")
_OPEN_END = re.compile(r"(?:[;,:]|\band|\bor)\s*$", re.I)
_CLAUSE_END = re.compile(r"[;:](?=\s|$)|\.(?=\s|$)")


def asks_for_list(question: str) -> bool:
    """Whether ``question`` asks for several obligations or steps ("what must ...", "which steps ...")."""
    return _LIST_QUESTION.search(question) is not None


@dataclass(frozen=True, slots=True)
class Item:
    """One list item of a chunk: its marker's style and place, its body (``start``: after the
    marker) and the verbatim span that answers (``span_start``..``span_end``)."""

    style: str
    ordinal: int  # 1 for "(a)" or "1.", 0 for a bullet
    marker_at: int
    start: int
    end: int
    span_end: int


@dataclass(frozen=True, slots=True)
class Listed:
    """A list item where it was read: the chunk and the item's span in the document's offsets."""

    hit: DocumentHit
    item: Item

    @property
    def document_start(self) -> int:
        return self.hit.chunk.start + self.item.start

    @property
    def document_end(self) -> int:
        return self.hit.chunk.start + self.item.span_end

    @property
    def text(self) -> str:
        return self.hit.chunk.text[self.item.start : self.item.span_end]


def lists_in(text: str) -> list[list[Item]]:
    """The enumerated lists of ``text``, each a run of at least one item of one style."""
    markers = list(_MARKER.finditer(text))
    items = [
        _item(text, m, markers[n + 1].start() if n + 1 < len(markers) else len(text))
        for n, m in enumerate(markers)
    ]
    runs: list[list[Item]] = []
    for item in items:
        last = runs[-1][-1] if runs else None
        joined = last is not None and last.style == item.style and not text[last.end : item.marker_at].strip()
        if joined:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def _item(text: str, marker: re.Match[str], next_marker: int) -> Item:
    body_start = marker.end()
    paragraph = _PARAGRAPH_END.search(text, body_start, next_marker)
    end = paragraph.start() if paragraph else next_marker
    end = body_start + len(text[body_start:end].rstrip())
    return Item(
        _style(marker.group(1)),
        _ordinal(marker.group(1)),
        marker.start(1),
        body_start,
        end,
        _span_end(text, body_start, end),
    )


def _style(marker: str) -> str:
    core = marker.strip("().")
    kind = "1" if core.isdigit() else "i" if len(core) > 1 else "a" if core.isalpha() else core
    return marker.replace(core, kind) if core else marker


def _ordinal(marker: str) -> int:
    core = marker.strip("().").lower()
    if core.isdigit():
        return int(core)
    if len(core) == 1 and core.isalpha():
        return ord(core) - ord("a") + 1
    romans = {"ii": 2, "iii": 3, "iv": 4, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "xi": 11, "xii": 12}
    return romans.get(core, 0)


def _span_end(text: str, start: int, end: int) -> int:
    """Where the item's first clause ends: a semicolon, colon or sentence end, or a comma (or
    space) before ``MAX_ITEM_CHARS``."""
    clause = _CLAUSE_END.search(text, start, end)
    stop = clause.start() if clause else end
    if stop - start <= MAX_ITEM_CHARS:
        return stop
    cut = text.rfind(",", start, start + MAX_ITEM_CHARS)
    cut = cut if cut > start else text.rfind(" ", start, start + MAX_ITEM_CHARS)
    return cut if cut > start else start + MAX_ITEM_CHARS


def list_at(hit: DocumentHit, offset: int) -> list[Item] | None:
    """The list of ``hit``'s chunk whose item holds ``offset``; None when no list item does."""
    for run in lists_in(hit.chunk.text):
        if any(i.marker_at <= offset < max(i.end, i.start + 1) for i in run):
            return run
    return None


async def whole_list(store: DocumentSearch, hit: DocumentHit, run: Sequence[Item]) -> list[Listed]:
    """``run`` with the items before and after it that neighbouring chunks hold, in document order."""
    listed = [Listed(hit, i) for i in run]
    chunk = hit.chunk
    for step in (1, -1):
        at, current = chunk.index, hit
        for _ in range(MAX_READ_ON):
            edge = listed[-1] if step == 1 else listed[0]
            if not _runs_on(edge, current, step):
                break
            at += step
            neighbour = await store.chunk(chunk.document_id, at) if at >= 0 else None
            if neighbour is None:
                break
            more = _continuation(neighbour, edge, step)
            if not more:
                break
            listed = [*listed, *more] if step == 1 else [*more, *listed]
            current = neighbour
    return listed[:MAX_ITEMS]


def _runs_on(edge: Listed, current: DocumentHit, step: int) -> bool:
    """Whether the list may go on past ``current``'s chunk: its last item ends the chunk or ends
    with "; and" (reading on), or its first item is not the first (reading back)."""
    if step == -1:
        return edge.item.ordinal > 1
    if edge.hit.chunk.source != current.chunk.source:
        return False
    text = current.chunk.text
    body = text[edge.item.start : edge.item.end]
    return edge.item.end >= len(text.rstrip()) or _OPEN_END.search(body) is not None


def _continuation(neighbour: DocumentHit, edge: Listed, step: int) -> list[Listed]:
    """The items of ``neighbour``'s chunk that carry ``edge``'s list on (``step`` 1) or lead to it (-1)."""
    for run in lists_in(neighbour.chunk.text):
        found = [Listed(neighbour, i) for i in run if i.style == edge.item.style]
        beyond = [x for x in found if (x.document_start - edge.document_start) * step > 0]
        if not beyond:
            continue
        nearest = beyond[0] if step == 1 else beyond[-1]
        if _follows(edge, nearest, step):
            return beyond
    return []


def _follows(edge: Listed, other: Listed, step: int) -> bool:
    if edge.item.ordinal and other.item.ordinal:
        return other.item.ordinal == edge.item.ordinal + step
    gap = (other.document_start - edge.document_end) * step
    return gap <= 2 * len(edge.text) + 200  # bullets: no numbers to go by, only closeness
