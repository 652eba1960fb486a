"""Which proposal a job offers for approval at its end (`closing_offer.passing_proposal`),
and the offer going through the job's wrapped `apply_patch` and the approval gate."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.closing_offer import offer_passing_patch, passing_proposal
from lsp_agent.agent.job_types import ProgressEvent
from sandbox.protocol import PatchCheck
from tests.tool_context import tool_context
from tools.approval_gate import AutoApprove, RejectAll
from tools.base import ToolContext
from tools.patches import apply_whole_file
from tools.registry import build_tools
from tools.workspace import DiskWorkspace

TASK = "Implement the stub in calc.py so that the tests in calc_test.py pass"
FIXES_ALL = PatchCheck(True, True, "2 passed", 0.1, fixed=("calc_test.py::test_add",))
FIXES_SOME = PatchCheck(
    True,
    True,
    "1 failed, 1 passed",
    0.1,
    fixed=("calc_test.py::test_add",),
    still_failing=("calc_test.py::test_sub",),
)
BREAKS = PatchCheck(True, False, "1 failed", 0.1, fixed=("a",), broken=("calc_test.py::test_x",))
NO_TESTS = PatchCheck(True, True, "", 0.1)  # passed, and nothing was failing before


def context_on(root: Path, **kwargs: object) -> ToolContext:
    (root / "calc.py").write_text("def add(a, b):\n    pass\n", encoding="utf-8")
    (root / "calc_test.py").write_text("from calc import add\n", encoding="utf-8")
    return tool_context(DiskWorkspace(root), **kwargs)


def propose(context: ToolContext, check: PatchCheck | None, path: str = "calc.py", n: int = 1):
    text = f"def add(a, b):\n    return a + b  # {n}\n"
    result = apply_whole_file(path, text, context.workspace, 200)
    return context.patches.add(result.diff, result, check)


def test_the_latest_proposal_that_fixes_every_failing_test_is_offered(tmp_path: Path) -> None:
    context = context_on(tmp_path)
    assert passing_proposal(context) is None
    propose(context, FIXES_SOME)
    assert passing_proposal(context) is None  # leaves a test failing
    p2 = propose(context, FIXES_ALL, n=2)
    propose(context, BREAKS, n=3)
    propose(context, NO_TESTS, n=4)
    assert passing_proposal(context) == p2  # a later worse or untested one is passed over


def test_nothing_is_offered_once_an_applied_patch_did_the_work(tmp_path: Path) -> None:
    context = context_on(tmp_path)
    p1 = propose(context, FIXES_ALL)
    context.patches.set_status(p1.id, "applied")
    propose(context, FIXES_ALL, n=2)
    assert passing_proposal(context) is None


def test_after_an_applied_patch_that_left_failures_a_later_full_fix_is_offered(
    tmp_path: Path,
) -> None:
    context = context_on(tmp_path)
    p1 = propose(context, FIXES_ALL)  # proposed before the applied one: not built on it
    p2 = propose(context, FIXES_SOME, n=2)
    context.patches.set_status(p2.id, "applied")
    assert passing_proposal(context) is None
    p3 = propose(context, FIXES_ALL, n=3)
    assert passing_proposal(context) == p3
    assert p1.status == "proposed"


def test_rejected_test_file_and_configuration_patches_are_never_offered(tmp_path: Path) -> None:
    context = context_on(tmp_path)
    p1 = propose(context, FIXES_ALL)
    context.patches.set_status(p1.id, "rejected", "the user said no")
    propose(context, FIXES_ALL, path="calc_test.py", n=2)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text("{}\n", encoding="utf-8")
    propose(context, FIXES_ALL, path=".vscode/settings.json", n=3)
    assert passing_proposal(context) is None


def offer(context: ToolContext, task: str = TASK) -> tuple[str, list[ProgressEvent]]:
    events: list[ProgressEvent] = []
    observation = offer_passing_patch(context, build_tools(context), task, events.append, 8)
    return observation, events


def test_the_offer_goes_through_the_approval_gate_and_a_rejection_changes_nothing(
    tmp_path: Path,
) -> None:
    context = context_on(tmp_path, approvals=RejectAll())
    p1 = propose(context, FIXES_ALL)
    observation, events = offer(context)
    assert "rejected" in observation, observation
    assert (tmp_path / "calc.py").read_text(encoding="utf-8") == "def add(a, b):\n    pass\n"
    assert context.patches.get(p1.id).status == "rejected"
    assert [e.kind for e in events] == ["notice"]
    assert "p1 (calc.py)" in events[0].message


def test_an_approved_offer_writes_the_patch_and_a_question_offers_nothing(tmp_path: Path) -> None:
    context = context_on(tmp_path, approvals=AutoApprove())
    p1 = propose(context, FIXES_ALL)
    assert offer(context, "What does add() return?") == ("", [])
    assert offer(context, "Fix add() in calc.py, but do not apply the patch") == ("", [])
    assert offer(context, "Just propose a fix for calc.py") == ("", [])
    assert context.patches.get(p1.id).status == "proposed"
    told = "Fix calc.py so the tests pass. The tests are correct: do not change them."
    observation, _ = offer(context, told)
    assert observation.startswith("applied: p1"), observation
    assert "return a + b" in (tmp_path / "calc.py").read_text(encoding="utf-8")
    assert context.patches.facts()[0].startswith("Applied p1 to calc.py")
