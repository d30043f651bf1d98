"""Document retrieval: full-hit rate per pipeline stage, ingestion throughput and search latency.

The corpus is built from Debian documentation on disk: every file holding a gold passage of
``tests/data/doc_questions.jsonl`` and a fixed sample of the other HTML files of the same packages,
plus a PDF. A question is a full hit when every gold quote occurs in the evidence it gets (at most
8 passages, as ``fathom ask`` would read). Stages, in one run on one store:

- BM25 alone (the sparse vectors), vectors alone, hybrid (both fused by RRF in the store, rank
  constant 1) with the BM25 side weighted 1, 2 and 5 (the default);
- hybrid pool + rerank (20 candidates fused with equal weights, ordered by the evidence judge's
  sentence scores);
- hybrid pool + rerank + plan and reflect (the whole ``fathom ask`` retrieval);
- the 20 candidates themselves, pool and weighted (are all gold quotes among them?).

Ingestion is measured twice in the same run: as before issue 32 (qdrant-client local mode, the
engine's embedder: float32 on one thread) and as now (Qdrant Edge, the ingestion's embedder: every
core, bfloat16 where the CPU has it). Then the store at 10k, 100k and 300k chunks (the corpus's
chunks and vectors repeated), local mode and Qdrant Edge each in processes of their own
(scripts/bench_docs_scale.py), beside a plain in-process baseline (our BM25 index and a numpy
matrix product, fused by RRF): chunks stored per second, open time, search latency p50 / p95 over
the questions, memory and disk.

    python scripts/bench_docs.py [--sample 40] [--scale 10000 --scale 100000 --scale 300000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bm25_baseline import Bm25Index

from fathom_ray.adapters.document_stores import DocumentStoreImpl
from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.adapters.llm_backends import ThreadedEmbedder
from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore
from fathom_ray.documents.ask import retrieve
from fathom_ray.documents.ingest import add_paths
from fathom_ray.documents.reading import files_under
from fathom_ray.documents.service import Documents
from fathom_ray.judges.evidence.judge import EvidenceJudge
from fathom_ray.research.ranking import rrf_fuse
from fathom_ray.settings import DocsSettings, EmbedderSettings, QdrantSettings, ingest_embedder, load_settings
from fathom_ray.text.text_index import IndexedDocument

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import write_section

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "tests/data/doc_questions.jsonl"
DOCS = Path("/usr/share/doc")
PACKAGES = ("sqlite3", "python3.11/html", "postgresql-doc-15/html")
EXTRA = (DOCS / "sqlite3/copyright-release.pdf",)
WEIGHT = DocsSettings().sparse_weight  # the default: what `fathom ask` fuses with
SEARCH = {"rerank": False, "reflect": False, "use_plan": False}
# (label, the BM25 side's weight in hybrid's RRF, retrieve's options)
STAGES: tuple[tuple[str, float, dict[str, object]], ...] = (
    ("BM25 alone (sparse vectors)", WEIGHT, {"mode": "sparse", **SEARCH}),
    ("vectors alone (dense)", WEIGHT, {"mode": "dense", **SEARCH}),
    ("hybrid (RRF of both, one query, equal weights)", 1.0, {"mode": "hybrid", **SEARCH}),
    ("hybrid, BM25 weighted 2", 2.0, {"mode": "hybrid", **SEARCH}),
    (f"hybrid, BM25 weighted {WEIGHT:g} (the default)", WEIGHT, {"mode": "hybrid", **SEARCH}),
    (
        "hybrid pool + rerank (20 candidates, equal weights)",
        WEIGHT,
        {"mode": "hybrid", "rerank": True, "reflect": False, "use_plan": False},
    ),
    (
        "hybrid pool + rerank + plan + reflect",
        WEIGHT,
        {"mode": "hybrid", "rerank": True, "reflect": True, "use_plan": True},
    ),
)
LOCAL_LIMIT = 100_000  # local mode is not run above this (hours of queries)
SCALE = Path(__file__).resolve().parent / "bench_docs_scale.py"


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


def row(label: str, questions: list[dict[str, object]], evidence: list[list[str]], took: str) -> list[str]:
    """Full hit over all questions, the multi-part and single ones, and each set."""
    hits = full_hits(questions, evidence)
    sets = sorted({str(q["set"]) for q in questions})

    def over(keep: list[bool]) -> str:
        return mean([h for h, k in zip(hits, keep, strict=True) if k])

    multi = [bool(q["multi_part"]) for q in questions]
    return [
        label,
        mean(hits),
        over(multi),
        over([not m for m in multi]),
        *(over([q["set"] == s for q in questions]) for s in sets),
        took,
    ]


async def quality(
    questions: list[dict[str, object]], store: EdgeDocumentStore, embedder: ThreadedEmbedder
) -> list[list[str]]:
    rows = []
    searcher = Documents(store, embedder, DocsSettings(), Path(tempfile.gettempdir()))
    judge = EvidenceJudge(embedder)
    for label, weight, options in STAGES:
        store.sparse_weight = weight
        started = time.monotonic()
        evidence = []
        for q in questions:
            found = await retrieve(str(q["question"]), searcher, embedder, judge, **options)  # type: ignore[arg-type]
            evidence.append([p.chunk.text for p in found.passages])
        per_question = (time.monotonic() - started) / len(questions)
        rows.append(row(label, questions, evidence, f"{per_question:.2f}"))
        print(rows[-1], flush=True)
    store.sparse_weight = WEIGHT
    # what a rerank gets to choose from: every gold quote among 20 passages
    vectors = await embedder.embed([str(q["question"]) for q in questions])
    pools = (("pool (equal weights)", "pool"), (f"hybrid (BM25 weighted {WEIGHT:g})", "hybrid"))
    for label, mode in pools:
        evidence = [
            [h.chunk.text for h in store.search(str(q["question"]), v, 20, mode)]
            for q, v in zip(questions, vectors, strict=True)
        ]
        rows.append(row(f"20 passages of {label}, before rerank", questions, evidence, "-"))
        print(rows[-1], flush=True)
    return rows


Base = list[tuple[str, str, list[float]]]  # each chunk's text, heading and dense vector


def corpus_points(store: EdgeDocumentStore) -> Base:
    return [(str(p["text"]), str(p["heading"]), vector) for p, vector in store.chunk_points()]


def scale_data(
    path: Path, base: Base, questions: list[dict[str, object]], embedder: ThreadedEmbedder
) -> Path:
    """What bench_docs_scale.py reads: the corpus's chunks and vectors, the questions and theirs."""
    texts = [str(q["question"]) for q in questions]
    np.savez(
        path,
        texts=json.dumps([(text, heading) for text, heading, _ in base]),
        vectors=np.asarray([v for _, _, v in base], dtype=np.float32),
        questions=json.dumps(texts),
        query_vectors=np.asarray(asyncio.run(embedder.embed(texts)), dtype=np.float32),
    )
    return path


