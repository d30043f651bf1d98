"""Depth presets: how wide and how long one research session may go.

The first four columns are the reference design's; the time and token
budgets are ours and are hard limits the session loop enforces.
"""

from __future__ import annotations

from dataclasses import dataclass

from fathom_ray.errors import UnknownPresetError


@dataclass(frozen=True, slots=True)
class Preset:
    """The budget of one session at one depth."""

    name: str
    batch_size: int
    max_pages: int
    checklist_size: int
    url_pool: int
    time_budget_s: float
    token_budget: int

    @property
    def pages_per_round(self) -> int:
        """The most pages one round reads: the batch, but one page where the depth's whole budget is
        under two batches (quick: 3 pages, batch 2), so each choice knows what the pages before it
        said (docs/benchmarks.md, Evaluation: quick held-out and validation gained most from it)."""
        return 1 if self.max_pages < 2 * self.batch_size else self.batch_size


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("glance", 1, 1, 3, 10, time_budget_s=120.0, token_budget=40_000),
        Preset("quick", 2, 3, 5, 50, time_budget_s=300.0, token_budget=120_000),
        Preset("focused", 3, 8, 10, 200, time_budget_s=900.0, token_budget=400_000),
        Preset("standard", 6, 30, 25, 1_500, time_budget_s=2_700.0, token_budget=1_500_000),
        Preset("thorough", 8, 60, 40, 3_000, time_budget_s=5_400.0, token_budget=3_000_000),
        Preset("deep", 10, 100, 60, 5_000, time_budget_s=10_800.0, token_budget=5_000_000),
        Preset("exhaustive", 12, 200, 80, 10_000, time_budget_s=21_600.0, token_budget=10_000_000),
    )
}

DEFAULT_DEPTH = "standard"


@dataclass(frozen=True, slots=True)
class Budget:
    """What one run may spend, hard limits: a session's (its preset's, lowered or set by the
    request), or a swarm's share of it for one researcher."""

    pages: int
    time_s: float
    tokens: int


def budget_of(
    preset: Preset, max_pages: int | None, time_budget_s: float | None, token_budget: int | None
) -> Budget:
    """The budget of a request at ``preset``: ``max_pages`` replaces the preset's page budget (a
    user's "fetch 10" is 10 at any depth); a time or token budget only lowers the preset's."""
    return Budget(
        preset.max_pages if max_pages is None else max_pages,
        preset.time_budget_s if time_budget_s is None else min(preset.time_budget_s, time_budget_s),
        preset.token_budget if token_budget is None else min(preset.token_budget, token_budget),
    )


def get_preset(name: str) -> Preset:
    """The preset called ``name``; an ``UnknownPresetError`` lists the choices."""
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownPresetError(name, tuple(PRESETS)) from None
