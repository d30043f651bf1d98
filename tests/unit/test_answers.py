"""Answers: typed spans verbatim from the evidence judge's facts, held to their cited evidence."""

from __future__ import annotations

import asyncio

import pytest

from fathom_ray.judges.evidence.answer_types import AnswerType, expected_type
from fathom_ray.judges.evidence.compose import item_answers
from fathom_ray.judges.evidence.decompose import decompose
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.judges.evidence.spans import code_span, defined_term, short_clause, term_span, typed_span
from fathom_ray.judges.llm.answers import ItemAnswer
from fathom_ray.models import ChecklistItem, ExtractedPage, Fact
from fathom_ray.research.answer_sheet import AnswerStatus, answer_sheet, from_json, ticked, to_json
from fathom_ray.research.fact_ledger import FactLedger
from tests.fakes import WordEmbedder

RELEASE_NOTES = """What's New In Python 3.8
Assignment expressions
There is new syntax := that assigns values to variables as part of a larger
expression. It is affectionately known as the walrus operator.
See PEP 572 for a full description.
(Contributed by Emily Morehouse in bpo-35224.)
Assignment expressions were introduced in Python version 3.8.
Augmented assignment
Augmented assignment operators such as += were introduced in Python version 2.0.
"""

GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
URL = "http://docs.python.test/3.11/whatsnew/3.8.html"


def checklist_of(goal: str) -> list[ChecklistItem]:
    return [ChecklistItem(f"Q{n}", q) for n, q in enumerate(decompose(goal, 5), start=1)]


def judged_facts(checklist: list[ChecklistItem], text: str, url: str = URL) -> list[Fact]:
    """The evidence judge's facts of one page, kept by the ledger as a session keeps them."""
    page = ExtractedPage(url, "What's New In Python 3.8", text)
    analysis = asyncio.run(EvidenceJudge(WordEmbedder(), 0.45).analyse(GOAL, checklist, page))
    ledger = FactLedger()
    ledger.add_analysis(analysis, page, (i.id for i in checklist))
    return ledger.facts


@pytest.mark.parametrize(
    ("evidence", "question", "span"),
    [
        ("Assignment expressions were introduced in Python version 3.8.", "Which version?", "3.8"),
        ("Changed in version 3.10: the parser is new.", "Since which version?", "3.10"),
        ("SQLite version 3.25.0 was released on 2018-09-15 with it.", "When was it released?", "2018-09-15"),
        ("It shipped on September 15, 2018 at last.", "When did it ship?", "September 15, 2018"),
        ("(Contributed by Emily Morehouse in bpo-35224.)", "Who contributed it?", "Emily Morehouse"),
        ("Written by Chris Angelico, Tim Peters and Guido van Rossum.", "Who wrote it?", None),
        ("A page holds at most 65536 bytes in this build.", "How many bytes may a page hold?", "65536 bytes"),
        ("See PEP 572 for a full description.", "Which PEP describes it?", "PEP 572"),
        (
            "The IANA time zone database is supported by zoneinfo.",
            "Which time zone database does it support?",
            "IANA time zone database",
        ),
        # a version after the name the question asks about, before another the sentence names
        ("Files written by Redis 7.2.1 stay readable back to version 2.0.", "Which Redis version?", "7.2.1"),
        # a name in code's form where no "<head> <name>" is said: the first the question does not say,
        # or the first of the kind its head names (an exception's name, an option's dashes)
        (
            "Calling load() on a truncated file raises tomli.decoder.TOMLDecodeError at once.",
            "Which exception does load() raise on a truncated file?",
            "tomli.decoder.TOMLDecodeError",
        ),
        (
            "Pass --depth=1 (or --shallow-since) to fetch less history.",
            "Which flag of git fetch limits the history it fetches?",
            "--depth=1",
        ),
        (
            "When the row exists, the statement needs ON CONFLICT DO NOTHING, or it fails.",
            "What must the INSERT say for a row that exists?",
            "ON CONFLICT DO NOTHING",
        ),
        (
            "Set fail_fast in the config (see https://ci.example.test/conf).",
            "Which setting stops it?",
            "fail_fast",
        ),
        # a word before the head names only when it looks like a name and the question does not say it
        (
            "The debugging environment reads its PIN from FLASK_PIN_VALUE at start.",
            "Which environment variable holds the PIN?",
            "FLASK_PIN_VALUE",
        ),
        (
            "Use the Bolt runner: Runner.fresh_folder() gives each test a fresh folder.",
            "Bolt runs tests. Which runner method gives a test a fresh folder?",
            "Runner.fresh_folder()",
        ),
        (
            "Set it with the TOOL_HOME environment variable.",
            "Which environment variable sets it?",
            "TOOL_HOME environment variable",
        ),
        # a class in CamelCase, a dot-command in quotes, a keyword argument
        (
            "Use the FrozenSetAction to accept repeated values.",
            "Which action class accepts repeated values?",
            "FrozenSetAction",
        ),
        (
            'To list the schemas, type ".schemas" at the prompt.',
            "Which dot-command lists the schemas?",
            ".schemas",
        ),
        ("Pass exact=True so that lengths must agree.", "Which argument makes lengths agree?", "exact=True"),
        # the head is the asking sentence's, not an earlier "in which"
        (
            "The negotiation is defined in RFC 7301.",
            "The server picks a protocol in which the client lists its choices. Which RFC defines it?",
            "RFC 7301",
        ),
        # a name said after the head answers before the term a description defines
        (
            "- --force\n- If the Git configuration variable clean.requireForce is not false, it refuses.",
            "Which Git configuration variable makes git clean refuse to work?",
            "Git configuration variable clean.requireForce",
        ),
        # "how long": a count of time
        (
            "Unreachable entries are kept for 30 days by default.",
            "After how long are entries pruned?",
            "30 days",
        ),
    ],
)
def test_the_span_is_the_typed_part_of_the_evidence(evidence: str, question: str, span: str | None) -> None:
    kind = expected_type(question)
    found = typed_span(evidence, question, kind)
    if span is None:  # several people: the whole list, verbatim
        assert found == "Chris Angelico, Tim Peters and Guido van Rossum"
        return
    assert found == span
    assert found in evidence