def measured(engine: str, size: int, data: Path, folder: Path) -> tuple[dict[str, float], dict[str, float]]:
    """One engine at one size: written in a process of its own, then reopened and searched in another."""
    written = worker("ingest", engine, size, data, folder / f"{engine}{size}")
    return written, worker("query", engine, size, data, folder / f"{engine}{size}")


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def worker(step: str, engine: str, size: int, data: Path, folder: Path) -> dict[str, float]:
    """One step of bench_docs_scale.py in a process of its own."""
    command = [sys.executable, str(SCALE), step, engine, str(size), str(data), str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=3600)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def scale(size: int, base: Base, data: Path, folder: Path) -> list[list[str]]:
    """The store at ``size`` chunks: local mode and Qdrant Edge each written, then reopened and
    searched in fresh processes; beside them the in-process baseline."""
    rows = []
    engines = [("local", "qdrant-client local mode"), ("edge", "Qdrant Edge")]
    for engine, label in engines:
        if engine == "local" and size > LOCAL_LIMIT:
            rows.append([f"{size:,}", label, "not run (3 s a query at 100,000)", "", "", "", "", ""])
            continue
        written, searched = measured(engine, size, data, folder)
        rows.append(
            [
                f"{size:,}",
                label,
                f"{written['rate']:,.0f}",
                f"{searched['open_s']:.2f}",
                f"{searched['p50_ms']:.1f}",
                f"{searched['p95_ms']:.1f}",
                f"{searched['rss_mib']:,.0f}",
                f"{written['disk_mib']:,.0f}",
            ]
        )
        print(rows[-1], flush=True)
    # baseline: our BM25 index and a numpy matrix in this process, fused by RRF
    repeated = [base[i % len(base)] for i in range(size)]
    started = time.monotonic()
    index = Bm25Index().extend(IndexedDocument(str(i), "", text) for i, (text, _, _) in enumerate(repeated))
    matrix = np.asarray([v for _, _, v in repeated], dtype=np.float32)
    base_rate = size / (time.monotonic() - started)
    queries = np.load(data)
    latencies = []
    for text, vector in zip(json.loads(str(queries["questions"])), queries["query_vectors"], strict=True):
        started = time.monotonic()
        lexical = [int(h.url) for h in index.search(text, 20)]
        dense = np.argsort(-(matrix @ vector))[:20].tolist()
        sorted(rrf_fuse([lexical, dense]).items(), key=lambda kv: -kv[1])[:8]
        latencies.append(time.monotonic() - started)
    base_p50, base_p95 = percentiles(latencies)
    baseline = "in-process BM25 + numpy (baseline)"
    rows.insert(
        0, [f"{size:,}", baseline, f"{base_rate:,.0f}", "", f"{base_p50:.1f}", f"{base_p95:.1f}", "", ""]
    )
    return rows


