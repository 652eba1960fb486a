"""The explorer (AGENT_SUBAGENTS=explorer) in code mode, on the real Docker engine: the
model's code calls `explorer(task=...)` like any tool; the read-only sub-agent (tool calling,
on the same scripted model) answers, and its answer is what the code gets back. Planning
works in code mode too: a plan first and again every 2 steps, shown as progress."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.runtime import run_job
from lsp_agent.models.scripted import ScriptedModel
from tests.e2e.code_mode import CODE_SETTINGS, code_turn
from tests.jobs import disk_job

pytestmark = pytest.mark.docker

SETTINGS = dataclasses.replace(
    CODE_SETTINGS, agent_max_steps=6, agent_subagents=("explorer",), agent_planning_interval=2
)


def test_code_calls_the_explorer_and_gets_its_answer(tmp_repo: Path, sandbox_image: str) -> None:
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    model = ScriptedModel(
        [
            {"text": "1. Ask the explorer what add() returns.\n2. Answer.\n<end_plan>"},
            code_turn('found = explorer(task="What does add() return?")\nprint(found)'),
            {"tool": "run_cmd", "arguments": {"command": "echo x > pkg/calc.py"}},
            {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
            {"final_answer": "add() in pkg/calc.py returns a + b."},
            code_turn('final_answer("add returns a + b, says the explorer")'),
        ]
    )
    events: list[ProgressEvent] = []
    result = run_job(
        disk_job(
            "what does add return",
            tmp_repo,
            dataclasses.replace(SETTINGS),
            progress=events.append,
            model=model,
        )
    )
    assert result.status == "answered", result
    assert "says the explorer" in result.answer
    assert "there is no tool `run_cmd`" in model.calls[3].text()
    assert "Explorer's answer" in model.calls[-1].text()
    assert "returns a + b" in model.calls[-1].text()
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before
    plans = [e.message for e in events if e.kind == "plan"]
    assert plans[0].startswith("1. Ask the explorer"), plans
    assert model.calls[0].tool_names == []  # the plan is asked without tools
    assert "1. Ask the explorer" in model.calls[1].text()  # and replayed to the code step
    assert any(e.kind == "subagent" for e in events)
