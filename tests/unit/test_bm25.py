from __future__ import annotations

from pathlib import Path

import pytest

from fathom_ray.bm25 import Bm25Index, IndexedDocument, snippet, tokenize

DOCS = [
    IndexedDocument(
        "http://a.test/wal", "Write-Ahead Logging", "WAL mode lets readers and a writer work at once."
    ),
    IndexedDocument("http://a.test/vacuum", "VACUUM", "The VACUUM command rebuilds the database file."),
    IndexedDocument(
        "http://b.test/sqlite3", "sqlite3 module", "sqlite3.connect opens a connection; WAL is a mode."
    ),
]


def test_tokenize_keeps_dotted_names_and_drops_stopwords() -> None:
    assert tokenize("The sqlite3.connect() function of Python 3.11") == [
        "sqlite3.connect",
        "function",
        "python",
        "3.11",
    ]


def test_search_ranks_the_best_match_first() -> None:
    index = Bm25Index().extend(DOCS)
    hits = index.search("write-ahead logging WAL")
    assert [h.url for h in hits] == ["http://a.test/wal", "http://b.test/sqlite3"]
    assert hits[0].score > hits[1].score > 0
    assert index.search("nothing matches this") == []
    assert index.search("vacuum", limit=1)[0].title == "VACUUM"


def test_save_and_load_give_the_same_answers(tmp_path: Path) -> None:
    index = Bm25Index().extend(DOCS)
    index.save(tmp_path / "index.json")
    loaded = Bm25Index.load(tmp_path / "index.json")
    assert loaded.search("WAL mode") == index.search("WAL mode")


def test_load_refuses_other_files(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"version": 99}')
    with pytest.raises(ValueError, match="not a fathom-ray index"):
        Bm25Index.load(tmp_path / "x.json")


def test_snippet_centres_on_a_query_term() -> None:
    text = "filler " * 100 + "the needle is here " + "filler " * 100
    assert "needle" in snippet(text, {"needle"}, width=80)
    assert snippet("short text", {"absent"}) == "short text"
