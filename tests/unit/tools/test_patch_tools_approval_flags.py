"""The patch approval question flags configuration files and hidden characters, and a git
copy patch never deletes its source (the real patch tools through the real wrapper)."""

from __future__ import annotations

import json
from pathlib import Path

from safety.approvals import Outcome, Status
from sandbox.null_backend import NullSandbox
from tests.tool_context import tool_context
from tools.approval_gate import ApprovalAsk
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ApplyPatch, ProposePatch, ProposePatchUnified


class RecordingGate:
    def __init__(self) -> None:
        self.asked: list[ApprovalAsk] = []

    def ask(self, ask: ApprovalAsk) -> Outcome:
        self.asked.append(ask)
        return Outcome("t", Status.REJECTED, by="test", reason="looking only")


def tools(root: Path) -> tuple[dict[str, InstrumentedTool], RecordingGate]:
    from tools.workspace import DiskWorkspace

    gate = RecordingGate()
    context = tool_context(
        DiskWorkspace(root),
        approvals=gate,
        sandbox_factory=lambda: NullSandbox(root, reason="test"),
    )
    classes = (ProposePatch, ProposePatchUnified, ApplyPatch)
    return {c.name: InstrumentedTool(c(context), context) for c in classes}, gate


def test_a_patch_to_editor_settings_is_flagged_in_the_question(tmp_path: Path) -> None:
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text('{"a": 1}\n')
    found, gate = tools(tmp_path)
    found["propose_patch"].call({"path": ".vscode/settings.json", "old": '"a": 1', "new": '"a": 2'})
    found["apply_patch"].call({"patch_id": "p1"})
    (ask,) = gate.asked
    assert "CHANGES AGENT/EDITOR CONFIGURATION: .vscode/settings.json" in ask.summary
    assert "CHANGES AGENT/EDITOR CONFIGURATION" in ask.details


def test_hidden_characters_in_a_patch_are_flagged(tmp_path: Path) -> None:
    (tmp_path / "auth.py").write_text("ok = False\n")
    found, gate = tools(tmp_path)
    found["propose_patch"].call(
        {"path": "auth.py", "old": "ok = False", "new": "ok = False  # \u202e eurT = ko"}
    )
    found["apply_patch"].call({"patch_id": "p1"})
    (ask,) = gate.asked
    assert "HIDDEN CHARACTERS" in ask.summary and "RIGHT-TO-LEFT OVERRIDE" in ask.summary
    assert (tmp_path / "auth.py").read_text() == "ok = False\n"


def test_an_ordinary_patch_has_no_flags(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    found, gate = tools(tmp_path)
    found["propose_patch"].call({"path": "app.py", "old": "x = 1", "new": "x = 2"})
    found["apply_patch"].call({"patch_id": "p1"})
    assert gate.asked[0].summary == "Apply p1 to app.py"


def test_a_git_copy_patch_is_refused_and_keeps_its_source(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    found, gate = tools(tmp_path)
    diff = (
        "diff --git a/a.py b/b.py\nsimilarity index 90%\ncopy from a.py\ncopy to b.py\n"
        "--- a/a.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    )
    result = json.loads(found["propose_patch_unified"].call({"diff": diff}))
    assert "Copy patches" in result["message"] and "/dev/null" in result["recovery_suggestion"]
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n"
    assert not (tmp_path / "b.py").exists()
    assert gate.asked == []
