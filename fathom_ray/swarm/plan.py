"""The coordinator's plan: sub-goals from the goal's checklist, and the budgets split among agents.

Each researcher gets a sub-goal: one or more of the checklist's parts (the goal itself when it has
none), dealt round-robin so no agent gets two parts while another has none; when there are more
researchers than open parts, one more takes the goal whole (what links its parts: "that other
engine" is found on the first part's page). The page and token
budgets are split (a remainder goes to the first agents); the time budget is not, since the agents
run at once: each gets the swarm's time less what synthesis keeps back. A researcher's findings
are capped (``FINDINGS_PER_AGENT``) before the coordinator reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from fathom_ray.errors import InvalidRequestError
from fathom_ray.models import ChecklistItem
from fathom_ray.research.presets import Budget

MAX_AGENTS = 16
FINDINGS_PER_AGENT = 40
SYNTHESIS_SHARE = 0.1  # of the time budget, kept for the analyst, the verifier and synthesis


@dataclass(frozen=True, slots=True)
class SubGoal:
    agent: str  # "researcher-1", ...
    goal: str  # what the researcher's session researches
    item_ids: tuple[str, ...]  # the swarm checklist items it answers
    budget: Budget
    seeds: tuple[str, ...] = ()  # pages it reads first: its share of the goal's own search results


def check_agents(agents: int) -> int:
    if not 1 <= agents <= MAX_AGENTS:
        raise InvalidRequestError("agents", f"must be 1 to {MAX_AGENTS}, got {agents}")
    return agents


def split(total: int, ways: int) -> list[int]:
    """``total`` in ``ways`` near-equal whole shares, the larger ones first."""
    base, extra = divmod(total, ways)
    return [base + (1 if n < extra else 0) for n in range(ways)]


def plan(
    goal: str, checklist: Sequence[ChecklistItem], agents: int, budget: Budget, *, prefix: str = "researcher"
) -> list[SubGoal]:
    """Sub-goals for at most ``agents`` researchers over the open items of ``checklist`` (its parts
    when it has any, else the goal); fewer researchers than asked when there are fewer items or
    pages. Each sub-goal's text is its items' questions joined, so a session decomposes it again."""
    check_agents(agents)
    parts = list(checklist[1:]) if len(checklist) > 1 else list(checklist)
    items = [i for i in parts if not i.satisfied] or [ChecklistItem("Q1", goal)]
    whole = checklist[0] if len(checklist) > 1 else None
    if whole is not None and not whole.satisfied and len(items) < agents:
        items.append(whole)  # a researcher to spare takes the goal whole: its parts' links between them
    count = max(1, min(agents, len(items), budget.pages))
    groups: list[list[ChecklistItem]] = [[] for _ in range(count)]
    for n, item in enumerate(items):
        groups[n % count].append(item)
    pages, tokens = split(budget.pages, count), split(budget.tokens, count)
    time_s = budget.time_s * (1 - SYNTHESIS_SHARE)
    return [
        SubGoal(
            f"{prefix}-{n + 1}",
            " ".join(i.question for i in group),
            tuple(i.id for i in group),
            Budget(pages[n], time_s, tokens[n]),
        )
        for n, group in enumerate(groups)
    ]


def plan_hops(
    hops: Sequence[str], item_ids: Sequence[str], agents: int, budget: Budget, *, prefix: str
) -> list[SubGoal]:
    """Sub-goals for a gap-filling round: one search each (``hops``, the first ``agents`` of them),
    every one for the open items ``item_ids``, the budget split as in ``plan``."""
    check_agents(agents)
    chosen = list(hops)[: max(1, min(agents, budget.pages))]
    pages, tokens = split(budget.pages, len(chosen)), split(budget.tokens, len(chosen))
    time_s = budget.time_s * (1 - SYNTHESIS_SHARE)
    return [
        SubGoal(f"{prefix}-{n + 1}", hop, tuple(item_ids), Budget(pages[n], time_s, tokens[n]))
        for n, hop in enumerate(chosen)
    ]


def with_seeds(subs: Sequence[SubGoal], urls: Sequence[str]) -> list[SubGoal]:
    """``subs`` with ``urls`` (the goal's own search results, best first) dealt out as seeds in turn,
    none past a sub-goal's page budget: together the researchers read what one pass would."""
    dealt: list[list[str]] = [[] for _ in subs]
    turn = 0
    for url in dict.fromkeys(urls):
        open_ = [n for n in range(len(subs)) if len(dealt[n]) < subs[n].budget.pages]
        if not open_:
            break
        n = min(open_, key=lambda k: (k - turn) % len(subs))
        dealt[n].append(url)
        turn = n + 1
    return [replace(sub, seeds=tuple(seeds)) for sub, seeds in zip(subs, dealt, strict=True)]
