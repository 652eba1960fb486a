"""A patch whose check says it is no fix is refused once by apply_patch, before anyone is
asked, with the way on (not the call that applies it); asked again, it is applied, unless
it changes no code or changes what a still-failing test calls (never applied). A real
local sandbox (real pytest) behind the real tools."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safety.approvals import Outcome, Status
from sandbox.config import SandboxConfig
from sandbox.local_backend import LocalSandbox
from tests.conftest import git_init
from tests.repo_samples import write
from tests.tool_context import tool_context
from tools.approval_gate import ApprovalAsk
from tools.base import ToolContext
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ApplyPatch, ProposePatch
from tools.workspace import DiskWorkspace

CALC = "def sub(a, b):\n    return a + b\n"


def sub_repo(tmp_path: Path, calc: str) -> Path:
    """A repository whose sub() in calc.py is `calc`, with a test that sub(5, 3) is 2."""
    test = "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
    return git_init(write(tmp_path / "repo", {"calc.py": calc, "test_calc.py": test}))


class Approve:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def ask(self, ask: ApprovalAsk) -> Outcome:
        self.asked.append(ask.summary)
        return Outcome("t", Status.APPROVED, by="test")


@dataclass
class Session:
    """The real patch tools on a `sub_repo`, with a local sandbox (`patch_session`)."""

    repo: Path
    approvals: Approve
    context: ToolContext
    propose: InstrumentedTool
    apply: InstrumentedTool


@contextmanager
def patch_session(tmp_path: Path, calc: str, task_names: tuple[str, ...] = ()) -> Iterator[Session]:
    """propose_patch and apply_patch on a `sub_repo` of `calc`, checked in a local sandbox."""
    repo = sub_repo(tmp_path, calc)
    approvals = Approve()
    config = SandboxConfig(backend="local", timeout_s=120)
    with LocalSandbox(repo, config, approve=lambda argv, question: True) as box:
        context = tool_context(
            DiskWorkspace(repo), approvals=approvals, sandbox_factory=lambda: box
        )
        context.task_names = task_names
        propose = InstrumentedTool(ProposePatch(context), context)
        apply = InstrumentedTool(ApplyPatch(context), context)
        yield Session(repo, approvals, context, propose, apply)


def applied_twice(
    tmp_path: Path, calc: str, old: str, new: str, task_names: tuple[str, ...] = ()
) -> tuple[list[dict[str, Any]], Session]:
    """Propose `old` -> `new` in a `patch_session` and call apply_patch on it twice: the
    two refusals as JSON, and the session."""
    with patch_session(tmp_path, calc, task_names) as session:
        session.propose(path="calc.py", old=old, new=new)
        replies = [str(session.apply(patch_id="p1")) for _ in range(2)]
    refusals = [json.loads(reply.split("\n\n[warning]")[0]) for reply in replies]
    return refusals, session


def test_a_no_fix_is_refused_once_before_anyone_is_asked_then_applied(tmp_path: Path) -> None:
    """The failing test does not call what the patch changes (a docstring task in a repository
    with a broken test): refused once, applied when asked again."""
    calc = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
    with patch_session(tmp_path, calc) as session:
        repo, approvals, apply = session.repo, session.approvals, session.apply
        proposed = json.loads(session.propose(path="calc.py", old="a * b", new="b * a"))
        assert "fixes none of the 1 failing tests" in json.dumps(proposed)
        refused = json.loads(apply(patch_id="p1"))
        assert refused["error"] == "invalid_argument", refused
        assert refused["message"].startswith("p1 was not applied: p1 fixes none of the 1")
        assert refused["message"].endswith(" Asked for again, it is applied.")
        assert refused["recovery_suggestion"] == (
            'Propose a different change: propose_patch(path="calc.py", '
            'old="<the exact text to change>", new="<the text as it should be>").'
        )
        assert (repo / "calc.py").read_text() == calc and approvals.asked == []
        applied = apply(patch_id="p1")
    assert str(applied).startswith("applied: p1 (calc.py)")
    assert (repo / "calc.py").read_text() == calc.replace("a * b", "b * a")
    assert len(approvals.asked) == 1


def test_a_change_to_what_the_failing_test_calls_that_fixes_nothing_is_never_applied(
    tmp_path: Path,
) -> None:
    """Asked again, Qwen2.5-Coder-1.5B had its no-fix change to total_stock() applied and
    wrote the next one on top of it (L8 in-process): a no-fix patch to a definition a
    still-failing test calls is refused every time, before anyone is asked."""
    refusals, session = applied_twice(tmp_path, CALC, "a + b", "b + a")
    for refused in refusals:
        assert refused["error"] == "invalid_argument", refused
        assert refused["message"] == (
            "p1 was not applied: test_sub calls sub(), which p1 changes, and test_sub fails as "
            "before: applied, p1 would leave the bug test_sub finds."
        )
        assert refused["recovery_suggestion"].startswith(
            'Propose a different change: propose_patch(path="calc.py", '
        )
    assert (session.repo / "calc.py").read_text() == CALC and session.approvals.asked == []
    assert session.context.patches.get("p1").status == "proposed"


def test_a_definition_written_again_with_its_bug_is_told_it_changes_no_code(
    tmp_path: Path,
) -> None:
    """Through llama-server Qwen2.5-Coder-1.5B wrote average() again for its def line, bug
    kept and docstring left out, and applied it (L6): the reply says it changes no code."""
    buggy = 'def sub(a, b):\n    """a minus b."""\n    return a + b\n'
    again = "def sub(a, b): return a + b"
    with patch_session(tmp_path, buggy) as session:
        proposed = json.loads(session.propose(path="calc.py", old="def sub(a, b):", new=again))
    assert "fixes none of the 1 failing tests" in proposed["next"], proposed
    assert "p1 changes no code: sub() in calc.py is the same code as before" in proposed["next"]
    assert "The wrong line is one of these: `return a + b`." in proposed["next"]


def test_a_definition_written_again_with_its_bug_is_never_applied(tmp_path: Path) -> None:
    """Refused, told "do not apply it", Qwen2.5-Coder-1.5B through llama-server applied such
    a patch on its last step all the same (L6): one that changes no code and fixes none of
    the failing tests is refused every time, with the lines to change instead."""
    buggy = 'def sub(a, b):\n    """a minus b."""\n    return a + b\n'
    again = "def sub(a, b): return a + b"
    refusals, session = applied_twice(tmp_path, buggy, "def sub(a, b):", again)
    for refused in refusals:
        assert refused["error"] == "invalid_argument", refused
        assert refused["message"] == (
            "p1 was not applied: p1 changes no code, and the failing tests fail as before: "
            "applied, it would change nothing the task needs."
        )
        assert "The wrong line is one of these: `return a + b`." in refused["recovery_suggestion"]
        assert "apply_patch" not in refused["recovery_suggestion"]
    assert (session.repo / "calc.py").read_text() == buggy and session.approvals.asked == []
    assert session.context.patches.get("p1").status == "proposed"


def test_a_change_elsewhere_while_the_task_s_failing_test_fails_is_never_applied(
    tmp_path: Path,
) -> None:
    """Asked to fix average(), Qwen2.5-Coder-1.5B changed weighted_total(), asked again and
    had it applied (L6 in-process): while a test that calls a name the task mentions fails
    as before, a no-fix patch is refused every time."""
    calc = CALC + "\n\ndef mul(a, b):\n    return a * b\n"
    names = ("sub", "calc.py")  # "sub() in calc.py is wrong. Fix it."
    refusals, session = applied_twice(tmp_path, calc, "a * b", "b * a", names)
    for refused in refusals:
        assert refused["message"] == (
            "p1 was not applied: test_sub calls sub(), which the task names, and test_sub "
            "fails as before: applied, p1 would leave the bug test_sub finds."
        ), refused
    assert (session.repo / "calc.py").read_text() == calc and session.approvals.asked == []