def test_no_span_of_a_checkable_type_means_none_and_a_definition_gets_a_clause() -> None:
    assert (
        typed_span("The walrus operator assigns inside expressions.", "Which version?", AnswerType.VERSION)
        is None
    )
    assert typed_span("Nobody is named here.", "Who wrote it?", AnswerType.PERSON) is None
    clause = short_clause("A savepoint is a mark inside a transaction, which can be rolled back to later on.")
    assert clause == "A savepoint is a mark inside a transaction"


def test_a_two_part_goal_is_answered_from_the_evidence_judges_facts() -> None:
    checklist = checklist_of(
        "Which Python version introduced assignment expressions, and who contributed them?"
    )
    facts = judged_facts(checklist, RELEASE_NOTES)
    claims = item_answers(checklist, facts)
    sheet = answer_sheet(checklist, claims, facts, pages_read=1, tried=["walrus"])
    by_item = {a.item_id: a for a in sheet.answers}
    assert set(by_item) == {"Q2", "Q3"}  # the goal's parts; the goal is answered by their lines
    version, person = by_item["Q2"], by_item["Q3"]
    assert (version.status, version.answer) == (AnswerStatus.ANSWERED, "3.8")
    assert (person.status, person.answer) == (AnswerStatus.ANSWERED, "Emily Morehouse")
    evidence = {f.id: f.evidence for f in facts}
    for answer in sheet.answers:  # faithful: every span in each fact it cites
        assert answer.fact_ids
        assert all(answer.answer in evidence[i] for i in answer.fact_ids)
    assert sheet.dropped == 0
    done = ticked(checklist, sheet.answers)
    assert [i.satisfied for i in done] == [True, True, True]  # both parts answered: the goal too


def test_the_readme_goal_answers_the_version_and_says_the_author_was_not_found() -> None:
    checklist = checklist_of(GOAL)
    facts = judged_facts(checklist, RELEASE_NOTES)
    sheet = answer_sheet(checklist, item_answers(checklist, facts), facts, pages_read=1, tried=["walrus"])
    version, pep, author = sheet.answers
    assert (version.item_id, version.answer) == ("Q2", "3.8")
    assert version.fact_ids[0] in {f.id for f in facts if "3.8" in f.evidence}
    assert (pep.item_id, pep.answer, pep.status) == ("Q3", "PEP 572", AnswerStatus.ANSWERED)  # the bridge
    # the page names who contributed the feature, not who wrote the PEP: no span of a person for it
    assert (author.item_id, author.status, author.tried) == ("Q4", AnswerStatus.NOT_FOUND, ("walrus",))
    assert [i.satisfied for i in ticked(checklist, sheet.answers)] == [False, True, True, False]


