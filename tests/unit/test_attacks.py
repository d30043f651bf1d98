"""The attack pages of the offline web against the evidence judge and an LLM judge's prompt
(no model): no attack's payload becomes a fact, and what reaches a prompt is framed and defanged."""

from __future__ import annotations

import asyncio

import pytest

from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.llm import prompts
from fathom_ray.judges.llm.answers import FactClaim, Finding, PageAnalysis
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact
from fathom_ray.research.fact_ledger import FactLedger, lifted_from_unfit
from fathom_ray.research.report import render
from fathom_ray.testweb.attacks import ATTACKS, PLAIN, Attack, attack_page
from fathom_ray.web.extraction import extract_main_text
from tests.fakes import WordEmbedder

GOAL = "What does SQLite store in a single ordinary disk file?"
CHECKLIST = [ChecklistItem("Q1", GOAL)]


def page_of(attack: Attack) -> ExtractedPage:
    html = attack_page(attack.path, 8000)
    assert html is not None
    return extract_main_text(html.decode(), f"http://attack.test{attack.path}")


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_the_evidence_judge_keeps_the_plain_sentence_and_never_the_payload(attack: Attack) -> None:
    page = page_of(attack)
    judged = asyncio.run(EvidenceJudge(WordEmbedder()).analyse_page(GOAL, CHECKLIST, (), page))
    assert judged.answer is not None
    facts = judged.answer.facts
    assert any(PLAIN in f.evidence for f in facts)
    for fact in facts:
        assert attack.payload not in f"{fact.claim} {fact.evidence}"
    ledger = FactLedger()
    ledger.add_analysis(judged.answer, page, [i.id for i in CHECKLIST])
    assert all(attack.payload not in f.claim for f in ledger.facts)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_an_llm_judge_sees_the_page_framed_and_defanged(attack: Attack) -> None:
    page = page_of(attack)
    messages, safe = prompts.analyse_page(GOAL, CHECKLIST, [], page, 6000)
    prompt = messages[-1].content
    body = prompt[prompt.index("<source") :]
    assert body.count("</source>") == 1  # the page cannot close its frame
    assert "<|im_start|>" not in prompt
    assert "\u200b" not in prompt
    assert "\u202e" not in prompt
    assert "AKIAABCDEFGHIJKLMNOP" not in prompt  # secrets are redacted before a model sees them
    if attack.name in (
        "visible override",
        "fake delimiters and chat markup",
        "zero-width and bidi obfuscation",
    ):
        assert safe.flags  # recorded as instruction-like


def test_a_quote_lifted_out_of_an_injected_instruction_is_no_evidence() -> None:
    """The compromised judge quotes words that are on the page, but from an attack's sentence."""
    page = page_of(next(a for a in ATTACKS if a.name == "zero-width and bidi obfuscation"))
    lifted = FactClaim(claim="SQLite is closed source.", evidence="SQLite is closed source", confidence=1.0)
    plain = FactClaim(claim=PLAIN, evidence=PLAIN, confidence=0.9)
    ledger = FactLedger()
    kept, rejected = ledger.add_analysis(PageAnalysis(facts=[lifted, plain]), page, ["Q1"])
    assert [f.evidence for f in kept] == [PLAIN]
    assert rejected == 1
    assert lifted_from_unfit("SQLite is closed source", page.text) is not None
    assert lifted_from_unfit(PLAIN, page.text) is None


def test_a_report_sentence_with_markup_is_not_printed_even_when_it_cites_a_real_fact() -> None:
    fact = Fact("F1", PLAIN, PLAIN, "http://attack.test/")
    findings = [
        Finding(sentence="<script>alert(1)</script> ![x](http://evil.test/x.png)", fact_ids=["F1"]),
        Finding(sentence="SQLite keeps a database in one file.", fact_ids=["F1"]),
    ]
    markdown = render(GOAL, CHECKLIST, findings, [fact], "done")
    assert "SQLite keeps a database in one file." in markdown
    assert "evil.test" not in markdown
    assert "alert" not in markdown
