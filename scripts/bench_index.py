"""The offline web's search index: tantivy and bm25s beside our former bm25.py, on the same web.

    .venv/bin/python scripts/bench_index.py

Reads every page of the offline web's sites once (title and visible text, as the index sees
them), then for each engine: builds its index from those documents (build s), writes it, and in a
fresh process opens it (load s), runs every question of the dev, held-out and validation sets as
a query for 10 results with snippets (query p50/p95), and reports the process's resident memory
after the queries, the index's size on disk and the share of the questions' evidence pages among
the 10 results (evidence@10, how good the engine is as a search engine for these questions).
Writes docs/benchmarks.md "Offline web".
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from bench_report import table, write_section

from fathom_ray.testweb.index import site_documents
from fathom_ray.testweb.sites import SITES
from fathom_ray.text import text_index
from fathom_ray.text.text_index import IndexedDocument, TextIndex

ROOT = Path(__file__).resolve().parents[1]
SETS = ("dev_questions", "heldout_questions", "validation_questions")
ENGINES = ("bm25.py (before)", "bm25s", "tantivy-pages (before)", "tantivy")
LIMIT = 10


def questions() -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for name in SETS:
        path = ROOT / "tests" / "data" / f"{name}.jsonl"
        if path.is_file():
            for line in filter(str.strip, path.read_text(encoding="utf-8").splitlines()):
                item = json.loads(line)
                found.append((item["question"], item["evidence_urls"]))
    return found


def build(engine: str, documents: list[IndexedDocument], folder: Path) -> None:
    if engine == "tantivy":
        TextIndex.build(folder, documents)
    elif engine.startswith("tantivy-pages"):  # each page one passage: ranked by the whole page, as before
        whole = text_index.passages
        text_index.passages = lambda text: [text]
        try:
            TextIndex.build(folder, documents)
        finally:
            text_index.passages = whole
    elif engine == "bm25s":
        import bm25s  # noqa: PLC0415 (only this engine needs it)
        import Stemmer  # noqa: PLC0415

        stemmer = Stemmer.Stemmer("english")
        texts = [f"{d.title} {d.title} {d.text}" for d in documents]
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False))
        retriever.save(str(folder))
        heads = [[d.url, d.title, d.text[:20_000]] for d in documents]
        (folder / "pages.json").write_text(json.dumps(heads), encoding="utf-8")
    else:
        from bm25_baseline import Bm25Index  # noqa: PLC0415

        folder.mkdir(parents=True, exist_ok=True)
        Bm25Index().extend(documents).save(folder / "index.json")


def child(engine: str, folder: Path, queries: list[str]) -> dict[str, Any]:
    """Open the index in this (fresh) process and query it: load s, per-query s, RSS, results."""
    start = time.perf_counter()
    search = _opened(engine, folder)
    load_s = time.perf_counter() - start
    timings: list[float] = []
    results: list[list[str]] = []
    for query in queries:
        begin = time.perf_counter()
        results.append(search(query))
        timings.append(time.perf_counter() - begin)
    rss = psutil.Process().memory_info().rss
    return {"load_s": load_s, "query_s": timings, "rss": rss, "results": results}


def _opened(engine: str, folder: Path) -> Any:
    if engine.startswith("tantivy"):
        index = TextIndex.open(folder)
        return lambda q: [h.url for h in index.search(q, LIMIT)]
    if engine == "bm25s":
        import bm25s  # noqa: PLC0415
        import Stemmer  # noqa: PLC0415

        from fathom_ray.text.term_match import snippet, tokenize  # noqa: PLC0415

        stemmer = Stemmer.Stemmer("english")
        retriever = bm25s.BM25.load(str(folder), mmap=True)
        pages = json.loads((folder / "pages.json").read_text(encoding="utf-8"))

        def search(query: str) -> list[str]:
            tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
            if not tokens.vocab:
                return []
            ids, _ = retriever.retrieve(tokens, k=min(LIMIT, len(pages)), show_progress=False)
            terms = set(tokenize(query))
            hits = [
                (pages[i][0], snippet(pages[i][2], terms)) for i in ids[0]
            ]  # snippets, as the others make
            return [url for url, _ in hits]

        return search
    from bm25_baseline import Bm25Index  # noqa: PLC0415

    baseline = Bm25Index.load(folder / "index.json")
    return lambda q: [h.url for h in baseline.search(q, LIMIT)]


def web_child(queries: list[str]) -> dict[str, Any]:
    """The offline web as tests and sessions run it: start, every query searched and one page of each
    site fetched through its HTTP server; the process's resident memory after."""
    import httpx  # noqa: PLC0415

    from fathom_ray.testweb.server import TestWeb  # noqa: PLC0415

    start = time.perf_counter()
    with TestWeb() as web, httpx.Client(timeout=30) as client:
        start_s = time.perf_counter() - start
        web.index  # noqa: B018 (it loads beside whatever starts next: the time until a search can run)
        ready_s = time.perf_counter() - start
        base = f"http://127.0.0.1:{web.port}"
        for query in queries:
            client.get(
                f"{base}/search", params={"q": query, "format": "json"}, headers={"Host": "search.test"}
            )
        for site in SITES:
            url, _ = next(iter(site.pages()))
            path = url.removeprefix(f"http://{site.host}")
            client.get(f"{base}{path}", headers={"Host": site.host})
        return {"start_s": start_s, "ready_s": ready_s, "rss": psutil.Process().memory_info().rss}


