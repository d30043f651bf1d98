"""`fathom index`, `fathom search` and `fathom testweb` as a new user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from fathom_ray.cli import app

pytestmark = pytest.mark.integration
runner = CliRunner()


def test_index_then_search_locally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "widget.html").write_text("<title>Widget</title><p>Frobnicator calibration.</p>")
    built = runner.invoke(app, ["index", str(tmp_path / "docs"), "--base-url", "http://intranet.example/d/"])
    assert built.exit_code == 0, built.output
    assert (tmp_path / "index" / "meta.json").is_file()
    found = runner.invoke(app, ["search", "frobnicator", "--backend", "local"])
    assert found.exit_code == 0, found.output
    assert "http://intranet.example/d/widget.html" in found.output


def test_search_of_the_offline_web_names_the_backend_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FATHOM_SEARCH__BACKEND", "ddgs")  # the offline web has its own engine
    found = runner.invoke(app, ["search", "assignment expressions walrus operator", "--web", "offline"])
    assert found.exit_code == 0, found.output
    assert "via searxng" in found.output
    assert "docs.python.test" in found.output


def test_index_of_urls_on_the_offline_web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FATHOM_FETCH__TIMEOUT_S", "2")
    urls = tmp_path / "urls.txt"
    urls.write_text("http://www.sqlite.test/wal.html\nhttp://error.test/\n")
    built = runner.invoke(app, ["index", str(urls), "--web", "offline"])
    assert built.exit_code == 0, built.output
    assert "skipped http://error.test/" in built.output
    assert "indexed 1 documents" in built.output


def test_bad_input_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    (tmp_path / "docs").mkdir()
    no_base = runner.invoke(app, ["index", str(tmp_path / "docs")])
    assert no_base.exit_code == 2
    assert "--base-url" in no_base.output
    missing = runner.invoke(app, ["index", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert "not a folder" in missing.output
    bad_web = runner.invoke(app, ["search", "x", "--web", "moon"])
    assert bad_web.exit_code == 2


def test_testweb_serves_until_interrupted(tmp_path: Path) -> None:
    env = {**os.environ, "FATHOM_DATA_DIR": str(Path(__file__).resolve().parents[2] / ".cache" / "cli")}
    fathom = Path(sys.executable).with_name("fathom")
    # Started with SIGINT ignored, as a background job is (and as a parent that ignores Ctrl-C passes it on):
    # Ctrl-C must stop it all the same.
    command = f"trap '' INT; exec {fathom} testweb --port 0"
    process = subprocess.Popen(["/bin/sh", "-c", command], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if "serving on 127.0.0.1:" in line:
                port = int(line.split("127.0.0.1:")[1].split(";")[0])
        assert port is not None
        page = httpx.get(f"http://127.0.0.1:{port}/wal.html", headers={"Host": "www.sqlite.test"})
        assert page.status_code == 200
        assert "Write-Ahead Logging" in page.text
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code: int | None = process.wait(
                timeout=45
            )  # generous: CI runs this beside busy Ray tests on 2 cores
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
            code = None
        said = process.stdout.read() if process.stdout is not None else ""
        if process.stdout is not None:
            process.stdout.close()
        assert code == 0, f"exit code {code} after Ctrl-C; it printed: {said[-2000:]}"
