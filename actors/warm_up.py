"""Warming a kept engine: each part makes its first call once, before a command needs it.

A part's first call pays for what its later calls reuse: the extractor's worker process and its
modules, a Chromium page, the model's first inference, the evidence judge's first analysis. A
command that attaches to an engine kept for it (`fathom up`, `fathom serve`) should not pay that.
Nothing is stored, nothing is fetched from the internet (on the offline web, one of its pages),
and a judge that costs tokens is not called.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit

import ray
from ray.exceptions import GetTimeoutError, RayError

from actors.engine import Engine
from fathom_ray.models import ChecklistItem, ExtractedPage, FetchResult, FetchStatus
from fathom_ray.web.network import OFFLINE_SEARCH_URL

logger = logging.getLogger(__name__)

WARM_S = 60.0
RANKED = 32  # candidates a ranking embeds at once, about
GOAL = "When was the lighthouse on the harbour wall built, and who designed it?"
TEXT = (
    "The lighthouse on the harbour wall was built in 1874. It was designed by the engineer "
    "Mary Alden, who also drew the plans of the pier. Its lamp was replaced in 1921."
)
PAGE = (
    "<html><head><title>Lighthouse</title></head>"
    f"<body><main><h1>Lighthouse</h1><p>{TEXT}</p></main></body></html>"
)
URL = "http://warm-up.invalid/lighthouse"


def warm_up(engine: Engine, timeout_s: float = WARM_S) -> float:
    """One small call through each part at once; the seconds they took. A part that fails or is
    slow is logged and left: warming is never a reason for an engine not to serve."""
    started = time.monotonic()
    try:
        ray.get(_calls(engine), timeout=timeout_s)
    except (GetTimeoutError, RayError) as e:
        logger.warning("warming the engine: %s", e)
    return time.monotonic() - started


def _calls(engine: Engine) -> list[Any]:
    handles = engine.handles
    fetched = FetchResult(URL, FetchStatus.OK, URL, 200, "text/html", body=PAGE)
    calls = [
        handles.extractor.extract.remote(fetched),
        handles.embedder.embed.remote([GOAL, TEXT]),
        # a ranking's batch: the model's first batches of each size are its slowest
        handles.embedder.embed.remote([f"{GOAL} {n}" for n in range(RANKED)]),
        handles.memory.domain_qualities.remote([urlsplit(URL).hostname]),
    ]
    for pool in engine.browser_pools or (handles.browser,):
        calls.append(pool.pdf.remote(PAGE))  # a Chromium page, of a string: nothing is fetched
        if engine.network.exclusive:  # the offline web: its own search engine's page, fetched
            calls.append(pool.fetch.remote(OFFLINE_SEARCH_URL + "/"))
    if engine.settings.llm.backend == "evidence":  # a generative judge's call costs tokens: not warmed
        checklist = [
            ChecklistItem("q1", "When was the lighthouse built?"),
            ChecklistItem("q2", "Who designed it?"),
        ]
        calls.append(
            handles.judge.analyse_page.remote(GOAL, checklist, [], ExtractedPage(URL, "Lighthouse", TEXT))
        )
    return calls
