"""The runs' figures per agent, the cost per solved exercise, the table, and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_agent.benchmarks.edits.report import markdown_table
from lsp_agent.benchmarks.edits.results import (
    ExerciseRun,
    ResumeError,
    load_runs,
    summary,
    write_runs,
)


def run(agent: str, exercise: str, passed: bool, **extra: object) -> ExerciseRun:
    fields: dict = dict(seconds=10.0, steps=3, model_calls=4, prompt_tokens=100)
    fields.update(completion_tokens=20, status="answered")
    fields.update(extra)
    return ExerciseRun(exercise, agent, passed, "passed" if passed else "tests failed", **fields)


def test_figures_per_agent_and_cost_per_solved_exercise() -> None:
    runs = [
        run("lsp-agent", "leap", True),
        run("lsp-agent", "bob", False),
        run("aider", "leap", True, detail={"tests_outcomes": [False, True]}),
        run("aider", "bob", True, detail={"tests_outcomes": [True]}),
    ]
    figures = summary(runs, ["lsp-agent", "aider"])
    ours = figures["lsp-agent"]
    assert (ours["passed"], ours["total"], ours["pass_rate"]) == (1, 2, 0.5)
    assert ours["seconds_per_solved"] == 20.0
    assert ours["tokens_per_solved"] == 240.0
    assert "passed_first_try" not in ours
    assert figures["aider"]["passed_first_try"] == 1
    assert summary([], ["aider"])["aider"]["seconds_per_solved"] is None
    table = markdown_table(figures)
    assert "| lsp-agent | 1/2 | 50.0% |" in table
    assert "| aider | 2/2 (1 on try 1) | 100.0% |" in table


def test_the_output_resumes_only_the_same_model_and_step_limit(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    setup = {"model": "openai/m", "max_steps": 25}
    assert load_runs(path, setup) == []
    runs = [run("lsp-agent", "leap", True), run("aider", "leap", False)]
    written = write_runs(path, runs, ["lsp-agent", "aider"], {**setup, "exercises": ["leap"]})
    data = json.loads(path.read_text())
    assert data == written
    assert data["agents"]["lsp-agent"]["passed"] == 1 and data["agents"]["aider"]["total"] == 1
    assert load_runs(path, setup) == runs
    with pytest.raises(ResumeError, match="max_steps = 25, not 10"):
        load_runs(path, {**setup, "max_steps": 10})
    assert not path.with_name("out.json.partial").exists()