def test_an_unfaithful_answer_is_dropped_and_counted_and_the_item_is_not_found() -> None:
    checklist = [ChecklistItem("Q1", "Which version added it?")]
    facts = [Fact("F1", "New in version 3.8.", "New in version 3.8.", URL, ("Q1",), 0.8)]
    claims = [
        ItemAnswer(item="Q1", answer="3.9", fact_ids=["F1"]),  # not in F1's evidence
        ItemAnswer(item="Q7", answer="3.8", fact_ids=["F1"]),  # no such item
    ]
    sheet = answer_sheet(checklist, claims, facts, pages_read=4, tried=["a", "b", "c", "d"])
    assert sheet.dropped == 2
    (answer,) = sheet.answers
    assert answer.status is AnswerStatus.NOT_FOUND
    assert (answer.pages_read, answer.tried) == (4, ("b", "c", "d"))
    assert ticked(checklist, sheet.answers) == checklist


def test_a_cited_fact_that_lacks_the_span_is_uncited_and_case_and_spaces_do_not_matter() -> None:
    checklist = [ChecklistItem("Q1", "Who contributed it?")]
    facts = [
        Fact("F1", "c", "(Contributed by Emily  Morehouse in bpo-35224.)", URL, ("Q1",), 0.8),
        Fact("F2", "c", "Something else entirely.", URL, ("Q1",), 0.8),
    ]
    claims = [ItemAnswer(item="Q1", answer="emily morehouse", fact_ids=["F2", "F1"])]
    (answer,) = answer_sheet(checklist, claims, facts, pages_read=1).answers
    assert (answer.status, answer.fact_ids) == (AnswerStatus.ANSWERED, ("F1",))


def test_sources_that_disagree_make_a_conflicting_answer_with_the_other_value_cited() -> None:
    checklist = [ChecklistItem("Q1", "Which version added the feature?")]
    facts = [
        Fact("F1", "a", "The feature was added in version 3.8.", "http://a.test/", ("Q1",), 0.82),
        Fact("F2", "b", "The feature was added in version 3.9.", "http://b.test/", ("Q1",), 0.78),
        Fact("F3", "c", "The feature was added in version 3.8 too.", "http://c.test/", ("Q1",), 0.6),
    ]
    (answer,) = answer_sheet(checklist, item_answers(checklist, facts), facts, pages_read=3).answers
    assert answer.status is AnswerStatus.CONFLICTING
    assert (answer.answer, answer.fact_ids) == ("3.8", ("F1", "F3"))
    assert (answer.other_answer, answer.other_fact_ids) == ("3.9", ("F2",))
    agreeing = [facts[0], facts[2]]
    (same,) = answer_sheet(checklist, item_answers(checklist, agreeing), agreeing, pages_read=2).answers
    assert same.status is AnswerStatus.ANSWERED


def test_a_value_about_what_the_question_asks_beats_a_likelier_one_about_something_near() -> None:
    checklist = [ChecklistItem("Q1", "Which Python version introduced assignment expressions?")]
    url = "http://docs.python.test/3.11/reference/expressions.html"
    near = Fact(
        "F1", "", "New in version 3.6: Asynchronous generator expressions were introduced.", url, ("Q1",), 0.8
    )
    about = Fact(
        "F2",
        "",
        "New in version 3.8: See PEP 572 for more details about assignment expressions.",
        url,
        ("Q1",),
        0.7,
    )
    (answer,) = answer_sheet(checklist, item_answers(checklist, [near, about]), [near, about], 1).answers
    assert (answer.answer, answer.fact_ids) == ("3.8", ("F2",))  # it says "assignment expressions"
    alone = [near]  # with nothing about the subject, the likeliest value still answers
    (only,) = answer_sheet(checklist, item_answers(checklist, alone), alone, 1).answers
    assert only.answer == "3.6"


