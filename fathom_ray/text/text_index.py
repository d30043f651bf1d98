"""A full-text index of web pages through tantivy: BM25 over title and body, on disk, memory-mapped.

Pages and queries are cut into words by ``term_match.tokenize`` (the words every BM25 here
shares: dotted names and versions such as ``3.11`` stay whole, stop words go) and tantivy indexes
those words as given; titles count twice.

Serves the ``local`` search backend (``fathom index``) and the offline test web's search engine.
An index is a folder, written whole into a temporary sibling and renamed into place, so a reader
never sees half an index and two processes building the same one at once both end with it.
Opening one maps its files; nothing is read into memory until a query needs it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tantivy

from fathom_ray.text.term_match import snippet, tokenize

FORMAT = "tantivy-2"  # bump when the schema changes: old folders are then rebuilt, never misread
MARKER = "fathom-index"
SNIPPET_SOURCE_CHARS = 20_000
TITLE_CHARS = 1_000
TITLE_BOOST = 2.0
WRITER_HEAP_BYTES = 64_000_000
WORDS = "fathom_words"
OPEN_TRIES = 20


@dataclass(frozen=True, slots=True)
class IndexedDocument:
    url: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    url: str
    title: str
    snippet: str
    score: float


def _with_words(index: tantivy.Index) -> tantivy.Index:
    """``index`` with the analyzer its fields name: our words, split on spaces, lower-cased."""
    words = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.lowercase())
    index.register_tokenizer(WORDS, words.build())
    return index


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("url", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("title_terms", stored=False, tokenizer_name=WORDS)
    builder.add_text_field("body", stored=False, tokenizer_name=WORDS)
    builder.add_text_field("title", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_bytes_field("head", stored=True, indexed=False)  # the start of the text, for snippets
    return builder.build()


class TextIndex:
    """A read-only index; make one with ``build``, open one with ``open``."""

    def __init__(self, folder: Path, index: tantivy.Index) -> None:
        self.folder = folder
        self._index = index
        self._searcher = index.searcher()

    @classmethod
    def build(cls, folder: Path, documents: Iterable[IndexedDocument], *, replace: bool = True) -> TextIndex:
        """Index ``documents`` into ``folder`` (an empty index is allowed). An index already there is
        replaced, or, with ``replace=False``, kept (another process built the same one meanwhile)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            index = _with_words(tantivy.Index(_schema(), path=str(work)))
            writer = index.writer(WRITER_HEAP_BYTES, 1)
            for document in documents:
                writer.add_document(_document(document))
            writer.commit()
            writer.wait_merging_threads()
            (work / MARKER).write_text(FORMAT, encoding="utf-8")
            if replace or not _whole(folder):
                _move_into_place(work, folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return cls._open_settled(folder)

    @classmethod
    def _open_settled(cls, folder: Path) -> TextIndex:
        """``open``, tried again while another build is swapping its own index into ``folder``."""
        for _ in range(OPEN_TRIES - 1):
            try:
                return cls.open(folder)
            except ValueError:
                time.sleep(0.05)
        return cls.open(folder)

    @classmethod
    def open(cls, folder: Path) -> TextIndex:
        """The index in ``folder``; ``ValueError`` when the folder holds none of ours."""
        if not _whole(folder):
            raise ValueError(f"{folder} is not a fathom-ray index ({FORMAT}); build it again")
        try:
            index = _with_words(tantivy.Index.open(str(folder)))
        except (OSError, ValueError) as e:
            raise ValueError(f"{folder} is not a readable index: {e}") from e
        return cls(folder, index)

    def __len__(self) -> int:
        return int(self._searcher.num_docs)

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """The best ``limit`` pages for ``query`` (free text, never query syntax), best first."""
        terms = tokenize(query)
        if not terms or limit < 1:
            return []
        parsed, _ = self._index.parse_query_lenient(
            " ".join(terms), ["title_terms", "body"], field_boosts={"title_terms": TITLE_BOOST}
        )
        found = self._searcher.search(parsed, limit, count=False).hits
        return [self._hit(float(score), address, set(terms)) for score, address in found]

    def _hit(self, score: float, address: tantivy.DocAddress, terms: set[str]) -> Hit:
        document = self._searcher.doc(address)
        head = bytes(document.get_first("head") or b"").decode("utf-8", "replace")
        url = str(document.get_first("url"))
        return Hit(url, str(document.get_first("title") or url), snippet(head, terms), round(score, 4))


def _document(document: IndexedDocument) -> tantivy.Document:
    return tantivy.Document(
        url=document.url,
        title=document.title[:TITLE_CHARS],
        title_terms=" ".join(tokenize(document.title)),
        body=" ".join(tokenize(document.text)),
        head=document.text[:SNIPPET_SOURCE_CHARS].encode("utf-8"),
    )


def _whole(folder: Path) -> bool:
    marker = folder / MARKER
    return marker.is_file() and marker.read_text(encoding="utf-8").strip() == FORMAT


def _move_into_place(work: Path, folder: Path) -> None:
    """Rename ``work`` to ``folder``, setting aside an index another process put there first."""
    for _ in range(3):
        if folder.exists():
            aside = folder.with_name(f".{folder.name}.old-{os.getpid()}-{time.monotonic_ns()}")
            with contextlib.suppress(FileNotFoundError):
                folder.replace(aside)
            shutil.rmtree(aside, ignore_errors=True)
        try:
            work.replace(folder)
        except OSError:
            continue  # another build landed between the two renames: set it aside too
        return
    raise OSError(f"could not move the index into {folder}")
