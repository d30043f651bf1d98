"""One document store at one size, for scripts/bench_docs.py, in a process of its own so memory and
start-up are the store's: ``ingest`` writes the repeated corpus and says chunks/s and the size on
disk; ``query`` opens the written store and says the open time, search p50 / p95 (hybrid, 8 results)
and the memory the open store and its searches added.

    python scripts/bench_docs_scale.py ingest|query edge|local|lance SIZE DATA.npz FOLDER

``lance`` is LanceDB (not a dependency of the project: ``pip install lancedb`` to run it), with
the same chunks and vectors, its own full-text index and its hybrid query (RRF).
"""

from __future__ import annotations

import importlib
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


def lance_ingest(size: int, data: np.lib.npyio.NpzFile, folder: Path) -> dict[str, float]:
    lancedb = importlib.import_module("lancedb")
    arrow = importlib.import_module("pyarrow")
    texts = json.loads(str(data["texts"]))
    vectors = data["vectors"]
    db = lancedb.connect(str(folder))
    table = None
    started = time.monotonic()
    for first in range(0, size, DOCUMENT_CHUNKS):
        count = min(DOCUMENT_CHUNKS, size - first)
        name = f"part{first // DOCUMENT_CHUNKS}"
        rows = [i % len(texts) for i in range(first, first + count)]
        batch = arrow.table(
            {
                "document_id": [name] * count,
                "index": list(range(count)),
                "text": [texts[i][0] for i in rows],
                "vector": arrow.FixedSizeListArray.from_arrays(arrow.array(vectors[rows].ravel()), 384),
            }
        )
        if table is None:
            table = db.create_table("chunks", data=batch)
        else:
            table.delete(f"document_id = '{name}'")  # a document's old chunks go, as in our stores
            table.add(batch)
    assert table is not None
    table.create_fts_index("text", replace=True)
    took = time.monotonic() - started
    return {"rate": size / took, "disk_mib": disk_mib(folder)}


def lance_query(data: np.lib.npyio.NpzFile, folder: Path) -> dict[str, float]:
    lancedb = importlib.import_module("lancedb")
    questions = json.loads(str(data["questions"]))
    before = rss_mib()
    started = time.monotonic()
    table = lancedb.connect(str(folder)).open_table("chunks")
    opened = time.monotonic() - started
    latencies = []
    for text, vector in zip(questions, data["query_vectors"], strict=True):
        started = time.monotonic()
        table.search(query_type="hybrid").vector(vector.tolist()).text(text).limit(8).to_list()
        latencies.append(time.monotonic() - started)
    ordered = sorted(latencies)
    return {
        "open_s": opened,
        "p50_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
        "rss_mib": rss_mib() - before,
    }


def main() -> None:
    step, engine, size, data_path, folder = sys.argv[1:6]
    data = np.load(data_path)
    if engine == "lance":
        done = (
            lance_ingest(int(size), data, Path(folder))
            if step == "ingest"
            else lance_query(data, Path(folder))
        )
        print(json.dumps(done))
    elif step == "ingest":
        print(json.dumps(ingest(engine, int(size), data, Path(folder))))
    else:
        print(json.dumps(query(engine, data, Path(folder))))


if __name__ == "__main__":
    main()
