"""The evaluation's question file: one JSON object per line; a bad line is reported by number and skipped."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fathom_ray.models import GOAL_MAX_CHARS, GOAL_MIN_CHARS


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    id: str
    question: str
    answer: str
    answer_aliases: tuple[str, ...] = ()
    evidence_urls: tuple[str, ...] = ()
    hops: int = 1
    quotes: tuple[str, ...] = ()  # the gold evidence: verbatim quotes of the evidence pages


class _BadLineError(ValueError):
    pass


def parse_questions(lines: Iterable[str]) -> tuple[list[EvalQuestion], list[str]]:
    """The questions of a JSONL file and, for every line skipped, ``line N: why``."""
    questions: list[EvalQuestion] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            question = _question(json.loads(line))
            if question.id in seen:
                raise _BadLineError(f"id {question.id!r} repeats an earlier line")
        except json.JSONDecodeError as e:
            problems.append(f"line {number}: not JSON ({e.msg} at column {e.colno})")
            continue
        except _BadLineError as e:
            problems.append(f"line {number}: {e}")
            continue
        seen.add(question.id)
        questions.append(question)
    return questions, problems


def _question(item: Any) -> EvalQuestion:
    if not isinstance(item, dict):
        raise _BadLineError(f"expected an object, got {type(item).__name__}")
    missing = [k for k in ("id", "question", "answer") if k not in item]
    if missing:
        raise _BadLineError(f"missing {', '.join(missing)}")
    identifier = item["id"]
    if not isinstance(identifier, str | int) or isinstance(identifier, bool) or not str(identifier).strip():
        raise _BadLineError("id must be a non-empty string or an integer")
    question = _text(item, "question")
    if not GOAL_MIN_CHARS <= len(question.strip()) <= GOAL_MAX_CHARS:
        raise _BadLineError(f"question must have {GOAL_MIN_CHARS}-{GOAL_MAX_CHARS} characters")
    aliases = _strings(item, "answer_aliases")
    urls = _strings(item, "evidence_urls")
    if bad := [u for u in urls if not u.startswith(("http://", "https://"))]:
        raise _BadLineError(f"evidence_urls must be http(s) URLs, got {bad[0]!r}")
    hops = item.get("hops", max(1, len(urls)))
    if not isinstance(hops, int) or isinstance(hops, bool) or hops < 1:
        raise _BadLineError("hops must be an integer >= 1")
    quotes = _quotes(item)
    return EvalQuestion(
        str(identifier).strip(), question.strip(), _text(item, "answer"), aliases, urls, hops, quotes
    )


def _quotes(item: dict[str, Any]) -> tuple[str, ...]:
    """``evidence``: a list of ``{url, quote}`` objects (optional)."""
    value = item.get("evidence", [])
    if not isinstance(value, list) or not all(
        isinstance(e, dict) and isinstance(e.get("quote"), str) and e["quote"].strip() for e in value
    ):
        raise _BadLineError("evidence must be a list of {url, quote} objects with non-empty quotes")
    return tuple(e["quote"] for e in value)


def _text(item: dict[str, Any], key: str) -> str:
    value = item[key]
    if not isinstance(value, str) or not value.strip():
        raise _BadLineError(f"{key} must be a non-empty string")
    return value


def _strings(item: dict[str, Any], key: str) -> tuple[str, ...]:
    value = item.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _BadLineError(f"{key} must be a list of non-empty strings")
    return tuple(value)
