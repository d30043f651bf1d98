"""A documents answer in the report's shape: answer lines first, inline [n], each passage cited once,
and a listed answer read on across chunks (no store, no model)."""

from __future__ import annotations

import asyncio

from fathom_ray.documents.answering import compose, line_json
from fathom_ray.documents.chunking import chunk_document
from fathom_ray.documents.lists import asks_for_list, list_at, lists_in, whole_list
from fathom_ray.documents.models import Chunk, DocumentHit
from fathom_ray.documents.reading import DocumentText
from fathom_ray.judges.llm.answers import Citation, ItemAnswer, SinglePassAnswer
from fathom_ray.research.answer_sheet import AnswerStatus

CONDITIONS = """4. Redistribution. You may distribute copies, provided that You meet the following conditions:

      (a) You must give any other recipients of the Work a copy of this
          License; and

      (b) You must cause any modified files to carry prominent notices
          stating that You changed the files; and

      (c) You must retain all copyright, patent, trademark, and attribution
          notices from the Source form of the Work; and

      (d) If the Work includes a "NOTICE" text file, then any Derivative Works
          must include a readable copy of the attribution notices; and

      (e) You must not use the names of the Licensor to endorse products.

   5. Submission of Contributions. Unless You explicitly state otherwise, any Contribution is licensed.
"""


