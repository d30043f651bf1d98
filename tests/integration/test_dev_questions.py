"""The question sets (development; held out from tuning; validation, only ever reported): valid,
multi-hop, apart from each other, and every evidence quote is on its page as served."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
import pytest

from fathom_ray.evaluation.questions import EvalQuestion, parse_questions
from fathom_ray.testweb.sites import SITES
from fathom_ray.web.extraction import extract_main_text

if TYPE_CHECKING:
    from fathom_ray.testweb.server import TestWeb

pytestmark = pytest.mark.integration
DATA = Path(__file__).resolve().parents[1] / "data"
FILE = DATA / "dev_questions.jsonl"
LINES = FILE.read_text(encoding="utf-8").splitlines()
HELD_OUT = (DATA / "heldout_questions.jsonl").read_text(encoding="utf-8").splitlines()
VALIDATION = (DATA / "validation_questions.jsonl").read_text(encoding="utf-8").splitlines()
HOSTS = {site.host for site in SITES}


def _hosts(questions: list[EvalQuestion]) -> list[set[str | None]]:
    return [{urlsplit(u).hostname for u in q.evidence_urls} for q in questions]


def test_the_set_is_valid_and_multi_hop() -> None:
    questions, problems = parse_questions(LINES)
    assert problems == []
    assert len(questions) >= 15
    assert all(2 <= q.hops == len(q.evidence_urls) <= 4 for q in questions)
    sites = _hosts(questions)
    assert sum(len(s) >= 2 for s in sites) >= len(questions) // 2  # many cross two sites
    assert set().union(*sites) <= HOSTS


def test_the_held_out_set_is_valid_multi_hop_and_apart_from_the_dev_set() -> None:
    questions, problems = parse_questions(HELD_OUT)
    dev, _ = parse_questions(LINES)
    assert problems == []
    assert len(questions) >= 8
    assert all(2 <= q.hops == len(q.evidence_urls) and q.quotes for q in questions)
    assert not {q.id for q in questions} & {q.id for q in dev}
    assert not {u for q in questions for u in q.evidence_urls} <= {u for q in dev for u in q.evidence_urls}


def test_the_validation_set_spans_the_grown_web_and_stands_apart() -> None:
    questions, problems = parse_questions(VALIDATION)
    dev, _ = parse_questions(LINES)
    held_out, _ = parse_questions(HELD_OUT)
    assert problems == []
    assert len(questions) >= 30
    assert all(2 <= q.hops == len(q.evidence_urls) <= 4 and q.quotes for q in questions)
    sites = _hosts(questions)
    assert sum(len(s) >= 2 for s in sites) >= len(questions) // 2
    assert set().union(*sites) == HOSTS  # every site of the offline web
    others = {q.id for q in dev} | {q.id for q in held_out}
    assert not {q.id for q in questions} & others
    assert not {q.question for q in questions} & {q.question for q in [*dev, *held_out]}


@pytest.mark.parametrize("lines", [LINES, HELD_OUT, VALIDATION], ids=["dev", "held-out", "validation"])
def test_every_quote_occurs_in_its_page_as_served(testweb: TestWeb, lines: list[str]) -> None:
    served: dict[str, str] = {}
    with httpx.Client(timeout=30) as client:
        for line in lines:
            item = json.loads(line)
            assert {e["url"] for e in item["evidence"]} == set(item["evidence_urls"])
            for evidence in item["evidence"]:
                url = evidence["url"]
                if url not in served:
                    parts = urlsplit(url)
                    answer = client.get(
                        f"http://127.0.0.1:{testweb.port}{parts.path}", headers={"Host": parts.hostname or ""}
                    )
                    assert answer.status_code == 200, url
                    served[url] = " ".join(extract_main_text(answer.text, url).text.split())
                assert " ".join(evidence["quote"].split()) in served[url], (
                    item["id"],
                    url,
                    evidence["quote"],
                )
