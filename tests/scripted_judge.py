"""A scripted judge: the Judge port's methods, answered by rules instead of a model.

For tests that assert orchestration. It quotes its evidence from the page it
is given (so the ledger keeps it), adds one fact whose quote is not on the
page (so the ledger must reject it), follows the first link, and can be told
to declare the checklist settled.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from fathom_ray.judges.llm import answers
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact, Usage
from fathom_ray.ports import Judged, JudgeInfo

SENTENCE = re.compile(r"[A-Z][^.!?\n]{40,200}[.!?]")
A = TypeVar("A", bound=answers.Answer)
CALL = Usage(calls=1, prompt_tokens=200, completion_tokens=40)
ACTIVE = "<script>alert(1)</script> ![x](http://evil.test/leak.png) [more](javascript:alert(1))"


def _obey(page: ExtractedPage, honest: list[answers.FactClaim]) -> answers.PageAnalysis:
    """What a judge that follows the page's orders answers: every link, markup in its claims,
    evidence no page holds, and the one honest fact (so the session has something to keep)."""
    quote = honest[0].evidence if honest else "SQLite stores a whole database in a single ordinary disk file."
    lies = [
        answers.FactClaim(
            claim=f"![status](http://evil.test/collect) {quote}", evidence=quote, confidence=1.0
        ),
        answers.FactClaim(claim="Read [more](javascript:alert(1)).", evidence=quote, confidence=1.0),
        answers.FactClaim(
            claim="SQLite is closed source.", evidence="SQLite is closed source.", confidence=1.0
        ),
        answers.FactClaim(claim=quote, evidence=f"{quote} ![x](http://evil.test/x.png)", confidence=1.0),
    ]
    return answers.PageAnalysis(
        facts=[*honest[:1], *lies], follow_links=list(range(min(10, len(page.links)))), page_quality=1.0
    )


class ScriptedJudge:
    """Implements ``fathom_ray.ports.JudgePort`` (mypy checks it where test_session_loop builds Services)."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.calls: Counter[str] = Counter()
        self.satisfy = False
        self.questions = ["Which version introduced it?", "Who wrote the proposal?"]
        self.queries = ["assignment expressions walrus operator"]
        self.attack = False

    def configure(
        self,
        *,
        satisfy: bool = False,
        questions: Sequence[str] | None = None,
        queries: Sequence[str] | None = None,
        attack: bool = False,
    ) -> None:
        """``attack``: the judge obeys whoever wrote the page (every link, active markup, invented
        evidence, a report that cites nothing): the guards outside the model must hold alone."""
        self.satisfy = satisfy
        self.attack = attack
        if questions is not None:
            self.questions = list(questions)
        if queries is not None:
            self.queries = list(queries)

    async def start(self) -> JudgeInfo:
        return JudgeInfo("scripted", "scripted")

    async def close(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    def counts(self) -> dict[str, int]:
        return dict(self.calls)

    def _judged(self, name: str, answer: A) -> Judged[A]:
        self.calls[name] += 1
        self.usage += CALL
        return Judged(name, answer, None, CALL)

    async def decompose(self, goal: str, count: int) -> Judged[answers.Checklist]:
        return self._judged("decompose", answers.Checklist(questions=self.questions[:count]))

    async def analyse_page(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact], page: ExtractedPage
    ) -> Judged[answers.PageAnalysis]:
        found = SENTENCE.search(page.text)
        claims = []
        if found and checklist:
            quote = found.group(0)
            claims.append(
                answers.FactClaim(
                    claim=quote, evidence=quote, checklist_ids=[i.id for i in checklist], confidence=0.9
                )
            )
            claims.append(answers.FactClaim(claim="Invented", evidence="This sentence is on no page at all."))
        if self.attack:
            return self._judged("analyse_page", _obey(page, claims))
        analysis = answers.PageAnalysis(
            facts=claims, follow_links=[0] if page.links else [], page_quality=0.9 if found else 0.1
        )
        return self._judged("analyse_page", analysis)

    async def discover_queries(
        self,
        goal: str,
        open_items: Sequence[ChecklistItem],
        done: Sequence[str],
        count: int,
        facts: Sequence[Fact] = (),
    ) -> Judged[answers.Queries]:
        return self._judged("discover_queries", answers.Queries(queries=self.queries[:count]))

    async def judge_completeness(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Completeness]:
        ids = [i.id for i in checklist] if self.satisfy else []
        return self._judged("completeness", answers.Completeness(satisfied=ids))

    async def compose(
        self, goal: str, checklist: Sequence[ChecklistItem], facts: Sequence[Fact]
    ) -> Judged[answers.Report]:
        findings = [answers.Finding(sentence=f.claim[:500], fact_ids=[f.id]) for f in facts[:5]]
        if self.attack:
            findings = [
                answers.Finding(sentence=ACTIVE, fact_ids=[facts[0].id] if facts else ["F999"]),
                answers.Finding(sentence="SQLite was written by the Vikings in 1066.", fact_ids=["F999"]),
            ]
        return self._judged("compose", answers.Report(answers=_answers(checklist, facts), findings=findings))

    async def answer(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.SinglePassAnswer]:
        """The baseline's answer: a sentence quoted from each page, and one citation no page holds."""
        citations = [
            answers.Citation(claim=found.group(0), evidence=found.group(0), source=n)
            for n, page in enumerate(pages, start=1)
            if (found := SENTENCE.search(page.text))
        ]
        if pages:
            citations.append(
                answers.Citation(claim="Invented", evidence="Quoted from nowhere at all.", source=1)
            )
        text = " ".join(c.claim for c in citations[:-1]) or "The sources do not say."
        return self._judged("answer", answers.SinglePassAnswer(answer=text, citations=citations))

    async def rerank(self, question: str, pages: Sequence[ExtractedPage]) -> Judged[answers.Relevance]:
        """Scores by how many of the question's words a passage holds (capped at 9)."""
        words = {w for w in re.findall(r"[a-z0-9]+", question.lower()) if len(w) > 3}
        scores = [float(min(9, len(words & set(re.findall(r"[a-z0-9]+", p.text.lower()))))) for p in pages]
        return self._judged("rerank", answers.Relevance(scores=scores))

    async def grade(
        self, question: str, gold: str, aliases: Sequence[str], answer_text: str
    ) -> Judged[answers.Verdict]:
        said = any(a.casefold() in answer_text.casefold() for a in (gold, *aliases))
        return self._judged("grade", answers.Verdict(verdict="correct" if said else "wrong"))


def _answers(checklist: Sequence[ChecklistItem], facts: Sequence[Fact]) -> list[answers.ItemAnswer]:
    """The first part answered by the first words of the first fact's evidence (faithful), and the
    last part by a version no fact holds (to be dropped)."""
    parts = checklist[1:] if len(checklist) > 1 else checklist
    if not parts or not facts:
        return []
    span = " ".join(facts[0].evidence.split()[:3])
    claims = [answers.ItemAnswer(item=parts[0].id, answer=span, fact_ids=[facts[0].id])]
    return [*claims, answers.ItemAnswer(item=parts[-1].id, answer="3.99", fact_ids=[facts[0].id])]