class ChunkStore:
    """The store's chunk lookup over one document's chunks."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.read: list[int] = []

    async def search(self, query: str, vector: object, limit: int, mode: str = "hybrid") -> list[DocumentHit]:
        return []

    async def chunk(self, document_id: str, index: int) -> DocumentHit | None:
        self.read.append(index)
        return hit(self.chunks[index]) if 0 <= index < len(self.chunks) else None


def hit(chunk: Chunk) -> DocumentHit:
    return DocumentHit(chunk, "LICENSE", 1.0)


def passage(text: str, index: int = 0, document: str = "d1") -> DocumentHit:
    return hit(Chunk(document, index, text, "", 0, len(text)))


def test_a_question_for_obligations_or_steps_asks_for_a_list() -> None:
    assert asks_for_list("What must a redistributor of modified files do under the Apache License 2.0?")
    assert asks_for_list("Which steps does a checkpoint take?")
    assert asks_for_list("What should I do before upgrading?")
    assert not asks_for_list("Which SQLite version added WAL mode?")
    assert not asks_for_list("Which PostgreSQL commands take a RETURNING clause?")


def test_lists_are_runs_of_one_marker_style_and_items_are_their_first_clause() -> None:
    runs = lists_in(CONDITIONS)
    styles = [[(i.style, i.ordinal) for i in run] for run in runs]
    assert styles == [[("1.", 4)], [("(a)", n) for n in range(1, 6)], [("1.", 5)]]
    letters = runs[1]
    spans = [" ".join(CONDITIONS[i.start : i.span_end].split()) for i in letters]
    assert spans[0] == "You must give any other recipients of the Work a copy of this License"
    assert spans[3].startswith('If the Work includes a "NOTICE" text file')
    assert list_at(passage(CONDITIONS), CONDITIONS.index("modified files")) == letters
    assert list_at(passage(CONDITIONS), CONDITIONS.index("Submission")) == runs[2]
    assert list_at(passage("No list here at all."), 3) is None


def test_a_list_cut_by_chunk_boundaries_is_read_on_and_back_whole() -> None:
    chunks = chunk_document("d1", DocumentText("LICENSE", CONDITIONS, ()), size=300, overlap=60)
    assert len(chunks) >= 3
    store = ChunkStore(chunks)
    middle = next(c for c in chunks if "(c) You must retain" in c.text and "(a)" not in c.text)
    run = list_at(hit(middle), middle.text.index("(c)"))
    assert run is not None
    items = asyncio.run(whole_list(store, hit(middle), run))
    said = [" ".join(x.text.split()) for x in items]
    assert [s.split()[:3] for s in said] == [
        ["You", "must", "give"],
        ["You", "must", "cause"],
        ["You", "must", "retain"],
        ["If", "the", "Work"],
        ["You", "must", "not"],
    ]
    for item in items:  # each item verbatim in its chunk, and where the document has it
        assert CONDITIONS[item.document_start : item.document_end] == item.text


def test_a_listed_answer_cites_each_item_and_each_passage_once() -> None:
    chunks = chunk_document("d1", DocumentText("LICENSE", CONDITIONS, ()), size=300, overlap=60)
    store = ChunkStore(chunks)
    first = next(c for c in chunks if "(b) You must cause" in c.text)
    passages = [hit(first), passage("Unrelated words about tomatoes.", 0, "d2")]
    run = list_at(passages[0], first.text.index("(b)"))
    assert run is not None
    items = asyncio.run(whole_list(store, passages[0], run))
    reply = SinglePassAnswer(answer="", citations=[])
    question = "What must a redistributor of modified files do?"
    composed = compose(question, passages, reply, items)
    assert [line.item for line in composed.answers] == [f"Q1.{n}" for n in range(1, 6)]
    lines = composed.text.splitlines()
    assert len(lines) == 5
    assert all(line.startswith("- ") and line.endswith("]") for line in lines)
    numbers = [c.number for c in composed.citations]
    assert len(numbers) == len(set(numbers))  # each passage cited once
    for cited in composed.citations:
        assert cited.evidence in composed.passages[cited.number - 1].chunk.text
    for line in composed.answers:
        (n,) = line.passages
        assert " ".join(composed.passages[n - 1].chunk.text.split()).find(line.answer) >= 0
    assert line_json(composed.answers[0])["passages"] == list(composed.answers[0].passages)


def test_an_answer_opens_with_its_line_and_cites_each_claim_inline_once_per_passage() -> None:
    quote = "The RETURNING syntax has been supported by SQLite since version 3.35.0."
    text = f"{quote} It is modelled after PostgreSQL."
    passages = [passage(text), passage(text, 1), passage("PostgreSQL has RETURNING too.", 0, "d2")]
    reply = SinglePassAnswer(
        answer="uncited prose",
        citations=[
            Citation(claim=quote, evidence=quote, source=1),
            Citation(claim=quote, evidence=quote, source=2),  # the same words from an overlapping chunk
            Citation(
                claim="modelled after PostgreSQL", evidence="It is modelled after PostgreSQL.", source=1
            ),
            Citation(claim="invented", evidence="not in the passage", source=3),
        ],
        parts=["Since which SQLite version is RETURNING supported?"],
        answers=[ItemAnswer(item="Q1", answer="3.35.0", fact_ids=["F2", "F1"])],
    )
    composed = compose("Since which SQLite version is RETURNING supported?", passages, reply)
    first, _, claims = composed.text.partition("\n\n")
    assert first == "3.35.0 [1]"  # F2 quotes passage 2 in the words passage 1 was cited for
    assert claims.count("[") == 2  # the repeated quote is said once
    assert claims.startswith("The RETURNING syntax has been supported by SQLite since version 3.35.0 [1].")
    assert "invented" not in composed.text
    assert [c.number for c in composed.citations] == [1]
    assert composed.citations[0].evidence == text  # both quotes of passage 1, as one citation
    (line,) = composed.answers
    assert (line.status, line.answer, line.passages) == (AnswerStatus.ANSWERED, "3.35.0", (1,))
    assert line_json(line) == {
        "item": "Q1",
        "question": "Since which SQLite version is RETURNING supported?",
        "answer": "3.35.0",
        "passages": [1],
        "status": "answered",
    }


def test_a_part_no_passage_answers_says_not_found() -> None:
    reply = SinglePassAnswer(answer="", citations=[], parts=["Who wrote it?"])
    composed = compose("Who wrote it?", [passage("Nothing relevant.")], reply)
    assert composed.text == "The passages do not say."
    assert line_json(composed.answers[0]) == {
        "item": "Q1",
        "question": "Who wrote it?",
        "answer": "",
        "passages": [],
        "status": "not_found",
        "passages_read": 1,
    }
