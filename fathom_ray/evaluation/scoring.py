"""Scores of one finished run, recomputed from its result.json document alone.

Independent of the session's own checks: a fact is faithful when its evidence,
normalised here, occurs in the extracted text of the page it cites, as the
document records that text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fathom_ray.errors import InvalidURLError
from fathom_ray.evaluation.questions import EvalQuestion
from fathom_ray.text.normalise import answer_match, normalise_text
from fathom_ray.web.urls import canonicalize


def fetched_urls(document: Mapping[str, Any]) -> set[str]:
    """Canonical URLs of the pages the run fetched (the requested URL and where it ended)."""
    urls: set[str] = set()
    for page in document.get("pages", []):
        if page.get("status") == "ok":
            urls.update(_canonical(u) for u in (page.get("url"), page.get("final_url")) if u)
    return urls


def evidence_recall(evidence_urls: Sequence[str], document: Mapping[str, Any]) -> float | None:
    """Share of the evidence pages the run fetched; None when the question names none."""
    if not evidence_urls:
        return None
    fetched = fetched_urls(document)
    return sum(_canonical(u) in fetched for u in evidence_urls) / len(evidence_urls)


def evidence_fact_share(evidence_urls: Sequence[str], document: Mapping[str, Any]) -> float | None:
    """Share of the kept facts that cite one of the question's evidence pages: a precision proxy
    beside recall (a fact from elsewhere may still serve, so it is a floor); None without facts or
    without evidence pages."""
    facts = document.get("facts", [])
    if not facts or not evidence_urls:
        return None
    evidence = {_canonical(u) for u in evidence_urls}
    return sum(_canonical(str(f.get("source_url") or "")) in evidence for f in facts) / len(facts)


def citation_faithfulness(document: Mapping[str, Any]) -> float | None:
    """Share of the facts whose evidence occurs in the text of the page they cite; None without facts."""
    facts = document.get("facts", [])
    if not facts:
        return None
    texts: dict[str, str] = {}
    for page in document.get("pages", []):
        text = normalise_text(page.get("text") or "")
        for url in (page.get("url"), page.get("final_url")):
            if url:
                texts[_canonical(url)] = f"{texts.get(_canonical(url), '')} {text}"
    faithful = 0
    for fact in facts:
        evidence = normalise_text(fact.get("evidence") or "")
        page_text = texts.get(_canonical(fact.get("source_url") or ""), "")
        faithful += bool(evidence) and evidence in page_text
    return faithful / len(facts)


def evidence_quote_recall(quotes: Sequence[str], document: Mapping[str, Any]) -> float | None:
    """Share of the gold evidence quotes that occur in the evidence of the facts kept; None without quotes."""
    if not quotes:
        return None
    kept = " \n ".join(normalise_text(str(f.get("evidence") or "")) for f in document.get("facts", []))
    return sum(normalise_text(q) in kept for q in quotes) / len(quotes)


def answer_text(document: Mapping[str, Any]) -> str:
    """What the run answered: its report and the claims of its facts."""
    claims = " ".join(str(f.get("claim", "")) for f in document.get("facts", []))
    return f"{document.get('report_markdown', '')}\n{claims}"


def answer_lines(document: Mapping[str, Any]) -> str:
    """What the run's answer lines say, alone: each answered item's span and, where sources disagree,
    the other value (a "not found" line says nothing)."""
    said = []
    for answer in document.get("answers", []):
        if answer.get("status") in ("answered", "conflicting"):
            said += [str(answer.get("answer", "")), str(answer.get("other_answer", ""))]
    return " ; ".join(s for s in said if s)


def answer_faithfulness(document: Mapping[str, Any]) -> float | None:
    """Share of the answer lines whose span occurs in the evidence of every fact they cite; None
    without an answered line."""
    evidence = {
        str(f.get("id")): normalise_text(str(f.get("evidence") or "")) for f in document.get("facts", [])
    }
    found = [a for a in document.get("answers", []) if a.get("status") in ("answered", "conflicting")]
    if not found:
        return None
    held = sum(
        bool(a.get("fact_ids"))
        and all(normalise_text(str(a.get("answer", ""))) in evidence.get(str(i), "") for i in a["fact_ids"])
        for a in found
    )
    return held / len(found)


def score(
    question: EvalQuestion,
    method: str,
    document: Mapping[str, Any],
    stages_s: Mapping[str, float],
    verdict: str | None = None,
) -> dict[str, Any]:
    """One results.jsonl row."""
    usage = document.get("usage", {})
    return {
        "id": question.id,
        "method": method,
        "question": question.question,
        "hops": question.hops,
        "status": document.get("status", "error"),
        "stop_reason": document.get("stop_reason", ""),
        "evidence_recall": evidence_recall(question.evidence_urls, document),
        "citation_faithfulness": citation_faithfulness(document),
        "evidence_fact_share": evidence_fact_share(question.evidence_urls, document),
        "evidence_quote_recall": evidence_quote_recall(question.quotes, document),
        "judge": usage.get("judge", ""),
        "facts": len(document.get("facts", [])),
        "answer_match": answer_match(answer_text(document), question.answer, question.answer_aliases),
        "answer_line_match": answer_match(answer_lines(document), question.answer, question.answer_aliases),
        "answer_faithfulness": answer_faithfulness(document),
        "llm_verdict": verdict,
        "pages_fetched": usage.get("pages_fetched", 0),
        "llm_calls": usage.get("llm_calls", 0),
        "tokens": usage.get("tokens_in", 0) + usage.get("tokens_out", 0),
        "cost_usd": usage.get("cost_usd"),
        "wall_s": usage.get("wall_s", 0.0),
        "stages_s": {k: round(v, 2) for k, v in stages_s.items()},
        "error": document.get("error", ""),
    }


def _canonical(url: str) -> str:
    try:
        return canonicalize(url)
    except InvalidURLError:  # compared as written: a page's odd URL must not end the scoring
        return url
