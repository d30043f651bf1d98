"""Adding files as Ray tasks: one task per file, embedded on the Embedder actor, written whole by
the DocumentStore actor; and `fathom docs add --address` joining a running Ray to do it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import ray

from actors.ingestion import TASK_NAME, ingest_on_ray, start_document_parts
from fathom_ray.adapters.document_stores import open_document_store
from fathom_ray.documents.models import AddOutcome
from fathom_ray.settings import load_settings
from tests.ray_state import finished_tasks

pytestmark = pytest.mark.e2e


def _notes(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "wal.md").write_text(
        "# Journaling\n\n## WAL\n\nThe write-ahead log lets readers run beside one writer."
    )
    (folder / "garden.txt").write_text("Tomatoes need full sun and regular watering.")
    (folder / "empty.html").write_text("")
    return folder


def test_ingestion_runs_one_ray_task_per_file(tmp_path: Path, ray_session: None) -> None:
    folder = _notes(tmp_path / "notes")
    settings = load_settings(data_dir=tmp_path / "data")
    documents, embedder = start_document_parts(settings, prefix=f"ingest-{tmp_path.name}-")
    heard: list[tuple[str, int, int]] = []

    def progress(outcome: AddOutcome, number: int, total: int) -> None:
        heard.append((Path(outcome.path).name, number, total))

    try:
        outcomes = ingest_on_ray([folder], documents, embedder, settings.docs, progress=progress)
        # in the order the files were found (sorted), whatever order the tasks ended in
        assert [(Path(o.path).name, o.status) for o in outcomes] == [
            ("empty.html", "failed"),
            ("garden.txt", "added"),
            ("wal.md", "added"),
        ]
        assert outcomes[0].error == "empty file"
        assert sorted(n for _, n, _ in heard) == [1, 2, 3]
        assert {total for _, _, total in heard} == {3}

        stored = ray.get(documents.list_documents.remote())
        assert sorted(d.title for d in stored) == ["Journaling", "garden"]
        vector = ray.get(embedder.embed.remote(["readers beside a writer"]))[0]
        hits = ray.get(documents.search.remote("readers beside a writer", vector, 1))
        assert hits[0].title == "Journaling"

        assert finished_tasks(TASK_NAME, 3) >= 3  # each file was its own task, in a worker process

        (folder / "garden.txt").write_text("Tomatoes need full sun, regular watering and a stake.")
        again = ingest_on_ray([folder], documents, embedder, settings.docs, in_flight=1)
        assert [o.status for o in again] == ["failed", "replaced", "unchanged"]
    finally:
        ray.get(documents.stop.remote())
        for handle in (documents, embedder):
            ray.kill(handle)


def test_docs_add_joins_a_running_ray(tmp_path: Path, ray_session: None) -> None:
    folder = _notes(tmp_path / "notes")
    address = ray.get_runtime_context().gcs_address
    env = {**os.environ, "FATHOM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    command = [
        str(Path(sys.executable).with_name("fathom")),
        "docs",
        "add",
        str(folder),
        "--address",
        address,
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    flat = " ".join(done.stdout.split())
    assert flat.count("added") == 2
    assert "empty file" in flat

    # the command's actors ended with it (they released the store), and what they wrote is there
    store = open_document_store(load_settings(data_dir=tmp_path / "data"))
    try:
        assert sorted(d.title for d in store.documents()) == ["Journaling", "garden"]
    finally:
        store.close()
