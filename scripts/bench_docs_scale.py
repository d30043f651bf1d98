"""One document store at one size, for scripts/bench_docs.py, in a process of its own so memory and
start-up are the store's: ``ingest`` writes the repeated corpus and says chunks/s and the size on
disk; ``query`` opens the written store and says the open time, search p50 / p95 (hybrid, 8 results)
and the memory the open store and its searches added.

    python scripts/bench_docs_scale.py ingest|query edge|local SIZE DATA.npz FOLDER
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from fathom_ray.adapters.document_stores import DocumentStoreImpl
from fathom_ray.adapters.edge_documents import EdgeDocumentStore
from fathom_ray.adapters.qdrant_documents import QdrantDocumentStore
from fathom_ray.documents.models import Chunk, Document
from fathom_ray.settings import QdrantSettings

DOCUMENT_CHUNKS = 1_000  # the repeated corpus is stored as documents of this many chunks


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def disk_mib(folder: Path) -> float:
    return sum(f.stat().st_blocks * 512 for f in folder.rglob("*") if f.is_file()) / 2**20  # used, not sparse


def open_store(engine: str, folder: Path) -> DocumentStoreImpl:
    if engine == "edge":
        return EdgeDocumentStore(folder, 384, "scale")
    return QdrantDocumentStore(QdrantSettings(), folder, 384, "scale")


def ingest(engine: str, size: int, data: np.lib.npyio.NpzFile, folder: Path) -> dict[str, float]:
    texts = json.loads(str(data["texts"]))
    vectors = data["vectors"]
    store = open_store(engine, folder)
    store.start()
    started = time.monotonic()
    for first in range(0, size, DOCUMENT_CHUNKS):
        count = min(DOCUMENT_CHUNKS, size - first)
        name = f"part{first // DOCUMENT_CHUNKS}"
        chunks, rows = [], []
        for i in range(first, first + count):
            text, heading = texts[i % len(texts)]
            chunks.append(Chunk(name, i - first, text, heading, 0, len(text)))
            rows.append(vectors[i % len(texts)].tolist())
        store.put(Document(name, name, "-", "0" * 64, count, 0), chunks, rows)
    store.close()
    took = time.monotonic() - started
    return {"rate": size / took, "disk_mib": disk_mib(folder)}


def query(engine: str, data: np.lib.npyio.NpzFile, folder: Path) -> dict[str, float]:
    questions = json.loads(str(data["questions"]))
    query_vectors = data["query_vectors"]
    before = rss_mib()
    store = open_store(engine, folder)
    started = time.monotonic()
    store.start()
    opened = time.monotonic() - started
    latencies = []
    for text, vector in zip(questions, query_vectors, strict=True):
        started = time.monotonic()
        store.search(text, vector.tolist(), 8)
        latencies.append(time.monotonic() - started)
    ordered = sorted(latencies)
    grown = rss_mib() - before
    store.close()
    return {
        "open_s": opened,
        "p50_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
        "rss_mib": grown,
    }


def main() -> None:
    step, engine, size, data_path, folder = sys.argv[1:6]
    data = np.load(data_path)
    if step == "ingest":
        print(json.dumps(ingest(engine, int(size), data, Path(folder))))
    else:
        print(json.dumps(query(engine, data, Path(folder))))


if __name__ == "__main__":
    main()
