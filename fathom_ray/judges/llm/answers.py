"""The judge's answers: one pydantic model per judgement, whose JSON schema constrains decoding.

Every list and string is bounded so an answer cannot run away; anything the
model sends that breaks the schema is an invalid answer, retried and then
recorded as a failure.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

Short = Annotated[str, Field(min_length=1, max_length=300)]
Id = Annotated[str, Field(min_length=1, max_length=16)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
MAX_RERANKED = 40  # sources one rerank call scores


class Answer(BaseModel):
    """An LLM answer: frozen, no keys beyond the schema."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def schema_for_decoding(cls) -> dict[str, Any]:
        return cls.model_json_schema()


class Checklist(Answer):
    """decompose: the questions a complete answer to the goal must settle."""

    questions: list[Short] = Field(min_length=1, max_length=80)


class FactClaim(Answer):
    claim: Annotated[str, Field(min_length=1, max_length=400)]
    evidence: Annotated[
        str, Field(min_length=1, max_length=600, description="a verbatim quote from the source")
    ]
    checklist_ids: list[Id] = Field(default_factory=list, max_length=10)
    confidence: Unit = 0.5
    topic: Annotated[str, Field(max_length=80)] = ""


class PageAnalysis(Answer):
    """analyse page: facts with verbatim evidence, links worth following, new questions, quality."""

    facts: list[FactClaim] = Field(default_factory=list, max_length=12)
    follow_links: list[Annotated[int, Field(ge=0, le=999)]] = Field(default_factory=list, max_length=10)
    new_questions: list[Short] = Field(default_factory=list, max_length=5)
    page_quality: Unit = 0.5
    confirms: list[Id] = Field(default_factory=list, max_length=10)
    contradicts: list[Id] = Field(default_factory=list, max_length=10)
    summary: Annotated[str, Field(max_length=500)] = ""


class Queries(Answer):
    """discover queries: new search queries when the frontier is thin."""

    queries: list[Short] = Field(min_length=1, max_length=10)


class Completeness(Answer):
    """judge completeness: which checklist items the facts settle."""

    satisfied: list[Id] = Field(default_factory=list, max_length=80)


class Finding(Answer):
    sentence: Annotated[str, Field(min_length=1, max_length=600)]
    fact_ids: list[Id] = Field(min_length=1, max_length=8)


class ItemAnswer(Answer):
    """One checklist item's answer: a short span copied verbatim from the evidence of the facts it
    cites (a version, date, person, number, name, yes/no or a short definition clause); where sources
    disagree, the other value with its facts."""

    item: Id
    answer: Annotated[str, Field(min_length=1, max_length=200, description="verbatim from the evidence")]
    fact_ids: list[Id] = Field(min_length=1, max_length=4)
    other_answer: Annotated[str, Field(max_length=200)] = ""
    other_fact_ids: list[Id] = Field(default_factory=list, max_length=4)


class Report(Answer):
    """compose: each item's answer, and findings whose every sentence cites fact ids."""

    answers: list[ItemAnswer] = Field(default_factory=list, max_length=80)
    findings: list[Finding] = Field(default_factory=list, max_length=40)


class Citation(Answer):
    claim: Annotated[str, Field(min_length=1, max_length=400)]
    evidence: Annotated[
        str, Field(min_length=1, max_length=600, description="a verbatim quote from the source")
    ]
    source: Annotated[int, Field(ge=1, le=99, description="the number N of the source frame S<N>")]


class SinglePassAnswer(Answer):
    """answer (the single-pass baseline): one answer to the question from the sources, with citations;
    ``parts`` the question's parts (items Q1, Q2, ...) and ``answers`` theirs, whose fact ids F<k>
    name the k-th citation."""

    answer: Annotated[str, Field(max_length=1500)]
    citations: list[Citation] = Field(default_factory=list, max_length=12)
    parts: list[Short] = Field(default_factory=list, max_length=10)
    answers: list[ItemAnswer] = Field(default_factory=list, max_length=10)


class Relevance(Answer):
    """rerank: how well each numbered source answers the question, 0 (not at all) to 9 (states it)."""

    scores: list[Annotated[float, Field(ge=0.0, le=9.0)]] = Field(max_length=MAX_RERANKED)

    @classmethod
    def for_sources(cls, count: int) -> type[Relevance]:
        """The answer for ``count`` sources: exactly one score each, so decoding cannot skip one."""
        return _relevance_for(min(count, MAX_RERANKED))


@cache
def _relevance_for(count: int) -> type[Relevance]:
    scores = (list[Annotated[float, Field(ge=0.0, le=9.0)]], Field(min_length=count, max_length=count))
    return create_model(f"Relevance{count}", __base__=Relevance, scores=scores)


class Verdict(Answer):
    """grade: how an answer compares with the gold answer."""

    verdict: Literal["correct", "partial", "wrong"]
    reason: Annotated[str, Field(max_length=300)] = ""
