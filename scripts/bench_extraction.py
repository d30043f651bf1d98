"""Extraction quality and speed on the article-extraction benchmark.

Quality: ours (``extract_main_text``) beside plain ``trafilatura.extract`` and
plain selectolax body text, scored with the benchmark's shingle method.
Speed: ours beside plain trafilatura in one process, best of ``--repeat``
passes over all pages (the overhead ratio).

    .venv/bin/python scripts/bench_extraction.py [--data DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import trafilatura
from bench_report import table, write_section
from selectolax.lexbor import LexborHTMLParser

from fathom_ray.web.extraction import extract_main_text
from fathom_ray.web.extraction_score import BenchmarkScore, score_all, score_page

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "article-extraction-benchmark"
Extractor = Callable[[str, str], str]


def load(data: Path) -> list[tuple[str, str, str]]:
    truth = json.loads((data / "ground-truth.json").read_text())
    return [
        (
            gzip.decompress((data / "html" / f"{key}.html.gz").read_bytes()).decode("utf-8", "replace"),
            item["url"],
            item["articleBody"],
        )
        for key, item in sorted(truth.items())
    ]


def ours(html: str, url: str) -> str:
    return extract_main_text(html, url).text


def plain_trafilatura(html: str, url: str) -> str:
    return trafilatura.extract(html, url=url) or ""


def plain_selectolax(html: str, url: str) -> str:
    body = LexborHTMLParser(html).body
    return body.text(separator="\n") if body else ""


def quality(pages: list[tuple[str, str, str]], extractor: Extractor) -> BenchmarkScore:
    return score_all(score_page(extractor(html, url), truth) for html, url, truth in pages)


def seconds(pages: list[tuple[str, str, str]], extractor: Extractor, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for html, url, _ in pages:
            extractor(html, url)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pages = load(args.data)
    methods = {
        "fathom-ray extract_main_text": ours,
        "plain trafilatura.extract": plain_trafilatura,
        "plain selectolax body text": plain_selectolax,
    }
    scores = {name: quality(pages, fn) for name, fn in methods.items()}
    quality_rows = [
        (
            name,
            f"{s.precision:.4f}",
            f"{s.recall:.4f}",
            f"**{s.f1:.4f}**" if name.startswith("fathom") else f"{s.f1:.4f}",
        )
        for name, s in scores.items()
    ]
    baseline = seconds(pages, plain_trafilatura, args.repeat)
    mine = seconds(pages, ours, args.repeat)
    speed_rows = [
        ("plain trafilatura.extract (baseline)", f"{len(pages) / baseline:.1f}", "1.00"),
        (
            "fathom-ray extract_main_text (text, links, metadata)",
            f"{len(pages) / mine:.1f}",
            f"{mine / baseline:.2f}",
        ),
    ]
    body = (
        f"Quality on {len(pages)} pages of `shared/data/article-extraction-benchmark` "
        "(4-gram shingles; precision and recall averaged over pages, F1 of the means). "
        "Published for reference: trafilatura 2.0.0 0.958, rs_trafilatura 0.970.\n\n"
        + table(("extractor", "precision", "recall", "F1"), quality_rows)
        + f"\n\nSpeed in one process, best of {args.repeat} passes over the same pages:\n\n"
        + table(("extractor", "pages/s", "time ratio to baseline"), speed_rows)
    )
    write_section("extraction", "Extraction", "python scripts/bench_extraction.py", body)
    return 0 if scores["fathom-ray extract_main_text"].f1 >= scores["plain trafilatura.extract"].f1 else 1


if __name__ == "__main__":
    sys.exit(main())
