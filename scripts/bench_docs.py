"""Document retrieval: full-hit rate per pipeline stage, ingestion throughput and search latency.

The corpus is built from Debian documentation on disk: every file holding a gold passage of
``tests/data/doc_questions.jsonl`` and a fixed sample of the other HTML files of the same packages,
plus a PDF. A question is a full hit when every gold quote occurs in the evidence it gets (at most
8 passages, as ``fathom ask`` would read). Stages, in one run on one store:

- BM25 alone (the sparse vectors), vectors alone, hybrid (both fused by RRF in Qdrant);
- hybrid + rerank (20 candidates, the evidence judge's sentence scores);
- hybrid + rerank + plan and reflect (the whole ``fathom ask`` retrieval).

Then the store at 10k and 100k chunks (the corpus's chunks and vectors repeated), beside a plain
in-process baseline (our BM25 index and a numpy matrix product, fused by RRF): chunks stored per
second, and search latency p50 / p95 over the questions.

    python scripts/bench_docs.py [--sample 40] [--scale 10000 --scale 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bm25_baseline import Bm25Index

from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore, hit_of
from fathom_ray.documents.ask import retrieve
from fathom_ray.documents.ingest import add_paths
from fathom_ray.documents.models import Chunk, Document
from fathom_ray.documents.reading import files_under
from fathom_ray.documents.service import Documents
from fathom_ray.evidence.judge import EvidenceJudge
from fathom_ray.ranking import rrf_fuse
from fathom_ray.settings import DocsSettings, EmbedderSettings, QdrantSettings
from fathom_ray.text_index import IndexedDocument

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import write_section

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "tests/data/doc_questions.jsonl"
DOCS = Path("/usr/share/doc")
PACKAGES = ("sqlite3", "python3.11/html", "postgresql-doc-15/html")
EXTRA = (DOCS / "sqlite3/copyright-release.pdf",)
STAGES = (
    ("BM25 alone (sparse vectors)", {"mode": "sparse", "rerank": False, "reflect": False, "use_plan": False}),
    ("vectors alone (dense)", {"mode": "dense", "rerank": False, "reflect": False, "use_plan": False}),
    (
        "hybrid (RRF of both, one query)",
        {"mode": "hybrid", "rerank": False, "reflect": False, "use_plan": False},
    ),
    ("hybrid + rerank", {"mode": "hybrid", "rerank": True, "reflect": False, "use_plan": False}),
    (
        "hybrid + rerank + plan + reflect",
        {"mode": "hybrid", "rerank": True, "reflect": True, "use_plan": True},
    ),
)


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


def corpus(questions: list[dict[str, object]], sample: int) -> list[Path]:
    gold = {DOCS / str(g["file"]) for q in questions for g in q["gold"]}  # type: ignore[attr-defined]
    others: list[Path] = []
    for package in PACKAGES:
        files = [f for f in files_under([DOCS / package]) if f.suffix == ".html" and f not in gold]
        step = max(1, len(files) // sample)
        others += files[::step][:sample]
    return sorted(gold) + others + list(EXTRA)


def full_hits(questions: list[dict[str, object]], evidence: list[list[str]]) -> list[float]:
    hits = []
    for question, passages in zip(questions, evidence, strict=True):
        text = "\n".join(norm(p) for p in passages)
        quotes = [norm(str(g["quote"])) for g in question["gold"]]  # type: ignore[attr-defined]
        hits.append(float(all(q in text for q in quotes)))
    return hits


def mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "-"


async def quality(
    questions: list[dict[str, object]], store: QdrantDocumentStore, embedder: ThreadedEmbedder
) -> list[list[str]]:
    rows = []
    searcher = Documents(store, embedder, DocsSettings(), Path(tempfile.gettempdir()))
    judge = EvidenceJudge(embedder)
    multi = [bool(q["multi_part"]) for q in questions]
    sets = sorted({str(q["set"]) for q in questions})
    for label, options in STAGES:
        started = time.monotonic()
        evidence = []
        for q in questions:
            found = await retrieve(str(q["question"]), searcher, embedder, judge, **options)  # type: ignore[arg-type]
            evidence.append([p.chunk.text for p in found.passages])
        per_question = (time.monotonic() - started) / len(questions)
        hits = full_hits(questions, evidence)
        by_set = [mean([h for h, q in zip(hits, questions, strict=True) if q["set"] == s]) for s in sets]
        rows.append(
            [
                label,
                mean(hits),
                mean([h for h, m in zip(hits, multi, strict=True) if m]),
                mean([h for h, m in zip(hits, multi, strict=True) if not m]),
                *by_set,
                f"{per_question:.2f}",
            ]
        )
        print(rows[-1], flush=True)
    return rows


def stored_chunks(store: QdrantDocumentStore) -> list[tuple[Chunk, str, list[float]]]:
    chunks = []
    offset = None
    while True:
        points, offset = store.client.scroll(
            "bench_docs_chunks", limit=512, offset=offset, with_payload=True, with_vectors=["dense"]
        )
        for p in points:
            vector = p.vector["dense"] if isinstance(p.vector, dict) else p.vector
            hit = hit_of(p.payload or {}, 1.0)
            numbers = [float(x) for x in vector]  # type: ignore[union-attr,arg-type]
            chunks.append((hit.chunk, hit.title, numbers))
        if offset is None:
            return chunks


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def scale(
    size: int,
    base: list[tuple[Chunk, str, list[float]]],
    queries: list[tuple[str, list[float]]],
    folder: Path,
) -> list[list[str]]:
    rows = []
    repeated = [base[i % len(base)] for i in range(size)]
    # fathom-ray: the Qdrant store, one document of ``size`` chunks
    store = QdrantDocumentStore(QdrantSettings(), folder / f"scale{size}", 384, "scale")
    store.start()
    document = Document("scale", "scale", "-", "0" * 64, size, 0)
    chunks = [Chunk("scale", i, c.text, c.heading, c.start, c.end) for i, (c, _, _) in enumerate(repeated)]
    started = time.monotonic()
    store.put(document, chunks, [v for _, _, v in repeated])
    store_rate = size / (time.monotonic() - started)
    latencies = []
    for text, vector in queries:
        started = time.monotonic()
        store.search(text, vector, 8)
        latencies.append(time.monotonic() - started)
    store.close()
    store_p50, store_p95 = percentiles(latencies)

    # baseline: our BM25 index and a numpy matrix in this process, fused by RRF
    started = time.monotonic()
    index = Bm25Index().extend(IndexedDocument(str(i), "", c.text) for i, (c, _, _) in enumerate(repeated))
    matrix = np.asarray([v for _, _, v in repeated], dtype=np.float32)
    base_rate = size / (time.monotonic() - started)
    latencies = []
    for text, vector in queries:
        started = time.monotonic()
        lexical = [int(h.url) for h in index.search(text, 20)]
        dense = np.argsort(-(matrix @ np.asarray(vector, dtype=np.float32)))[:20].tolist()
        sorted(rrf_fuse([lexical, dense]).items(), key=lambda kv: -kv[1])[:8]
        latencies.append(time.monotonic() - started)
    base_p50, base_p95 = percentiles(latencies)
    rows.append(
        [
            f"{size:,}",
            "in-process BM25 + numpy (baseline)",
            f"{base_rate:,.0f}",
            f"{base_p50:.1f}",
            f"{base_p95:.1f}",
        ]
    )
    rows.append(
        [
            f"{size:,}",
            "Qdrant local, hybrid (one query)",
            f"{store_rate:,.0f}",
            f"{store_p50:.1f}",
            f"{store_p95:.1f}",
        ]
    )
    print(rows[-2:], flush=True)
    return rows


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40, help="other HTML files per package")
    parser.add_argument("--scale", type=int, action="append", help="chunk counts (default 10000, 100000)")
    parser.add_argument("--keep", type=Path, help="keep the corpus store here and reuse it on the next run")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    files = corpus(questions, args.sample)
    embedder = ThreadedEmbedder(EmbedderSettings())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = QdrantDocumentStore(QdrantSettings(), args.keep or folder / "corpus", 384, "bench_docs")
        store.start()
        asyncio.run(embedder.embed(["warm up"]))
        started = time.monotonic()
        outcomes = asyncio.run(add_paths(files, store, embedder, DocsSettings()))
        ingest_s = time.monotonic() - started
        failed = [o for o in outcomes if o.status == "failed"]
        chunk_count = store.chunk_count()
        print(f"{len(files)} files, {chunk_count} chunks, {ingest_s:.0f} s, failed: {failed}", flush=True)
        rows = asyncio.run(quality(questions, store, embedder))
        base = stored_chunks(store)
        store.close()
        query_texts = [str(q["question"]) for q in questions]
        queries = list(zip(query_texts, asyncio.run(embedder.embed(query_texts)), strict=True))
        scale_rows = [
            r for size in args.scale or [10_000, 100_000] for r in scale(size, base, queries, folder)
        ]

    sets = sorted({str(q["set"]) for q in questions})
    counts = {s: sum(q["set"] == s for q in questions) for s in sets}
    multi = sum(bool(q["multi_part"]) for q in questions)
    lines = [
        f"{len(questions)} questions of `tests/data/doc_questions.jsonl` ({multi} multi-part; "
        + ", ".join(f"{counts[s]} {s}" for s in sets)
        + ": `dev` and `held-out` are the web sets' questions with their gold quotes, whose wording the "
        "evidence judge was tuned on (dev) or not (held-out); `new` were written for this set) over "
        f"{len(files)} files of Debian documentation ({chunk_count:,} chunks): every file holding a gold "
        f"quote and {args.sample} other HTML files per package. Full hit: every gold quote of the question "
        "occurs in the evidence it gets (at most 8 passages).",
        "",
        *table(
            ["stage", "full hit", "multi-part", "single", *sets, "s per question"],
            rows,
        ),
        "",
        "Ingestion of the corpus (read, chunk, flag, embed on this CPU, store): "
        f"{chunk_count / ingest_s:.1f} chunks/s ({ingest_s:.0f} s). The store alone, at scale (the "
        "corpus's chunks and vectors repeated; search p50 / p95 over the questions, 8 results):",
        "",
        *table(["chunks", "store", "chunks stored/s", "search p50 ms", "search p95 ms"], scale_rows),
        "",
        "Qdrant's local mode is pure Python (it warns above 20,000 points): the embedded store is for a "
        "laptop's documents; at scale a Qdrant server (`FATHOM_QDRANT__URL`) serves the same calls.",
    ]
    write_section(
        "docs",
        "Documents: retrieval stages, ingestion and search",
        "python scripts/bench_docs.py",
        "\n".join(lines),
    )


if __name__ == "__main__":
    main()
