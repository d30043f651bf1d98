"""The placement plan: resources, never node names; a laptop's single node runs everything."""

from __future__ import annotations

from fathom_ray.operations.placement import BROWSER_SHARE, HEAD_RESOURCE, plan_placement

LAPTOP = {"CPU": 8.0, "memory": 1e10, HEAD_RESOURCE: 1.0}
HEAD = {"CPU": 8.0, HEAD_RESOURCE: 1.0}
GPU_WORKER = {"CPU": 8.0, "GPU": 1.0}
STAND_IN = {"CPU": 1.0, "judge_gpu": 1.0}
BROWSER = {"CPU": 1.0, "browser": 1.0}


def test_a_laptop_runs_every_part_with_nothing_missing() -> None:
    plan = plan_placement({"laptop": LAPTOP}, judge_on_gpu=False)
    assert plan["judge"].options == {}
    assert plan["browser"].options == {}
    assert plan["browser"].nodes == ()  # one pool, anywhere
    assert plan["frontier"].options == {"resources": {HEAD_RESOURCE: 0.001}}  # its head is the laptop
    assert plan["extractor"].options == {"scheduling_strategy": "SPREAD"}
    assert not any(p.missing for p in plan.values())


def test_stand_in_resources_place_the_judge_and_the_browser() -> None:
    plan = plan_placement({"h": HEAD, "j": STAND_IN, "b": BROWSER}, judge_on_gpu=False)
    assert plan["judge"].options == {"resources": {"judge_gpu": 1}}
    assert plan["browser"].options == {"resources": {"browser": BROWSER_SHARE}}
    assert plan["browser"].nodes == ("b",)
    for owner in ("frontier", "memory", "documents", "ledger"):
        assert plan[owner].where == "the head node"
    assert plan["session"].options == {"scheduling_strategy": "SPREAD"}


def test_what_a_cluster_lacks_is_said() -> None:
    plan = plan_placement({"h": HEAD, "w": {"CPU": 4.0}}, judge_on_gpu=True)
    assert plan["judge"].missing == "no node has a GPU"
    assert "browser" in plan["browser"].missing
    assert plan_placement({"h": HEAD, "g": GPU_WORKER}, judge_on_gpu=True)["judge"].missing == ""


def test_each_browser_node_gets_a_pool_of_its_own() -> None:
    nodes = {
        "h": HEAD,
        "b2": BROWSER,
        "j": {**STAND_IN, "browser": 1.0},
        "none": {"CPU": 2.0, "browser": 0.0},
    }
    plan = plan_placement(nodes, judge_on_gpu=False)
    assert plan["browser"].nodes == ("b2", "j")
    assert "(2)" in plan["browser"].where
    assert not plan["browser"].missing
