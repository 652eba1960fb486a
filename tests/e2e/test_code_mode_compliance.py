"""`lsp-agent bench models --agent-type code` on the real Docker engine: the levels' code-form
reference solutions pass every level, in fewer steps than the tool-calling references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_agent.benchmarks.compliance.code_reference import CODE_REFERENCE
from lsp_agent.benchmarks.compliance.levels import LEVELS
from lsp_agent.cli.main import main
from tests.compliance import failures

pytestmark = pytest.mark.docker


def bench_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lsp-agent bench` run from `tmp_path`, in Docker, with the user's tracing choice."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PHOENIX_ENABLED", raising=False)
    monkeypatch.setenv("SANDBOX_BACKEND", "docker")


def test_code_references_pass_every_level_in_code_mode(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sandbox_image: str,
) -> None:
    bench_in(tmp_path, monkeypatch)
    output = tmp_path / "code.json"
    argv = ["bench", "models", "--agent-type", "code", "--runs", "1", "--output", str(output)]
    assert main(argv) == 0
    figures = json.loads(output.read_text())["models"]
    assert figures["agent_type"] == "code"
    assert (
        figures["command"] == "lsp-agent bench models --runs 1 --agent-type code --model scripted"
    )
    results = figures["results"]["scripted"]
    assert failures(results) == {}
    for level in LEVELS:
        steps = results["levels"][level.key]["steps_mean"]
        assert steps == len(CODE_REFERENCE[level.key]) <= len(level.reference), level.key
    assert results["total"]["steps"] < sum(len(level.reference) for level in LEVELS)
    assert "agent type: code" in capsys.readouterr().out


def test_code_references_pass_every_level_with_planning_and_the_explorer(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sandbox_image: str,
) -> None:
    bench_in(tmp_path, monkeypatch)
    output = tmp_path / "code-modes.json"
    argv = ["bench", "models", "--agent-type", "code", "--planning-interval", "1"]
    argv += ["--subagents", "explorer", "--runs", "1", "--output", str(output)]
    assert main(argv) == 0
    results = json.loads(output.read_text())["models"]["results"]["scripted"]
    assert failures(results) == {}
    steps = sum(len(CODE_REFERENCE[level.key]) for level in LEVELS)
    assert results["total"]["steps"] == steps
    # one plan before every step (interval 1), besides the steps themselves
    assert results["total"]["model_calls"] == 2 * steps, results["total"]
