"""Where each part of the engine runs on a cluster, by the resources its nodes offer (no Ray here).

The plan names resources, never nodes, so the same settings run on a laptop (one node offering
everything) and on a cluster:

- the judge on a node that offers a GPU when it runs a model on one, else on a node offering
  ``judge_gpu`` (the stand-in a CPU cluster or a test gives a node), else anywhere;
- one browser pool per node offering ``browser`` (where Chromium is installed), kept to its node
  while it lives and moved to another browser node when it is lost; one pool anywhere when no
  node offers it;
- extractor pools and sessions spread over the nodes;
- the frontier, source memory, document store and task ledger, each one owner of its store, on
  the head node (Ray's ``node:__internal_head__`` resource), where their files are.

``plan_placement`` answers the actor options of each part and, for ``fathom doctor --address``,
where it will go and what the cluster lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JUDGE_RESOURCE = "judge_gpu"
BROWSER_RESOURCE = "browser"
HEAD_RESOURCE = "node:__internal_head__"
HEAD_SHARE = 0.001  # a sliver: the head's marker resource is 1 in all, and every owner shares it
BROWSER_SHARE = 0.001  # a sliver too: every engine on the cluster (Serve's, a batch job's) has its pools
HEAD_PARTS = ("frontier", "memory", "documents", "ledger")
SPREAD_PARTS = ("extractor", "session")
Node = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class PartPlacement:
    part: str
    options: dict[str, Any] = field(default_factory=dict)  # extra Ray actor options
    where: str = "any node"
    missing: str = ""  # what the cluster lacks for the plan, said by ``fathom doctor``
    nodes: tuple[str, ...] = ()  # one actor per node, by node id (the browser pools); () for one anywhere


def plan_placement(nodes: Mapping[str, Node], *, judge_on_gpu: bool) -> dict[str, PartPlacement]:
    """Each part's placement on a cluster whose alive nodes offer ``nodes`` (node id: resource totals)."""
    offered = {name for node in nodes.values() for name, amount in node.items() if amount > 0}
    several = len(nodes) > 1
    browser_nodes = tuple(sorted(i for i, node in nodes.items() if node.get(BROWSER_RESOURCE, 0) > 0))
    plan = {
        "judge": _judge(offered, judge_on_gpu, several),
        "embedder": PartPlacement("embedder", where="a GPU node" if judge_on_gpu else "any node"),
        "browser": _browser(browser_nodes, several),
    }
    for part in SPREAD_PARTS:
        plan[part] = PartPlacement(part, {"scheduling_strategy": "SPREAD"}, "spread over the nodes")
    head = {"resources": {HEAD_RESOURCE: HEAD_SHARE}} if HEAD_RESOURCE in offered else {}
    for part in HEAD_PARTS:
        plan[part] = PartPlacement(part, dict(head), "the head node" if head else "any node")
    return plan


def _judge(offered: set[str], on_gpu: bool, several: bool) -> PartPlacement:
    if on_gpu:  # the judge actor asks for num_gpus=1 itself
        return PartPlacement(
            "judge", where="a GPU node", missing="" if "GPU" in offered else "no node has a GPU"
        )
    if JUDGE_RESOURCE in offered:
        return PartPlacement(
            "judge", {"resources": {JUDGE_RESOURCE: 1}}, f"the node offering {JUDGE_RESOURCE}"
        )
    missing = f"no node offers {JUDGE_RESOURCE}: the judge goes to any node" if several else ""
    return PartPlacement("judge", missing=missing)


def _browser(browser_nodes: tuple[str, ...], several: bool) -> PartPlacement:
    if browser_nodes:
        options = {"resources": {BROWSER_RESOURCE: BROWSER_SHARE}}
        count = len(browser_nodes)
        where = f"one pool on each node offering {BROWSER_RESOURCE} ({count})"
        return PartPlacement("browser", options, where, nodes=browser_nodes)
    missing = f"no node offers {BROWSER_RESOURCE}: the browser pool goes to any node" if several else ""
    return PartPlacement("browser", missing=missing)
