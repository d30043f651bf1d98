from __future__ import annotations

import threading
from pathlib import Path

import pytest

from fathom_ray.text.term_match import match_scores, snippet, tokenize
from fathom_ray.text.text_index import (
    PASSAGE_OVERLAP,
    PASSAGE_WORDS,
    IndexedDocument,
    TextIndex,
    passages,
    site_words,
)

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


def test_search_ranks_the_best_match_first(tmp_path: Path) -> None:
    index = TextIndex.build(tmp_path / "index", DOCS)
    assert len(index) == 3
    hits = index.search("write-ahead logging WAL")
    assert [h.url for h in hits] == ["http://a.test/wal", "http://b.test/sqlite3"]
    assert hits[0].score > hits[1].score > 0
    assert index.search("nothing matches this") == []
    assert index.search("vacuum", limit=1)[0].title == "VACUUM"
    assert "VACUUM command" in index.search("rebuilds")[0].snippet


def test_query_syntax_is_read_as_plain_words(tmp_path: Path) -> None:
    index = TextIndex.build(tmp_path / "index", DOCS)
    assert index.search('title:(VACUUM AND "x')[0].url == "http://a.test/vacuum"
    assert index.search("  ") == []
    assert index.search("the of and") == []


def test_an_opened_index_gives_the_same_answers(tmp_path: Path) -> None:
    built = TextIndex.build(tmp_path / "index", DOCS)
    opened = TextIndex.open(tmp_path / "index")
    assert opened.search("WAL mode") == built.search("WAL mode")


def test_building_again_replaces_the_index(tmp_path: Path) -> None:
    TextIndex.build(tmp_path / "index", DOCS)
    again = TextIndex.build(tmp_path / "index", DOCS[:1])
    assert len(again) == 1
    assert len(TextIndex.open(tmp_path / "index")) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["index"]  # no work folder left behind


def test_two_builds_at_once_both_end_with_a_whole_index(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def build() -> None:
        try:
            TextIndex.build(tmp_path / "index", DOCS)
        except BaseException as e:  # noqa: BLE001 (collected for the assertion below)
            errors.append(e)

    threads = [threading.Thread(target=build) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(TextIndex.open(tmp_path / "index")) == 3


def test_a_build_that_may_not_replace_keeps_the_index_already_there(tmp_path: Path) -> None:
    TextIndex.build(tmp_path / "index", DOCS)
    kept = TextIndex.build(tmp_path / "index", DOCS[:1], replace=False)
    assert len(kept) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["index"]


def test_open_refuses_other_folders(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a fathom-ray index"):
        TextIndex.open(tmp_path)
    (tmp_path / "index.json").write_text('{"version": 1}')
    with pytest.raises(ValueError, match="not a fathom-ray index"):
        TextIndex.open(tmp_path / "index.json")


def test_snippet_centres_on_a_query_term() -> None:
    text = "filler " * 100 + "the needle is here " + "filler " * 100
    assert "needle" in snippet(text, {"needle"}, width=80)
    assert snippet("short text", {"absent"}) == "short text"


def test_snippet_shows_the_passage_that_holds_the_most_query_terms() -> None:
    # as a web search engine's does: not the first mention of one term, but where the terms meet
    text = (
        "DROP COLUMN is mentioned first here. "
        + "filler " * 100
        + "The DROP COLUMN syntax is used to remove an existing column from a table. "
        + "filler " * 100
    )
    shown = snippet(text, set(tokenize("SQLite DROP COLUMN syntax remove")), width=120)
    assert "syntax is used to remove" in shown
    assert "mentioned first" not in shown
    assert shown.startswith("… ")
    assert shown.endswith(" …")


def test_match_scores_rank_texts_per_query_in_zero_to_one() -> None:
    texts = ["WAL mode lets readers work", "VACUUM rebuilds the file", "a WAL and a WAL again"]
    wal, absent = match_scores(texts, ["WAL", "nothing here"])
    assert wal[1] == 0.0
    assert max(wal) == 1.0
    assert wal[2] == 1.0 > wal[0] > 0
    assert absent == [0.0, 0.0, 0.0]
    assert match_scores([], ["WAL"]) == [[]]


def test_a_long_page_ranks_by_its_best_passage_and_appears_once(tmp_path: Path) -> None:
    # a long reference page answers in one section; short pages mention a word or two in passing
    sections = [f"Section {n} is about unrelated matters of storage and layout. " * 12 for n in range(40)]
    sections[25] = "The generate_series function returns rows from start to stop; generate_series counts."
    long_page = IndexedDocument("http://a.test/functions", "Functions", " ".join(sections))
    filler = "Notes cover several unrelated topics in passing. " * 12
    short = [
        IndexedDocument(f"http://b.test/{n}", f"Note {n}", f"{filler} See generate_series for rows {n}.")
        for n in range(5)
    ]
    index = TextIndex.build(tmp_path / "index", [*short, long_page])
    assert len(index) == 6  # pages, not passages
    hits = index.search("generate_series rows", limit=3)
    assert hits[0].url == "http://a.test/functions"
    assert "generate_series function returns" in hits[0].snippet
    assert len({h.url for h in hits}) == len(hits) == 3
    everything = index.search("rows storage", limit=50)
    assert sorted(h.url for h in everything) == sorted(d.url for d in [*short, long_page])


def test_passages_cover_every_word_and_overlap() -> None:
    words = [f"w{n}" for n in range(PASSAGE_WORDS * 2 + 7)]
    cut = passages(" ".join(words))
    assert len(cut) == 3
    assert cut[0].split() == words[:PASSAGE_WORDS]
    assert cut[1].split()[0] == words[PASSAGE_WORDS - PASSAGE_OVERLAP]
    assert cut[2].split()[-1] == words[-1]
    assert passages("") == [""]


def test_a_site_is_found_by_the_words_of_its_host_name(tmp_path: Path) -> None:
    # the chapter's title does not name its site; a search engine still matches "Debian Reference"
    chapter = IndexedDocument(
        "http://reference.debian.test/ch10.html", "Chapter 10. Data management", "Set push.default in git."
    )
    other = IndexedDocument("http://elsewhere.test/git", "Git notes", "push.default: the push.default.")
    index = TextIndex.build(tmp_path / "index", [other, chapter])
    assert index.search("Debian Reference push.default")[0].url == chapter.url
    assert index.search("push.default")[0].url == other.url


def test_site_words_are_the_host_labels_but_the_last() -> None:
    assert site_words("http://reference.debian.test/ch10.html") == ["reference", "debian"]
    assert site_words("https://www.git-scm.com:8443/docs") == ["git", "scm"]
    assert site_words("http://127.0.0.1:8180/a") == []
    assert site_words("file:///tmp/a.html") == []
