"""A goal that states, then asks, through the evidence judge and the real embedder: its statement is an
item of its own, so the page's line that says the statement is kept, though the embedder finds lines
that share the whole goal's standing words ("support for Node.js 18") nearer the goal."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.judges.evidence import judge as judging
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.evidence.queries import discover
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact

pytestmark = pytest.mark.integration

GOAL = (
    "Version 5.1 of the HTTP client added tentative support for a Node.js release that was still a release "
    "candidate then. Which flag, listed among that Node.js release's new permission features, restricts "
    "file system access?"
)
CHANGES = "\n".join(
    [
        "Version 5.1",
        "- Node.js 14 is no longer supported.",
        "- Officially added support for Node.js 18.",
        "- The client has officially stopped support for Node.js 12.",
        "- Added tentative 20.0 support with the current release candidate.",
        "- Requests now retry on connection resets.",
        "- Officially added support for Node.js 16 and its new fetch features.",
        "- The permission of the cache folder is now checked on start.",
        "- Listed flags are validated before a request is sent.",
    ]
)


class Embedder:
    def __init__(self) -> None:
        self._model = SentenceEmbedder()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._model.embed(texts)


def test_the_line_that_says_the_statement_is_kept_and_leads_the_next_search() -> None:
    judge = EvidenceJudge(Embedder())
    page = ExtractedPage("http://client.test/changes.html", "Changes", CHANGES, ())
    decomposed = asyncio.run(judge.decompose(GOAL, 10)).answer
    assert decomposed is not None
    asked = decomposed.questions
    checklist = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(asked, start=1)]
    assert len(checklist) == 3  # the goal, its statement, what it asks
    facts = asyncio.run(judge.analyse(GOAL, checklist, page)).facts
    said = [f for f in facts if "tentative 20.0" in f.evidence]
    assert said
    assert "Q2" in said[0].checklist_ids
    # the goal alone, as one item: the generic lines take its places
    alone = asyncio.run(judge.analyse(GOAL, checklist[:1], page)).facts
    assert not any("tentative 20.0" in f.evidence for f in alone)
    # the statement's line gives the next search its release
    kept = [
        Fact(f"F{n}", f.claim, f.evidence, page.url, tuple(f.checklist_ids), f.confidence)
        for n, f in enumerate(facts, start=1)
    ]
    assert discover(GOAL, checklist[1:], kept, done=[GOAL], count=3)[0].startswith("20.0")


def test_a_statement_keeps_the_line_holding_most_of_its_words_however_the_embedder_ranks_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one fact a question: the embedder's nearest lines take every item's place, and the line that
    # says most of the statement's words ("added", "tentative", "support", "release candidate") is
    # kept for the statement's item alone
    monkeypatch.setattr(judging, "FACTS_PER_QUESTION", 1)
    judge = EvidenceJudge(Embedder())
    page = ExtractedPage("http://client.test/changes.html", "Changes", CHANGES, ())
    decomposed = asyncio.run(judge.decompose(GOAL, 10)).answer
    assert decomposed is not None
    checklist = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(decomposed.questions, start=1)]
    facts = asyncio.run(judge.analyse(GOAL, checklist, page)).facts
    said = [f for f in facts if "tentative 20.0" in f.evidence]
    assert [f.checklist_ids for f in said] == [["Q2"]]
    # a goal of one sentence has no statement to keep a line for
    single = "Which flag of the Node.js 20 release restricts file system access?"
    alone = asyncio.run(judge.analyse(single, [ChecklistItem("Q1", single)], page)).facts
    assert not any("tentative 20.0" in f.evidence for f in alone)


SPLIT_GOAL = (
    "The build tool's finder computes the plugin suffix through one helper package, falling back to "
    "another when that package is not available. In which release is that preferred package scheduled "
    "to be removed?"
)
FINDER = "\n".join(
    [
        "Result variables",
        "- Plugin_PATH: the folder plugins are installed to, read from the environment.",
        "- Plugin_SUFFIX: the file name suffix of plugins.",
        "Information computed by the tool from oldhelp.config.get_var('SUFFIX').",
        "If package oldhelp.config is not available, newhelp.get_var('SUFFIX') is used instead.",
        "- Plugin_FOUND: whether a plugin was found at all.",
    ]
)


def test_a_statement_said_over_two_sentences_keeps_both() -> None:
    # neither sentence alone holds a STATEMENT_MATCH share of the statement's words, the two together
    # do: the fact is the pair, and its package leads the next search
    judge = EvidenceJudge(Embedder())
    page = ExtractedPage("http://build.test/finder.html", "Finder", FINDER, ())
    decomposed = asyncio.run(judge.decompose(SPLIT_GOAL, 10)).answer
    assert decomposed is not None
    checklist = [ChecklistItem(f"Q{n}", q) for n, q in enumerate(decomposed.questions, start=1)]
    assert len(checklist) == 3
    facts = asyncio.run(judge.analyse(SPLIT_GOAL, checklist, page)).facts
    pair = [f for f in facts if "Q2" in f.checklist_ids and "computed by" in f.evidence]
    assert pair
    assert "is not available" in pair[0].evidence
    assert pair[0].evidence in FINDER
    kept = [
        Fact(f"F{n}", f.claim, f.evidence, page.url, tuple(f.checklist_ids), f.confidence)
        for n, f in enumerate(facts, start=1)
    ]
    queries = discover(SPLIT_GOAL, checklist[1:], kept, done=[SPLIT_GOAL], count=3)
    assert any(q.split()[0] == "oldhelp" for q in queries)  # the package, a word of its own
