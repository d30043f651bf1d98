"""Page choice through the real embedder: a later round reads the waiting page whose title and
snippet mean what an open question asks before one that only shares its standing."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.models import ResearchRequest
from tests.scripted_judge import ScriptedJudge
from tests.unit.test_session_loop import FakeWeb, make_loop, page_url

pytestmark = pytest.mark.integration


def test_a_later_round_reads_the_snippet_that_answers_in_other_words_first() -> None:
    embedder = SentenceEmbedder()
    goal = "What fallback size does the standard library assume when it cannot ask the terminal?"
    answer, aside = "http://docs.answer.test/shutil.html", "http://docs.aside.test/news.html"
    web = FakeWeb(
        # each discovery query finds one page first, on a site not read; the aside's query runs first
        by_query={goal: [page_url(f"g{n}") for n in range(1, 10)], "q aside": [aside], "q answer": [answer]},
        snippets={
            # in other words than the question's
            answer: "When the width and height of the console cannot be queried, a default of 80 columns "
            "by 24 lines is used.",
            aside: "The library was moved to a new building in the city centre.",  # one word of it
        },
    )

    async def embed(texts: Sequence[str]) -> list[list[float]]:
        return embedder.embed(texts)

    web.embed = embed  # type: ignore[method-assign]
    loop, _ = make_loop(web, ResearchRequest(goal, depth="focused", max_pages=4))
    assert isinstance(loop._services.judge, ScriptedJudge)
    loop._services.judge.questions = [goal]
    loop._services.judge.queries = ["q aside", "q answer"]
    asyncio.run(loop.run())
    assert web.fetched[:3] == [page_url(f"g{n}") for n in range(1, 4)]  # what one pass reads first
    assert web.fetched[3:] == [answer]  # the one page left: the snippet that answers, not the aside