def test_a_name_is_answered_by_the_fact_that_names_it_and_only_a_name_rivals_it() -> None:
    checklist = [ChecklistItem("Q1", "Which PEP introduced assignment expressions?")]

    def fact(n: int, evidence: str, confidence: float) -> Fact:
        return Fact(f"F{n}", "", evidence, f"http://{n}.test/", ("Q1",), confidence)

    clause = fact(1, "Augmented assignment operators were first introduced in C.", 0.9)
    named = fact(2, "New in version 3.8: See PEP 572 for more.", 0.7)
    (answer,) = answer_sheet(checklist, item_answers(checklist, [clause, named]), [clause, named], 2).answers
    assert (answer.status, answer.answer, answer.fact_ids) == (AnswerStatus.ANSWERED, "PEP 572", ("F2",))
    aside = fact(4, "Quoting from the introduction to PEP 1, Purpose.", 0.9)
    (alone,) = answer_sheet(checklist, item_answers(checklist, [named, aside]), [named, aside], 2).answers
    assert alone.status is AnswerStatus.ANSWERED  # a PEP of no assignment expressions is no rival
    rival = fact(3, "In Python, assignment expressions came with PEP 379.", 0.7)
    said = fact(5, "New in version 3.8: See PEP 572 for assignment expressions.", 0.75)
    facts = [clause, said, rival]
    (other,) = answer_sheet(checklist, item_answers(checklist, facts), facts, pages_read=3).answers
    assert (other.status, other.other_answer) == (AnswerStatus.CONFLICTING, "PEP 379")


def test_a_name_said_with_what_is_asked_beats_a_better_formed_name_about_something_near() -> None:
    checklist = [ChecklistItem("Q1", "Which RFC defined the WebSocket protocol?")]
    near = Fact("F1", "", "RFC 2616: Hypertext Transfer Protocol.", "http://a.test/", ("Q1",), 0.9)
    about = Fact(
        "F2",
        "",
        "The WebSocket protocol was standardised in 2011 as RFC 6455.",
        "http://b.test/",
        ("Q1",),
        0.6,
    )
    facts = [near, about]
    (answer,) = answer_sheet(checklist, item_answers(checklist, facts), facts, 2).answers
    assert (answer.answer, answer.fact_ids) == ("RFC 6455", ("F2",))  # it says "WebSocket"
    assert answer.other_answer == ""  # nor does it rival it: it says less of what is asked
    (alone,) = answer_sheet(checklist, item_answers(checklist, [near]), [near], 1).answers
    assert alone.answer == "RFC 2616"  # with nothing about the subject, the name still answers


def test_a_description_is_asked_a_clause_and_a_url_is_no_code_name() -> None:
    ability = "What ability did the shell gain in that version?"
    said = "The shell can now open archives with the .archive command and the -A option."
    assert typed_span(said, ability, expected_type(ability)) == short_clause(said)
    assert code_span("Clone it from https://git.example.test/repo.git today.", "Which URL?") is None
    assert code_span("Some flags (e.g. the -v flag, i.e. verbose) help.", "Which flag helps?") == "-v"


def test_a_fact_with_a_name_in_code_form_answers_before_a_likelier_clause() -> None:
    checklist = [ChecklistItem("Q1", "What must an INSERT statement specify to override the value?")]
    clause = Fact(
        "F1", "", "Identity columns supersede serial columns in new tables.", "http://1.test/", ("Q1",), 0.9
    )
    coded = Fact(
        "F2", "", "To override it, say OVERRIDING SYSTEM VALUE there.", "http://2.test/", ("Q1",), 0.6
    )
    (answer,) = item_answers(checklist, [clause, coded])
    assert (answer.answer, answer.fact_ids) == ("OVERRIDING SYSTEM VALUE", ["F2"])


def test_a_conflicting_claim_whose_other_value_is_unfaithful_is_an_answer() -> None:
    checklist = [ChecklistItem("Q1", "Which version?")]
    facts = [Fact("F1", "a", "New in version 3.8.", URL, ("Q1",), 0.8)]
    claim = ItemAnswer(item="Q1", answer="3.8", fact_ids=["F1"], other_answer="3.7", other_fact_ids=["F1"])
    (answer,) = answer_sheet(checklist, [claim], facts, pages_read=1).answers
    assert (answer.status, answer.other_answer) == (AnswerStatus.ANSWERED, "")


