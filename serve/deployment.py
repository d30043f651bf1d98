"""The Ray Serve deployment: the one module that imports ray.serve.

The app is built on each replica from the engine it is bound to (the shared
actors' handles), so the same code serves a laptop and a cluster.
"""

from __future__ import annotations

from typing import Any

from ray import serve
from ray.serve import Application

from actors.directory import Remote, RemoteJudge
from actors.engine import Engine, start_engine
from fathom_ray.documents.conversations import Conversations
from fathom_ray.settings import load_settings
from fathom_ray.web.network import NetworkMap
from serve.app import build_app
from serve.documents import DocumentsApi
from serve.ray_sessions import RaySessionManager

ACTOR_PREFIX = "fathom-"
# The replica spawns an actor per session for as long as it serves. Ray's threads each take a glibc
# malloc arena, and the arenas fragment: an actor spawned and ended cost the spawner 0.087 MiB of
# resident memory with the default arenas, 0.022 MiB with two (320 spawned, measured).
REPLICA_ENV = {"MALLOC_ARENA_MAX": "2"}


@serve.ingress()
class FathomApi:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __serve_build_asgi_app__(self) -> Any:
        settings = self._engine.settings
        handles = self._engine.handles
        documents = DocumentsApi(
            Remote(handles.documents),
            Remote(handles.embedder),
            RemoteJudge(handles.judge),
            settings.docs.max_bytes,
            Conversations(settings.data_dir / "conversations"),
        )
        replica = serve.get_replica_context().replica_id.unique_id
        sessions = RaySessionManager(self._engine, settings.api.max_sessions, replica)
        return build_app(sessions, settings.api, documents=documents)


def api_application(engine: Engine) -> Application:
    """``FATHOM_API__REPLICAS`` replicas on one engine, each on a node of its own when there are
    several (so losing a node loses one replica), so the cluster needs as many nodes.

    Admission control counts the sessions each replica started, so the cap
    (``FATHOM_API__MAX_SESSIONS``) holds per replica. Any replica answers for any session: a
    running one is found by its actor's name, a finished one in the stores.
    """
    replicas = engine.settings.api.replicas
    deployment = serve.deployment(
        name="fathom",
        num_replicas=replicas,
        ray_actor_options={"num_cpus": 0, "runtime_env": {"env_vars": REPLICA_ENV}},
        max_ongoing_requests=256,
    )(FathomApi)
    if replicas > 1:
        deployment = deployment.options(max_replicas_per_node=1)
    return deployment.bind(engine)


def app_builder(args: dict[str, str]) -> Application:
    """For ``serve run serve.deployment:app_builder`` and ``serve deploy serve_config.yaml``.

    Starts the shared actors from the FATHOM_ settings of the process that builds the app (the
    internet, no offline web) and binds the API to them.
    """
    settings = load_settings()
    return api_application(start_engine(settings, NetworkMap(), name_prefix=ACTOR_PREFIX, kept=True))


def run_api(engine: Engine) -> None:
    """Start Serve's HTTP proxy on the configured host and port and deploy the API (non-blocking)."""
    api = engine.settings.api
    serve.start(http_options={"host": api.host, "port": api.port})
    serve.run(api_application(engine), name="fathom", route_prefix="/", blocking=False)


def shutdown() -> None:
    serve.shutdown()  # type: ignore[no-untyped-call]
