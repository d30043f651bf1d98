"""Check a question file against the offline web's pages as files (no server needed).

    .venv/bin/python scripts/check_questions.py tests/data/dev_questions.jsonl [--show URL]

Every evidence quote must occur, whitespace-normalised, in the main text that extraction takes from
its page; every evidence URL must be a page of one of the offline web's sites. ``--show URL`` prints
that page's main text (what a quote is checked against) and exits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from fathom_ray.evaluation.questions import parse_questions
from fathom_ray.testweb.sites import read_body, site_for
from fathom_ray.web.extraction import extract_main_text


def main_text(url: str) -> str | None:
    """The page's main text as a session would see it, or None when no site serves ``url``."""
    parts = urlsplit(url)
    site = site_for(parts.hostname or "")
    file = site.file_for(parts.path) if site else None
    if file is None:
        return None
    return " ".join(extract_main_text(read_body(file).decode("utf-8", "replace"), url).text.split())


def problems_in(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    _, problems = parse_questions(lines)
    pages: dict[str, str | None] = {}
    for line in filter(str.strip, lines):
        item = json.loads(line)
        if {e["url"] for e in item.get("evidence", [])} != set(item.get("evidence_urls", [])):
            problems.append(f"{item['id']}: evidence URLs and evidence_urls differ")
        for evidence in item.get("evidence", []):
            url = evidence["url"]
            if url not in pages:
                pages[url] = main_text(url)
            text = pages[url]
            if text is None:
                problems.append(f"{item['id']}: no page at {url}")
            elif " ".join(evidence["quote"].split()) not in text:
                problems.append(f"{item['id']}: quote not in {url}: {evidence['quote']!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, nargs="?")
    parser.add_argument("--show", metavar="URL")
    args = parser.parse_args()
    if args.show:
        print(main_text(args.show) or f"no page at {args.show}")
        return 0
    problems = problems_in(args.file)
    print("\n".join(problems) or f"{args.file}: every quote is on its page")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