def test_answers_round_trip_through_json() -> None:
    checklist = checklist_of(GOAL)
    facts = judged_facts(checklist, RELEASE_NOTES)
    sheet = answer_sheet(checklist, item_answers(checklist, facts), facts, pages_read=1, tried=["q"])
    missing = answer_sheet([ChecklistItem("Q1", "Who?")], [], [], pages_read=2, tried=["q"])
    for answer in (*sheet.answers, *missing.answers):
        data = to_json(answer)
        assert set(data) >= {"item", "answer", "fact_ids", "status"}
        assert from_json(data) == answer


def test_a_person_comes_only_from_a_fact_that_names_what_the_question_asks_about() -> None:
    # the README's case: the page read names who implemented another feature, never the PEP's author
    checklist = [
        ChecklistItem("Q1", GOAL),
        ChecklistItem("Q2", "Which Python version introduced assignment expressions?"),
        ChecklistItem("Q3", "Who wrote the PEP (Python version introduced assignment expressions)?"),
    ]
    patch = Fact(
        "F1",
        "c",
        "The augmented assignment patch was implemented by Thomas Wouters.",
        "http://a.test/",
        ("Q3",),
        0.9,
    )
    pep = Fact(
        "F2",
        "c",
        "PEP 572 - Assignment Expressions, written by Chris Angelico.",
        "http://b.test/",
        ("Q3",),
        0.5,
    )
    assert item_answers(checklist, [patch]) == []
    (claim,) = item_answers(checklist, [patch, pep])
    assert (claim.item, claim.answer, claim.fact_ids) == ("Q3", "Chris Angelico", ["F2"])
    # a PEP's author under another PEP's heading says "PEP" but nothing of the PEP the context names
    written = "- PEP written by Guido van Rossum and Raymond D. Hettinger."
    other_pep = Fact("F3", "c", written, "http://c.test/", ("Q3",), 0.9)
    assert item_answers(checklist, [patch, other_pep]) == []
    (claim,) = item_answers(checklist, [other_pep, pep])
    assert claim.answer == "Chris Angelico"


def test_a_value_rivals_the_answer_only_when_it_says_as_much_of_what_is_asked() -> None:
    # the README run's page: "3.7" of asynchronous generator expressions is no rival to "3.8"
    checklist = [ChecklistItem("Q1", "Which Python version introduced assignment expressions?")]
    best = Fact("F1", "", "New in version 3.8: See PEP 572 for assignment expressions.", URL, ("Q1",), 0.8)
    near = Fact(
        "F2",
        "",
        "Changed in version 3.7: Prior to Python 3.7, asynchronous generator expressions could only appear.",
        "http://b.test/",
        ("Q1",),
        0.8,
    )
    same = Fact("F3", "", "Assignment expressions came in version 3.9.", "http://c.test/", ("Q1",), 0.8)
    (alone,) = answer_sheet(checklist, item_answers(checklist, [best, near]), [best, near], 2).answers
    assert (alone.status, alone.answer) == (AnswerStatus.ANSWERED, "3.8")
    facts = [best, near, same]
    (rivalled,) = answer_sheet(checklist, item_answers(checklist, facts), facts, 3).answers
    assert (rivalled.status, rivalled.other_answer) == (AnswerStatus.CONFLICTING, "3.9")


SHOPT = """The shopt builtin
These options change the shell's behaviour.
huponexit
If set, Bash will send SIGHUP to all jobs when an interactive login shell exits.
inherit_errexit
If set, command substitution inherits the value of the errexit option, instead of unsetting it in the
subshell environment.
"""
INHERIT_ERREXIT = (  # the term and the line that describes it, as a fact's evidence
    "inherit_errexit\nIf set, command substitution inherits the value of the errexit option, instead of "
    "unsetting it in the subshell environment."
)
ASKED = (
    "A style guide says scripts should start with a particular set option so that errors are detected. "
    "In Bash, which shopt option makes command substitution inherit that option's value instead of "
    "unsetting it in the subshell?"
)


