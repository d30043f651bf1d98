from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fathom_ray.cli import app
from fathom_ray.swarm.task_ledger import Beacon, RecordKind, TaskLedger
from fathom_ray.testweb.sites import SITES

runner = CliRunner()


def test_help_lists_the_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "presets" in result.output
    assert "config" in result.output


def test_presets_prints_the_table() -> None:
    result = runner.invoke(app, ["presets"])
    assert result.exit_code == 0
    for name in ("glance", "exhaustive", "10,000"):
        assert name in result.output
    assert "quick reads 1 page a round" in " ".join(result.output.split())


def test_config_masks_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__TOKEN", "s3cret")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 0
    shown = json.loads(result.output)
    assert shown["api"]["token"] == "**********"
    assert "s3cret" not in result.output


def test_config_reports_bad_settings_with_exit_code_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FATHOM_API__MAX_SESSIONS", "zero")
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 2
    assert "api.max_sessions" in result.output


@pytest.mark.parametrize(
    ("environment", "judge"),
    [
        ({}, "evidence (backend auto"),
        ({"FATHOM_LLM__BACKEND": "evidence"}, "evidence"),
        ({"FATHOM_LLM__MODEL": "Qwen/Qwen3-8B"}, "vllm (backend auto"),
        (
            {"FATHOM_LLM__BASE_URL": "http://gpu-box:8000/v1", "FATHOM_LLM__MODEL": "m"},
            "openai (backend auto",
        ),
    ],
)
def test_config_says_which_judge_the_settings_pick(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], judge: str
) -> None:
    for name in ("FATHOM_LLM__BACKEND", "FATHOM_LLM__MODEL", "FATHOM_LLM__BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 0
    assert json.loads(result.output)["judge"].startswith(judge)


def test_doctor_names_the_evidence_judge_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FATHOM_LLM__BACKEND", "FATHOM_LLM__MODEL", "FATHOM_LLM__BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0
    assert "the evidence judge (no model or endpoint configured)" in result.output
    assert "too small" not in result.output
    for site in SITES:  # the offline web's every site, with its package
        assert f"offline web: {site.host}" in result.output
        assert site.package in result.output


def test_doctor_says_the_cpu_model_is_plumbing_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FATHOM_LLM__MODEL", raising=False)
    monkeypatch.setenv("FATHOM_LLM__BACKEND", "vllm")
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0
    assert "too small to judge pages well" in result.output
    assert "FATHOM_LLM__MODEL" in result.output


def test_doctor_says_when_nothing_answers_at_the_cluster_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    result = runner.invoke(app, ["doctor", "--address", f"127.0.0.1:{port}"])
    assert result.exit_code == 2
    assert f"nothing answers at 127.0.0.1:{port}" in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["hey"], "goal"),
        (["a proper research goal", "--depth", "bottomless"], "unknown preset"),
        (["a proper research goal", "--seed", "ftp://x.example/"], "seeds"),
        (["a proper research goal", "--web", "moon"], "--web"),
    ],
)
def test_research_rejects_bad_input_before_starting_anything(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, ["research", *arguments])
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    ("args", "lines", "message"),
    [
        (["--method", "three-pass"], ['{"id": 1, "question": "Which version?", "answer": "3"}'], "--method"),
        (["--llm", "max_tokens"], ['{"id": 1, "question": "Which version?", "answer": "3"}'], "KEY=VALUE"),
        (
            ["--llm", "max_tokens=-3"],
            ['{"id": 1, "question": "Which version?", "answer": "3"}'],
            "max_tokens",
        ),
        (["--depth", "bottomless"], ['{"id": 1, "question": "Which version?", "answer": "3"}'], "bottomless"),
        ([], ["{broken", '{"id": 2}'], "holds no valid question"),
    ],
)
def test_eval_rejects_bad_input_before_starting_anything(
    tmp_path: Path, args: list[str], lines: list[str], message: str
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["eval", str(questions), "--out", str(tmp_path / "ev"), *args])
    assert result.exit_code != 0
    assert message in result.output
    assert not (tmp_path / "ev").exists()


def test_ledger_prints_a_swarm_s_records_and_says_when_there_is_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FATHOM_DATA_DIR", str(tmp_path))
    ledger = TaskLedger(tmp_path / "ledger", "w-1")
    ledger.append("coordinator", RecordKind.PLAN, {"checklist": ["Which version?"]})
    ledger.append("analyst", RecordKind.BEACON, {"fact": "F2"}, beacon=Beacon.CONTRADICTION)
    ledger.append("r1-researcher-1", RecordKind.COMPLETION, {"facts": 3})
    shown = runner.invoke(app, ["ledger", "w-1"])
    assert shown.exit_code == 0
    assert "3 of 3 records" in shown.output
    assert "r1-researcher-1" in shown.output
    beacons = runner.invoke(app, ["ledger", "w-1", "--attention", "--json"])
    assert [json.loads(line)["agent"] for line in beacons.output.splitlines()] == ["analyst"]
    mine = runner.invoke(app, ["ledger", "w-1", "--agent", "coordinator", "--json"])
    assert [json.loads(line)["kind"] for line in mine.output.splitlines()] == ["plan"]
    missing = runner.invoke(app, ["ledger", "w-2"])
    assert missing.exit_code == 2
    assert "no ledger for swarm 'w-2'" in missing.output
    assert runner.invoke(app, ["ledger", "../w-1"]).exit_code == 2
