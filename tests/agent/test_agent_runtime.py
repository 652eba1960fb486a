"""The agent runtime end to end with a scripted model, real tools and a real repository."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.runtime import run_agent_job
from lsp_agent.models.messages import message_text
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedModel
from tools.approval_gate import AutoApprove, RejectAll
from tools.patch_writer import DiskPatchWriter
from tools.workspace import DiskWorkspace

SETTINGS = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=8)


def run(repo: Path, turns: list[dict], *, approvals=None, cancel=None, settings=SETTINGS):
    events: list[ProgressEvent] = []
    model = ScriptedModel(turns)
    result = run_agent_job(
        "fix the bug",
        settings=settings,
        workspace=DiskWorkspace(repo),
        approvals=approvals or AutoApprove(),
        writer=DiskPatchWriter(repo),
        on_progress=events.append,
        cancel=cancel or threading.Event(),
        model=model,
    )
    return result, events, model


def tool_texts(model: ScriptedModel) -> list[str]:
    """Every tool result the model was shown, from the last request it received."""
    last = model.calls[-1].messages
    return [
        message_text(m.content)
        for m in last
        if str(getattr(m.role, "value", m.role)) == "tool-response"
    ]


def test_five_step_task_completes_and_changes_the_file(tmp_repo: Path) -> None:
    result, events, _model = run(
        tmp_repo,
        [
            {"tool": "list_files", "arguments": {"pattern": "*.py"}},
            {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
            {
                "tool": "propose_patch",
                "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return b + a"},
            },
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "Swapped the operands in add()."},
        ],
    )
    assert result.status == "answered", result
    assert result.answer == "Swapped the operands in add()."
    assert result.tools_used == [
        "list_files",
        "read_file",
        "propose_patch",
        "apply_patch",
        "final_answer",
    ]
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert result.patches == ["p1: pkg/calc.py [applied]"]
    assert [e.step for e in events if e.kind == "step"] == [1, 2, 3, 4, 5]
    assert any(e.kind == "tool" and e.tool == "apply_patch" for e in events)


def test_dangerous_command_is_blocked(tmp_repo: Path) -> None:
    marker = tmp_repo / "marker"
    result, _, model = run(
        tmp_repo,
        [
            {"tool": "run_cmd", "arguments": {"command": f"rm -rf / ; touch {marker}"}},
            {"final_answer": "I could not run that."},
        ],
    )
    assert result.status == "answered"
    shown = tool_texts(model)[0]
    assert '"error": "command_denied"' in shown
    assert not marker.exists()


def test_approval_gate_stops_pip_install(tmp_repo: Path) -> None:
    result, _, model = run(
        tmp_repo,
        [
            {"tool": "run_cmd", "arguments": {"command": "pip install numpy"}},
            {"final_answer": "Not allowed to install."},
        ],
        approvals=RejectAll(),
    )
    shown = json.loads(tool_texts(model)[0])
    assert shown["error"] == "approval_rejected" and shown["message"].startswith("rejected:")
    assert result.status == "answered"


def test_recovery_hint_for_a_file_that_does_not_exist(tmp_repo: Path) -> None:
    _, _, model = run(
        tmp_repo,
        [
            {"tool": "read_file", "arguments": {"path": "pkg/calculator.py"}},
            {"final_answer": "done"},
        ],
    )
    shown = json.loads(tool_texts(model)[0])
    assert shown["error"] == "file_not_found"
    assert "pkg/calc.py" in shown["recovery_suggestion"]


def test_history_is_replayed_as_native_tool_calls(tmp_repo: Path) -> None:
    _, _, model = run(
        tmp_repo,
        [
            {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
            {"final_answer": "done"},
        ],
    )
    second = model.calls[1].messages
    assistant = [m for m in second if m.tool_calls]
    assert assistant and assistant[0].tool_calls[0].function.name == "read_file"
    tool_result = [m for m in second if isinstance(m.raw, dict) and "tool_call_id" in m.raw]
    assert tool_result[0].raw["tool_call_id"] == assistant[0].tool_calls[0].id
    assert not any("Calling tools:" in str(m.content) for m in second)


def test_placeholder_final_answer_is_refused_then_real_one_accepted(tmp_repo: Path) -> None:
    result, _, model = run(
        tmp_repo,
        [
            {"final_answer": "final_answer"},
            {"final_answer": "The bug is in add()."},
        ],
    )
    assert result.status == "answered" and result.answer == "The bug is in add()."
    assert any("placeholder" in str(m.content) for m in model.calls[1].messages)


def test_max_steps_and_budget_reminders(tmp_repo: Path) -> None:
    settings = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=4)
    turns = [
        {"tool": "read_file", "arguments": {"path": "pkg/calc.py", "start_line": i}}
        for i in (1, 2, 1, 2, 1, 2)
    ]
    result, _, model = run(tmp_repo, turns, settings=settings)
    assert result.status in ("max_steps", "stopped")
    texts = [str(m.content) for call in model.calls for m in call.messages]
    assert any("steps left" in t or "LAST step" in t for t in texts)


def test_cancel_ends_the_job_within_a_step(tmp_repo: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    result, events, _ = run(
        tmp_repo,
        [
            {"tool": "list_files", "arguments": {"pattern": "*.py"}},
            {"tool": "list_files", "arguments": {"pattern": "*.txt"}},
            {"final_answer": "done"},
        ],
        cancel=cancel,
    )
    assert result.status == "cancelled"
    assert len([e for e in events if e.kind == "step"]) == 1