@pytest.mark.parametrize(
    ("line", "term"),
    [
        ("inherit_errexit", True),
        ("- --branch <name>", True),
        ("BASH_COMPAT \u00b6", True),
        ("json.JSONDecodeError", True),
        ("Version 2.1.1\u00b6", False),  # a release's heading, not a term in code's form
        ("Python 3.11", False),
        ("See PEP 673.", False),  # a sentence
        ("Use the --depth option of git clone to cut it", False),  # too many words for a term
    ],
)
def test_a_defined_term_is_a_few_words_in_codes_form_and_no_sentence(line: str, term: bool) -> None:
    assert defined_term(line) is term


def test_a_described_term_joins_its_description_and_answers_which_option() -> None:
    checklist = [ChecklistItem("Q1", ASKED)]
    facts = judged_facts(checklist, SHOPT, "http://www.gnu.test/bash/manual/shopt.html")
    described = [f for f in facts if "command substitution inherits" in f.evidence]
    assert described, facts
    assert described[0].evidence.startswith("inherit_errexit\nIf set")  # verbatim: the page's own lines
    assert described[0].evidence in SHOPT
    assert term_span(described[0].evidence, ASKED) == "inherit_errexit"
    assert term_span("- --branch <name>\nCheck out this branch.", "Which option of git clone?") == "--branch"
    assert term_span("inherit_errexit\nIf set, ...", "What does inherit_errexit do?") is None  # said already
    assert term_span("inherit_errexit", ASKED) is None  # no description under it


def test_the_fact_that_says_the_asking_sentence_answers_it_not_the_one_that_says_the_statement() -> None:
    checklist = [ChecklistItem("Q1", ASKED)]
    bridge = Fact(
        "F1",
        "",
        "Scripts should start with set -e so that errors are detected; the -e option stops them.",
        "http://policy.test/scripts.html",
        ("Q1",),
        0.8,
    )
    term = Fact(
        "F2",
        "",
        INHERIT_ERREXIT,
        "http://www.gnu.test/bash/manual/shopt.html",
        ("Q1",),
        0.6,
    )
    (answer,) = item_answers(checklist, [bridge, term])
    assert (answer.answer, answer.fact_ids[0]) == ("inherit_errexit", "F2")


def test_a_clause_that_says_the_asking_sentence_beats_a_code_name_that_does_not() -> None:
    asked = (
        "A tool raised its minimum SQLite version. Which scheme does SQLite follow for release numbers since?"
    )
    checklist = [ChecklistItem("Q1", asked)]
    said = "Since version 3.9.0 SQLite follows semantic versioning for its release numbers."
    clause = Fact("F1", "", said, "http://a.test/", ("Q1",), 0.6)
    coded = Fact(
        "F2", "", "The SQLITE_VERSION macro holds the version string.", "http://b.test/", ("Q1",), 0.7
    )
    (answer,) = item_answers(checklist, [coded, clause])
    assert answer.fact_ids[0] == "F1"
    assert "semantic versioning" in answer.answer
    (alone,) = item_answers(checklist, [coded])
    assert alone.answer == "SQLITE_VERSION"  # with nothing better, the code name answers


def test_a_part_made_standalone_is_answered_by_what_it_asks_past_its_context() -> None:
    # the goal's asking sentence as an item of its own (its statement is an item too): the words in
    # parentheses are the statement's; a fact that names something but says little of what is
    # asked ("The Shopt Builtin") is no answer beside the one that describes it
    part = (
        "Which shopt option makes command substitution inherit that option's value instead of unsetting it "
        "in the subshell (style guide scripts start set option)?"
    )
    checklist = [ChecklistItem("Q1", ASKED), ChecklistItem("Q2", part)]
    listing = Fact(
        "F1",
        "",
        "The shell environment holds options enabled by set or inherited from the parent\n"
        "shopt (see The Shopt Builtin)",
        "http://www.gnu.test/bash/manual/environment.html",
        ("Q1", "Q2"),
        0.8,
    )
    term = Fact(
        "F2",
        "",
        INHERIT_ERREXIT,
        "http://www.gnu.test/bash/manual/shopt.html",
        ("Q1", "Q2"),
        0.6,
    )
    (answer,) = item_answers(checklist, [listing, term])
    assert (answer.item, answer.answer, answer.fact_ids[0]) == ("Q2", "inherit_errexit", "F2")
