"""A full-text index of web pages through tantivy: BM25 over passages and titles, on disk, memory-mapped.

Pages and queries are cut into words by ``term_match.tokenize`` (the words every BM25 here
shares: dotted names and versions such as ``3.11`` stay whole, stop words go) and tantivy indexes
those words as given; titles count twice. A page is indexed as passages of about
``PASSAGE_WORDS`` words (each with the page's title), and a page ranks by its best passage, as web
search engines rank long pages: a long page that answers in one section is not buried under short
pages that mention the words once. Its snippet comes from that passage.

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
from urllib.parse import urlsplit

import tantivy

from fathom_ray.text.term_match import snippet, tokenize

FORMAT = "tantivy-3"  # bump when the schema changes: old folders are then rebuilt, never misread
MARKER = "fathom-index"
PAGES = "fathom-pages"  # how many pages the index holds (tantivy counts passages)
PASSAGE_WORDS = 150
PASSAGE_OVERLAP = 30  # words of the passage before, so a sentence cut at a border is whole in one
PASSAGES_PER_PAGE_ASKED = 8  # passages fetched per page wanted, before pages are told apart
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
    builder.add_text_field("site_terms", stored=False, tokenizer_name=WORDS)
    builder.add_text_field("title", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_bytes_field("head", stored=True, indexed=False)  # the start of the text, for snippets
    return builder.build()


class TextIndex:
    """A read-only index; make one with ``build``, open one with ``open``."""

    def __init__(self, folder: Path, index: tantivy.Index, pages: int) -> None:
        self.folder = folder
        self._index = index
        self._searcher = index.searcher()
        self._pages = pages

    @classmethod
    def build(cls, folder: Path, documents: Iterable[IndexedDocument], *, replace: bool = True) -> TextIndex:
        """Index ``documents`` into ``folder`` (an empty index is allowed). An index already there is
        replaced, or, with ``replace=False``, kept (another process built the same one meanwhile)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            index = _with_words(tantivy.Index(_schema(), path=str(work)))
            writer = index.writer(WRITER_HEAP_BYTES, 1)
            pages = 0
            for document in documents:
                pages += 1
                page = _page_fields(document)  # the same in each of its passages
                for passage in passages(document.text):
                    writer.add_document(_document(page, passage))
            writer.commit()
            writer.wait_merging_threads()
            (work / PAGES).write_text(str(pages), encoding="utf-8")
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
            pages = int((folder / PAGES).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:  # a file gone: another build swapped its index in meanwhile
            raise ValueError(f"{folder} is not a readable index: {e}") from e
        return cls(folder, index, pages)

    def __len__(self) -> int:
        return self._pages

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """The best ``limit`` pages for ``query`` (free text, never query syntax), best first: each
        page once, scored by its best passage."""
        terms = tokenize(query)
        if not terms or limit < 1:
            return []
        parsed, _ = self._index.parse_query_lenient(
            " ".join(terms), ["title_terms", "body", "site_terms"], field_boosts={"title_terms": TITLE_BOOST}
        )
        wanted = set(terms)
        best: dict[str, Hit] = {}
        offset, asked = 0, limit * PASSAGES_PER_PAGE_ASKED
        while True:  # the next passages, until ``limit`` pages or every matching passage is seen
            found = self._searcher.search(parsed, asked, count=False, offset=offset).hits
            for score, address in found:
                document = self._searcher.doc(address)
                url = str(document.get_first("url"))
                if url not in best:
                    best[url] = _hit(url, float(score), document, wanted)
                    if len(best) == limit:
                        return list(best.values())
            if len(found) < asked:
                return list(best.values())
            offset += asked
            asked *= 4


def _hit(url: str, score: float, document: tantivy.Document, terms: set[str]) -> Hit:
    head = bytes(document.get_first("head") or b"").decode("utf-8", "replace")
    return Hit(url, str(document.get_first("title") or url), snippet(head, terms), round(score, 4))


def site_words(url: str) -> list[str]:
    """The words of ``url``'s host name, as a search engine matches a site's name ("Debian
    Reference" finds reference.debian.org's pages): its labels but the last and "www"."""
    host = urlsplit(url).hostname or ""
    if host.replace(".", "").isdigit() or ":" in host:  # an address, not a name
        return []
    labels = [label for label in host.split(".")[:-1] if label != "www"]
    return tokenize(" ".join(labels).replace("-", " "))


def passages(text: str) -> list[str]:
    """``text`` in passages of ``PASSAGE_WORDS`` words, each opening with the ``PASSAGE_OVERLAP``
    words before it; one (perhaps empty) passage for a short page."""
    words = text.split()
    starts = range(0, max(len(words), 1), PASSAGE_WORDS)
    return [" ".join(words[max(0, start - PASSAGE_OVERLAP) : start + PASSAGE_WORDS]) for start in starts]


def _page_fields(document: IndexedDocument) -> dict[str, str]:
    """The fields every passage of ``document`` shares: its address, title and site's words."""
    return {
        "url": document.url,
        "title": document.title[:TITLE_CHARS],
        "title_terms": " ".join(tokenize(document.title)),
        "site_terms": " ".join(site_words(document.url)),
    }


def _document(page: dict[str, str], passage: str) -> tantivy.Document:
    return tantivy.Document(
        **page, body=" ".join(tokenize(passage)), head=passage[:SNIPPET_SOURCE_CHARS].encode("utf-8")
    )


def _whole(folder: Path) -> bool:
    try:  # the marker may vanish between two calls while another build swaps its index in
        return (folder / MARKER).read_text(encoding="utf-8").strip() == FORMAT
    except OSError:
        return False


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
