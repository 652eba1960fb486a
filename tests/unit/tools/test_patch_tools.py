"""propose_patch / propose_patch_unified / show_patch / apply_patch through the wrapper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from safety.approvals import Outcome, Status
from safety.errors import ErrorType
from sandbox.null_backend import NullSandbox
from tests.fake_sandbox import FakeSandbox
from tests.repo_samples import CALC_DIFF
from tests.tool_context import tool_context
from tools.approval_gate import ApprovalAsk
from tools.base import ToolContext
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ApplyPatch, ProposePatch, ProposePatchUnified, ShowPatch
from tools.workspace import DiskWorkspace, OverlayWorkspace

CALC = "pkg/calc.py"
ORIGINAL = "def add(a, b):\n    return a + b\n"


class Gate:
    def __init__(self, approve: bool = True) -> None:
        self.approve = approve
        self.asked: list[ApprovalAsk] = []

    def ask(self, ask: ApprovalAsk) -> Outcome:
        self.asked.append(ask)
        status = Status.APPROVED if self.approve else Status.REJECTED
        return Outcome("t", status, by="test", reason="" if self.approve else "not today")


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def box() -> FakeSandbox:
    return FakeSandbox()


def tools_for(context: ToolContext) -> dict[str, InstrumentedTool]:
    classes = (ProposePatch, ProposePatchUnified, ShowPatch, ApplyPatch)
    return {cls.name: InstrumentedTool(cls(context), context) for cls in classes}


@pytest.fixture
def setup(tmp_repo: Path, gate: Gate, box: FakeSandbox):
    context = tool_context(DiskWorkspace(tmp_repo), approvals=gate, sandbox_factory=lambda: box)
    return tools_for(context), context, tmp_repo


def test_propose_patch_returns_an_id_and_the_check(setup, box) -> None:
    tools, _, repo = setup
    reply = json.loads(tools["propose_patch"](path=CALC, old="a + b", new="b + a"))
    assert reply["patch_id"] == "p1" and reply["files"] == [CALC]
    assert reply["check"].startswith("applies: yes; check: passed")
    assert 'apply_patch(patch_id="p1")' in reply["next"]
    assert "+    return b + a" in box.checks[0]["diff"]
    assert (repo / CALC).read_text() == ORIGINAL, "proposing never writes"


def test_propose_patch_reads_a_def_line_and_a_whole_definition_as_the_definition(
    setup, box
) -> None:
    tools, _, _ = setup
    reply = json.loads(
        tools["propose_patch"](path=CALC, old="def add(a, b):", new="def add(a, b): return b + a")
    )
    assert "add was replaced whole" in reply["adjustments"][0]
    assert "-    return a + b" in box.checks[0]["diff"]
    assert "+def add(a, b): return b + a" in box.checks[0]["diff"]


def test_propose_unified_reports_adjustments_and_failed_checks(tmp_repo, gate) -> None:
    box = FakeSandbox(check_passed=False)
    context = tool_context(DiskWorkspace(tmp_repo), approvals=gate, sandbox_factory=lambda: box)
    shifted = CALC_DIFF.replace("@@ -1,2 +1,2 @@", "@@ -5,2 +5,2 @@")
    reply = json.loads(tools_for(context)["propose_patch_unified"](diff=shifted))
    assert reply["patch_id"] == "p1"
    assert reply["adjustments"], "the offset hunk is reported"
    assert "check: failed" in reply["check"] and "FAILED tests/test_calc.py" in reply["check"]


def test_bad_diffs_become_errors_with_hints(setup) -> None:
    tools, *_ = setup
    garbage = json.loads(tools["propose_patch_unified"](diff="this is not a diff"))
    assert garbage["error"] in {ErrorType.PATCH_INVALID, ErrorType.PATCH_DOES_NOT_APPLY}
    wrong = CALC_DIFF.replace("-    return a + b", "-    return a * b")
    # The second failure in a row: a loop hint follows the error.
    placed, _ = json.JSONDecoder().raw_decode(tools["propose_patch_unified"](diff=wrong))
    assert placed["error"] == ErrorType.PATCH_DOES_NOT_APPLY
    assert "return a + b" in json.dumps(placed), "the current text is shown"
    outside = json.loads(tools["propose_patch"](path="../x.py", old="", new="x"))
    assert outside["error"] == ErrorType.PATH_OUTSIDE_WORKSPACE


def test_check_unavailable_when_there_is_no_sandbox(tmp_repo, gate) -> None:
    context = tool_context(
        DiskWorkspace(tmp_repo),
        approvals=gate,
        sandbox_factory=lambda: NullSandbox(tmp_repo, "Docker is not running"),
    )
    reply = json.loads(tools_for(context)["propose_patch"](path=CALC, old="a + b", new="b + a"))
    assert reply["patch_id"] == "p1"
    # said once, not nested: "check: unavailable (the diff applies; check: unavailable (…"
    assert reply["check"] == "applies: yes; check: unavailable (Docker is not running) [none]"


def test_show_patch(setup) -> None:
    tools, *_ = setup
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    shown = tools["show_patch"](patch_id="p1")
    assert shown.startswith("p1: pkg/calc.py [proposed]") and "+    return b + a" in shown


def test_apply_asks_for_exactly_the_patch_and_writes_it(setup, gate) -> None:
    tools, context, repo = setup
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    assert tools["apply_patch"](patch_id="p1") == "applied: p1 (pkg/calc.py)"
    assert (repo / CALC).read_text() == "def add(a, b):\n    return b + a\n"
    assert gate.asked[0].content == context.patches.get("p1").result.diff
    again = json.loads(tools["apply_patch"](patch_id="p1"))
    assert "is applied" in again["message"]


def test_rejected_patch_changes_no_byte(tmp_repo, box) -> None:
    gate = Gate(approve=False)
    context = tool_context(DiskWorkspace(tmp_repo), approvals=gate, sandbox_factory=lambda: box)
    tools = tools_for(context)
    before = (tmp_repo / CALC).read_bytes()
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    error = json.loads(tools["apply_patch"](patch_id="p1"))
    assert error["error"] == ErrorType.APPROVAL_REJECTED
    assert error["message"].startswith("rejected:") and "not today" in error["message"]
    assert (tmp_repo / CALC).read_bytes() == before


def test_stale_patch_is_rebased_and_must_be_approved_again(setup, gate) -> None:
    tools, _, repo = setup
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    (repo / CALC).write_text("# edited by the user\n" + ORIGINAL)
    stale = json.loads(tools["apply_patch"](patch_id="p1"))
    assert stale["error"] == ErrorType.PATCH_STALE and "re-based" in stale["message"]
    assert (repo / CALC).read_text() == "# edited by the user\n" + ORIGINAL
    assert tools["apply_patch"](patch_id="p1") == "applied: p1 (pkg/calc.py)"
    assert (repo / CALC).read_text() == "# edited by the user\ndef add(a, b):\n    return b + a\n"
    assert len(gate.asked) == 2 and gate.asked[0].content != gate.asked[1].content


def test_stale_patch_that_no_longer_applies_is_refused(setup) -> None:
    tools, context, repo = setup
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    (repo / CALC).write_text("def add(a, b):\n    return sum((a, b))\n")
    stale = json.loads(tools["apply_patch"](patch_id="p1"))
    assert stale["error"] == ErrorType.PATCH_STALE and "no longer applies" in stale["message"]
    assert context.patches.get("p1").status == "stale"
    assert (repo / CALC).read_text() == "def add(a, b):\n    return sum((a, b))\n"


def test_unknown_patch_id_lists_the_known_ones(setup) -> None:
    tools, *_ = setup
    tools["propose_patch"](path=CALC, old="a + b", new="b + a")
    error = json.loads(tools["apply_patch"](patch_id="p9"))
    assert "p1" in error["message"]


def test_proposals_read_unsaved_buffers_and_send_them_to_the_check(tmp_repo, gate, box) -> None:
    buffer = "def add(a, b):\n    # unsaved\n    return a + b\n"
    workspace = OverlayWorkspace(tmp_repo, lambda: {CALC: (buffer, 7)})
    context = tool_context(workspace, approvals=gate, sandbox_factory=lambda: box)
    reply = json.loads(
        tools_for(context)["propose_patch"](
            path=CALC, old="    # unsaved\n", new="    # saved soon\n"
        )
    )
    assert reply["patch_id"] == "p1"
    assert box.checks[0]["overlay"] == {CALC: buffer}
    assert context.patches.get("p1").result.files[0].base_version == 7


def test_propose_file_takes_the_whole_new_text(tmp_repo: Path, gate: Gate, box) -> None:
    from tools.patch_tools import ProposeFile

    context = tool_context(DiskWorkspace(tmp_repo), approvals=gate, sandbox_factory=lambda: box)
    tool = InstrumentedTool(ProposeFile(context), context)
    reply = json.loads(tool(path=CALC, content="def add(a, b):\n    return b + a"))
    assert reply["patch_id"] == "p1" and reply["files"] == [CALC]
    assert "-    return a + b\n+    return b + a\n" in box.checks[0]["diff"]
    assert "No newline" not in box.checks[0]["diff"]  # the file's last newline is kept
    (tmp_repo / "big.py").write_text("x = 1\n" * 201)
    refused = json.loads(tool(path="big.py", content="x = 2\n"))
    assert (
        refused["error"] == "invalid_argument"
        and "propose_patch(" in refused["recovery_suggestion"]
    )


def test_the_edit_formats_choose_the_patch_tools(tmp_repo: Path) -> None:
    from tools.registry import build_tools

    def names(*patch_tools: str) -> list[str]:
        context = tool_context(tmp_repo, patch_tools=patch_tools)
        return [tool.name for tool in build_tools(context)]

    default = names("propose_patch", "propose_patch_unified")
    assert {"propose_patch", "propose_patch_unified", "show_patch", "apply_patch"} <= set(default)
    assert "propose_file" not in default
    whole = names("propose_file")
    assert "propose_file" in whole and "apply_patch" in whole
    assert "propose_patch" not in whole and "propose_patch_unified" not in whole
    function = names("propose_function", "propose_patch")
    assert {"propose_function", "propose_patch"} <= set(function)
    assert "propose_function" not in default


def test_propose_function_writes_one_definition_anew(tmp_repo: Path, gate: Gate, box) -> None:
    from tools.patch_tools import ProposeFunction

    context = tool_context(DiskWorkspace(tmp_repo), approvals=gate, sandbox_factory=lambda: box)
    tool = InstrumentedTool(ProposeFunction(context), context)
    reply = json.loads(tool(path=CALC, name="add", code="def add(a, b):\n    return b + a"))
    assert reply["patch_id"] == "p1" and reply["files"] == [CALC]
    assert "-    return a + b\n+    return b + a\n" in box.checks[0]["diff"]
    assert (tmp_repo / CALC).read_text() == ORIGINAL, "proposing never writes"
    refused = json.loads(tool(path=CALC, name="sub", code="def sub(a, b):\n    return a - b"))
    assert refused["error"] == "invalid_argument" and "It defines: add." in refused["message"]


def test_old_text_of_another_known_file_is_said_to_be_there(
    tmp_path: Path, gate: Gate, box: FakeSandbox
) -> None:
    # pascals-triangle: `old` was the test file's expected rows, written on one line
    (tmp_path / "pascal.py").write_text("def rows(n):\n    return [1]\n", encoding="utf-8")
    (tmp_path / "pascal_test.py").write_text(
        "TRIANGLE = [\n    [1],\n    [1, 1],\n    [1, 2, 1],\n]\n", encoding="utf-8"
    )
    (tmp_path / "notes.py").write_text("ROWS = '[1], [1, 1], [1, 2, 1]'\n", encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path), approvals=gate, sandbox_factory=lambda: box)
    context.task_files = ("pascal.py", "pascal_test.py")
    propose = tools_for(context)["propose_patch"]
    old = "[1], [1, 1], [1, 2, 1]"
    error = _message(propose.call({"path": "pascal.py", "old": old, "new": "[1], [1, 1]"}))
    assert error.endswith(
        "It is text of pascal_test.py (line 2), not of pascal.py. Tests are not changed: "
        "change the code in pascal.py so that they pass (read it first)."
    )
    context.task_files = ("pascal.py",)
    context.seen_paths.add("notes.py")  # a file the job read, not a test
    error = _message(propose.call({"path": "pascal.py", "old": old, "new": "x"}))
    assert error.endswith('not of pascal.py. To change it there, propose it with path="notes.py".')
    error = _message(propose.call({"path": "pascal.py", "old": "return [2]", "new": "x"}))
    assert "It is text of" not in error


def test_where_else_old_text_is_never_tells_of_a_secret_or_a_sensitive_file(
    tmp_path: Path, gate: Gate, box: FakeSandbox
) -> None:
    # no oracle: a model probing for a key one guess at a time learns nothing
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    (tmp_path / "app.py").write_text("def run():\n    return 1\n", encoding="utf-8")
    (tmp_path / "settings.py").write_text(f'API_KEY = "{secret}"\n', encoding="utf-8")
    (tmp_path / ".env").write_text("DATABASE_PASSWORD=hunter2hunter2\n", encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path), approvals=gate, sandbox_factory=lambda: box)
    context.task_files = ("app.py", ".env")
    context.seen_paths.add("settings.py")
    propose = tools_for(context)["propose_patch"]
    for old in (f'API_KEY = "{secret}"', "DATABASE_PASSWORD=hunter2hunter2"):
        error = _message(propose.call({"path": "app.py", "old": old, "new": "x"}))
        assert "It is text of" not in error and secret not in error
    # what the read tools show is still found: the line with its secret redacted
    error = _message(propose.call({"path": "app.py", "old": 'API_KEY = "[REDACTED]"', "new": "x"}))
    assert "It is text of settings.py (line 1)" in error


def _message(observation: str) -> str:
    """The error message of a failed call's observation (its first line is the JSON)."""
    error = json.loads(observation.splitlines()[0])
    assert error["error"] == "patch_does_not_apply", error
    return str(error["message"])
