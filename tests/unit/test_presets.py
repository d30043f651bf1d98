from __future__ import annotations

import itertools

import pytest

from fathom_ray.errors import InvalidRequestError, UnknownPresetError
from fathom_ray.research.presets import PRESETS, get_preset

REFERENCE = {
    "glance": (1, 1, 3, 10),
    "quick": (2, 3, 5, 50),
    "focused": (3, 8, 10, 200),
    "standard": (6, 30, 25, 1_500),
    "thorough": (8, 60, 40, 3_000),
    "deep": (10, 100, 60, 5_000),
    "exhaustive": (12, 200, 80, 10_000),
}


def test_presets_match_the_reference_design() -> None:
    assert list(PRESETS) == list(REFERENCE)
    for name, (batch, pages, checklist, pool) in REFERENCE.items():
        preset = PRESETS[name]
        assert (preset.name, preset.batch_size, preset.max_pages) == (name, batch, pages)
        assert (preset.checklist_size, preset.url_pool) == (checklist, pool)


def test_budgets_grow_with_depth() -> None:
    ordered = list(PRESETS.values())
    for shallow, deep in itertools.pairwise(ordered):
        assert shallow.time_budget_s < deep.time_budget_s
        assert shallow.token_budget < deep.token_budget


def test_unknown_preset_names_the_choices() -> None:
    with pytest.raises(UnknownPresetError, match="glance, quick") as info:
        get_preset("bottomless")
    assert isinstance(info.value, InvalidRequestError)
    assert info.value.field == "depth"


def test_a_round_reads_its_batch_or_one_page_where_the_budget_is_under_two_batches() -> None:
    rounds = {name: preset.pages_per_round for name, preset in PRESETS.items()}
    assert rounds == {
        "glance": 1,
        "quick": 1,  # 3 pages < 2 x 2
        "focused": 3,
        "standard": 6,
        "thorough": 8,
        "deep": 10,
        "exhaustive": 12,
    }
