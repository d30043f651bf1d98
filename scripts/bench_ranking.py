"""The frontier's ranking alone, on the question sets: how often a first batch holds the evidence pages.

No LLM: for each question of the dev, held-out and validation sets the question is searched on the offline
web (as a session's goal search is), the results are embedded as a session embeds them, and a batch
of the quick preset's page budget is drawn many times from that pool with every domain unknown. The
expected share of the question's evidence pages in the batch is given for the search engine's own
top results (the single-pass baseline's choice, the baseline of the ratios) and for ranking variants:

- similarity + domain, ties broken by URL (the ranking before ties shared their rank);
- similarity + domain, equal values sharing a rank;
- similarity + domain + source rank (the rank each URL had in the list that proposed it): the
  ranking once the goal's own results run out;
- every round today: the goal's own results first (``first``), which is the search engine's
  order by construction.

    .venv/bin/python scripts/bench_ranking.py [--draws 500]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from bench_report import table, write_section

from fathom_ray.adapters.sentence_embedder import SentenceEmbedder
from fathom_ray.cli.web import run_search
from fathom_ray.models import Candidate, CandidateOrigin
from fathom_ray.research.frontier import rank_and_sample
from fathom_ray.research.presets import get_preset
from fathom_ray.research.ranking import rrf_fuse, sample_without_replacement
from fathom_ray.settings import load_settings
from fathom_ray.testweb.server import TestWeb
from fathom_ray.web.network import NetworkMap, settings_for

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SETS = {
    "dev": DATA / "dev_questions.jsonl",
    "held-out": DATA / "heldout_questions.jsonl",
    "validation": DATA / "validation_questions.jsonl",
}
Pool = tuple[set[str], list[Candidate], dict[str, float]]
Pick = Callable[[list[Candidate], dict[str, float], int, float, np.random.Generator], list[str]]


def search_top(
    pool: list[Candidate], _: dict[str, float], n: int, __: float, ___: np.random.Generator
) -> list[str]:
    return [c.url for c in sorted(pool, key=lambda c: c.rank)[:n]]


def url_tie_break(
    pool: list[Candidate], similarity: dict[str, float], n: int, temperature: float, rng: np.random.Generator
) -> list[str]:
    by_similarity = sorted(pool, key=lambda c: (-similarity[c.url], c.url))
    by_domain = sorted(pool, key=lambda c: c.url)  # every domain unknown (0.5): a tie, broken by URL
    fused = rrf_fuse([[c.url for c in by_similarity], [c.url for c in by_domain]])
    urls = [c.url for c in pool]
    return sample_without_replacement(urls, [fused[u] * 1000.0 for u in urls], n, temperature, rng)


def shared_ties(
    pool: list[Candidate], similarity: dict[str, float], n: int, temperature: float, rng: np.random.Generator
) -> list[str]:
    unranked = [Candidate(c.url, c.origin, c.title, c.snippet) for c in pool]  # no source rank
    return today(unranked, similarity, n, temperature, rng)


def today(
    pool: list[Candidate], similarity: dict[str, float], n: int, temperature: float, rng: np.random.Generator
) -> list[str]:
    batch = rank_and_sample(
        pool, similarity=similarity, domain_quality={}, n=n, temperature=temperature, rng=rng
    )
    return [c.url for c in batch]


def first_round(
    pool: list[Candidate], similarity: dict[str, float], n: int, temperature: float, rng: np.random.Generator
) -> list[str]:
    goal_order = [c.url for c in sorted(pool, key=lambda c: c.rank)]
    batch = rank_and_sample(
        pool,
        similarity=similarity,
        domain_quality={},
        n=n,
        temperature=temperature,
        rng=rng,
        first=goal_order,
        lead_slots=n,
    )
    return [c.url for c in batch]


VARIANTS: dict[str, Pick] = {
    "search engine's top results (baseline)": search_top,
    "similarity + domain, ties broken by URL": url_tie_break,
    "similarity + domain, ties shared": shared_ties,
    "similarity + domain + source rank (once the goal's results run out)": today,
    "every round: the goal's own results first (today)": first_round,
}


def pools(path: Path, limit: int, embedder: SentenceEmbedder, web: TestWeb) -> list[Pool]:
    """Per question: its evidence URLs, the goal search's candidates and their similarity to the goal."""
    questions = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    settings = load_settings()
    found = []
    network = NetworkMap.offline(web.port)
    for question in questions:
        results = run_search(settings_for(settings, network), network, question["question"], limit)
        pool = [
            Candidate(r.url, CandidateOrigin.SEARCH, r.title, r.snippet, r.query, r.rank) for r in results
        ]
        texts = [f"{c.title} {c.url} {c.snippet}".strip() for c in pool]
        vectors = np.array(embedder.embed(texts))
        goal = np.array(embedder.embed([question["question"]])[0])
        similarity = dict(zip((c.url for c in pool), (vectors @ goal).tolist(), strict=True))
        found.append((set(question["evidence_urls"]), pool, similarity))
    return found


def expected_recall(
    questions: Sequence[tuple[set[str], list[Candidate], dict[str, float]]],
    pick: Pick,
    n: int,
    temperature: float,
    draws: int,
) -> float:
    shares = []
    for evidence, pool, similarity in questions:
        hits = sum(
            len(evidence & set(pick(pool, similarity, n, temperature, np.random.default_rng(draw))))
            for draw in range(draws)
        )
        shares.append(hits / (len(evidence) * draws))
    return float(np.mean(shares))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    settings = load_settings()
    preset = get_preset("quick")
    temperature = settings.research.temperature
    embedder = SentenceEmbedder()
    embedder.start()
    with TestWeb() as web:
        sets = {name: pools(path, settings.search.max_results, embedder, web) for name, path in SETS.items()}
    rows: list[list[object]] = []
    base: dict[tuple[str, float], float] = {}
    for name, pick in VARIANTS.items():
        cells: list[object] = [name]
        for set_name, questions in sets.items():
            for t in dict.fromkeys((temperature, 0.0)):
                recall = expected_recall(questions, pick, preset.max_pages, t, args.draws)
                base.setdefault((set_name, t), recall)
                cells += [f"{recall:.3f}", f"{recall / base[set_name, t]:.2f}" if base[set_name, t] else "-"]
        rows.append(cells)
    headers = ["ranking"] + [h for s, t in base for h in (f"{s}, T={t:g}", "ratio")]
    counts = ", ".join(f"{len(q)} {name}" for name, q in sets.items())
    body = "\n".join(
        [
            f"The questions of each set ({counts}), each searched on the offline web "
            f"({settings.search.max_results} results), a batch of {preset.max_pages} pages (the quick "
            f"budget) drawn {args.draws} times per question with every domain unknown; the expected "
            "share of the question's evidence pages in the batch, at the configured softmax temperature "
            f"({temperature:g}) and at 0 (always the best). No LLM: checklist questions, links "
            "and later rounds are left out, so this isolates the ranking the rounds start from. The "
            "first round reads the goal's own results (seeds aside) and later rounds the page choice's "
            "best while the goal's results last (research/page_choice.py), so a session holds what the "
            "search engine's top results hold; the fused ranking orders what comes once those run out.",
            "",
            table(headers, rows),
        ]
    )
    write_section(
        "ranking", "Ranking: evidence pages in a first batch", "python scripts/bench_ranking.py", body
    )


if __name__ == "__main__":
    main()