def folder_mib(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def measure(engine: str, documents: list[IndexedDocument], queries: list[str], work: Path) -> dict[str, Any]:
    folder = work / engine.split(maxsplit=1)[0]
    start = time.perf_counter()
    build(engine, documents, folder)
    build_s = time.perf_counter() - start
    args = [sys.executable, __file__, "--child", engine, str(folder), str(work / "queries.json")]
    report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {**report, "build_s": build_s, "disk_mib": folder_mib(folder)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "FOLDER", "QUERIES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        engine, folder, queries = args.child
        asked_queries = json.loads(Path(queries).read_text())
        if engine == "web":
            print(json.dumps(web_child(asked_queries)))
        else:
            print(json.dumps(child(engine, Path(folder), asked_queries)))
        return
    asked = questions()
    start = time.perf_counter()
    documents = list(site_documents(SITES))
    read_s = time.perf_counter() - start
    megabytes = sum(len(d.title) + len(d.text) for d in documents) / 2**20
    with tempfile.TemporaryDirectory(prefix="fathom-bench-index-") as tmp:
        work = Path(tmp)
        (work / "queries.json").write_text(json.dumps([q for q, _ in asked]))
        rows = []
        for engine in ENGINES:
            got = measure(engine, documents, [q for q, _ in asked], work)
            recall = statistics.mean(
                len(set(urls) & set(found)) / len(urls)
                for (_, urls), found in zip(asked, got["results"], strict=True)
            )
            times = sorted(got["query_s"])
            rows.append(
                [
                    engine,
                    f"{got['build_s']:.1f}",
                    f"{got['load_s']:.3f}",
                    f"{statistics.median(times) * 1000:.1f}",
                    f"{times[int(0.95 * (len(times) - 1))] * 1000:.1f}",
                    f"{got['rss'] / 2**20:.0f}",
                    f"{got['disk_mib']:.0f}",
                    f"{recall:.3f}",
                ]
            )
        web_args = [sys.executable, __file__, "--child", "web", "-", str(work / "queries.json")]
        served = json.loads(subprocess.run(web_args, check=True, capture_output=True, text=True).stdout)
    body = (
        f"{len(SITES)} sites, {len(documents)} pages, {megabytes:.0f} MB of title and visible text "
        f"(read and cleaned once in {read_s:.0f} s, shared by every engine). Each engine builds its "
        f"index from those pages, then a fresh process opens it and runs the {len(asked)} questions of "
        "the dev, held-out and validation sets as queries (10 results each, with snippets). RSS: the "
        "querying process's resident memory after the queries (Python and the engine's imports "
        "included). evidence@10: the share of each question's evidence pages among its 10 results. "
        "tantivy (the engine in use) indexes each page as passages of about 150 words, each with the "
        "page's title and its host name's words, and ranks a page by its best passage; tantivy-pages "
        "(before) is the same index with each page one passage, ranked as a whole (as before passages, "
        "but with the host name's words).\n\n"
        + table(
            [
                "engine",
                "build s",
                "load s",
                "query p50 ms",
                "query p95 ms",
                "RSS MiB",
                "disk MiB",
                "evidence@10",
            ],
            rows,
        )
        + f"\n\nThe offline web itself (its HTTP server with the tantivy index, as tests and sessions run "
        f"it) listens {served['start_s']:.2f} s after it is started and can search "
        f"{served['ready_s']:.2f} s after (its index loads beside whatever starts next), once set-up has "
        "built the index; it holds "
        f"{served['rss'] / 2**20:.0f} MiB resident after serving every query above and a page of each "
        "site (the limit is 1 GiB)."
    )
    write_section(
        "index", "Offline web: sites, pages and the search index", "python scripts/bench_index.py", body
    )


if __name__ == "__main__":
    main()