def ingestion_line(old_s: float, new_s: float, chunks: int) -> str:
    if not new_s:
        return "Ingestion: not measured (a kept corpus store was reused)."
    return (
        "Ingestion of the corpus (read, chunk, flag, embed on this CPU, store), same run: "
        f"{chunks / new_s:.1f} chunks/s ({new_s:.0f} s) with Qdrant Edge and the ingestion's embedder "
        "(every core, bfloat16), "
        f"{chunks / old_s:.1f} chunks/s ({old_s:.0f} s) as before (local mode, float32 on one thread): "
        f"{old_s / new_s:.1f}x."
    )


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def ingest(files: list[Path], store: DocumentStoreImpl, embedder: ThreadedEmbedder) -> float:
    """Seconds to add ``files`` (the embedder loaded first)."""
    asyncio.run(embedder.embed(["warm up"]))
    started = time.monotonic()
    outcomes = asyncio.run(add_paths(files, store, embedder, DocsSettings()))
    took = time.monotonic() - started
    failed = [o for o in outcomes if o.status == "failed"]
    print(f"{len(files)} files, {store.chunk_count()} chunks, {took:.0f} s, failed: {failed}", flush=True)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=40, help="other HTML files per package")
    parser.add_argument(
        "--scale", type=int, action="append", help="chunk counts (default 10000, 100000, 300000)"
    )
    parser.add_argument("--keep", type=Path, help="keep the corpus store here and reuse it on the next run")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    files = corpus(questions, args.sample)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = EdgeDocumentStore(args.keep or folder / "corpus", 384, "bench_docs")
        store.start()
        reused = store.chunk_count() > 0
        old_s = new_s = 0.0
        if not reused:
            # before issue 32: local mode, the engine's embedder (float32, one thread)
            before = QdrantDocumentStore(QdrantSettings(), folder / "local-corpus", 384, "bench_docs")
            old_s = ingest(files, before, ThreadedEmbedder(EmbedderSettings()))
            before.close()
            # now: Qdrant Edge, the ingestion's embedder (every core, bfloat16 where native)
            new_s = ingest(files, store, ThreadedEmbedder(ingest_embedder(load_settings())))
        chunk_count = store.chunk_count()
        embedder = ThreadedEmbedder(EmbedderSettings())  # questions are embedded as `fathom ask` does
        rows = asyncio.run(quality(questions, store, embedder))
        base = corpus_points(store)
        store.close()
        data = scale_data(folder / "scale.npz", base, questions, embedder)
        sizes = args.scale or [10_000, 100_000, 300_000]
        scale_rows = [r for size in sizes for r in scale(size, base, data, folder)]

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
        "occurs in the evidence it gets (at most 8 passages; the last two rows: the 20 passages a rerank "
        "chooses from). Hybrid is RRF with rank constant 1; `fathom ask` hands its rerank the equal-weight "
        "pool and `fathom docs search` answers with BM25 weighted 5 (both chosen on the dev part).",
        "",
        *table(
            ["stage", "full hit", "multi-part", "single", *sets, "s per question"],
            rows,
        ),
        "",
        ingestion_line(old_s, new_s, chunk_count),
        "",
        "The store alone, at scale (the corpus's chunks and vectors repeated, as documents of 1,000 "
        "chunks; each store written in a process of its own, then reopened in another: open time, "
        "search p50 / p95 over the questions (hybrid, 8 results) and the memory the open store and its "
        "searches added):",
        "",
        *table(
            [
                "chunks",
                "store",
                "chunks stored/s",
                "open s",
                "search p50 ms",
                "search p95 ms",
                "memory MiB",
                "on disk MiB",
            ],
            scale_rows,
        ),
        "",
        "Qdrant Edge is the embedded store (`FATHOM_DATA_DIR/docstore`): Qdrant's own engine in this "
        "process, where local mode is pure Python and searches every point; a Qdrant server "
        "(`FATHOM_QDRANT__URL`) serves the same points and calls for a cluster.",
    ]
    write_section(
        "docs",
        "Documents: retrieval stages, ingestion and search",
        "python scripts/bench_docs.py",
        "\n".join(lines),
    )


if __name__ == "__main__":
    main()
