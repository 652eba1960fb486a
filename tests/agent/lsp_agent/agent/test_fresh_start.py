"""A job's second attempt after a loop stop or an answer without the change
(`agent.fresh_start`): when it starts, what its note says, and jobs that loop or answer,
start again and make their change, through `run_job`."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.fresh_start import next_attempt
from lsp_agent.models.messages import message_text
from lsp_agent.settings import Settings
from safety.run_state import STEP_LIMIT, LoopSignal
from sandbox.protocol import PatchCheck
from tests.jobs import fix_script, run_scripted
from tests.tool_context import tool_context
from tools.base import ToolContext
from tools.patches import apply_whole_file
from tools.workspace import DiskWorkspace

TASK = "Implement the stub in calc.py so that the tests in calc_test.py pass."
STUB = "def add(a, b):\n    pass\n"
FAILS = PatchCheck(
    True,
    False,
    "_____ test_add _____\n\n>       assert add(1, 2) == 3\nE       assert -1 == 3\n\n"
    "calc_test.py:4: AssertionError\n1 failed\n",
    0.1,
    still_failing=("calc_test.py::test_add",),
)
PARTLY = PatchCheck(  # fixes one test of two
    True,
    False,
    FAILS.output,
    0.1,
    fixed=("calc_test.py::test_sub",),
    still_failing=("calc_test.py::test_add",),
)
FIXES = PatchCheck(True, True, "1 passed", 0.1, fixed=("calc_test.py::test_add",))
SETTINGS = Settings(sandbox_backend="none", phoenix_enabled=False, agent_max_steps=12)


def second_attempt_note(
    context: ToolContext, task: str, steps_left: int, answered: bool = False
) -> str | None:
    attempt = next_attempt(context, task, steps_left, answered)
    return attempt.note if attempt is not None else None


def stopped_context(root: Path, kind: str = "repeat") -> ToolContext:
    (root / "calc.py").write_text(STUB, encoding="utf-8")
    (root / "calc_test.py").write_text("from calc import add\n", encoding="utf-8")
    context = tool_context(DiskWorkspace(root))
    hint = "Stopping the run: the loop went on after a warning. You called read_file again."
    context.state.stopped = True
    context.state.stop_signal = LoopSignal(kind, hint, 4, stop=True)
    return context


def propose(context: ToolContext, check: PatchCheck, body: str = "return a - b"):
    result = apply_whole_file("calc.py", f"def add(a, b):\n    {body}\n", context.workspace, 200)
    return context.patches.add(result.diff, result, check)


def test_a_loop_stopped_change_starts_again_with_its_last_proposal_and_failures(
    tmp_path: Path,
) -> None:
    context = stopped_context(tmp_path)
    assert "the 8 steps left" in (second_attempt_note(context, TASK, 8) or "")
    propose(context, PARTLY)
    note = second_attempt_note(context, TASK, 8) or ""
    assert "went round in circles (the loop went on after a warning." in note, note
    assert "Its last patch, p1 (calc.py), is proposed, not applied." in note
    assert "1 tests still fail with p1 (first: test_add" in note
    assert "calc.py as p1 has it:\n```\ndef add(a, b):\n    return a - b\n```" in note
    assert note.endswith("Write a corrected version.")


def test_an_applied_patch_that_leaves_failures_is_named_without_its_text(tmp_path: Path) -> None:
    context = stopped_context(tmp_path)
    p1 = propose(context, FAILS)
    context.patches.set_status(p1.id, "applied")
    note = second_attempt_note(context, TASK, 8) or ""
    assert "It applied p1 (calc.py), which is in the files now." in note, note
    assert "Change the code so that they pass." in note
    assert "```" not in note


def test_no_second_attempt_when_the_job_needs_none_or_cannot_have_one(tmp_path: Path) -> None:
    context = stopped_context(tmp_path)
    assert second_attempt_note(context, "What does add() return?", 8) is None  # a question
    assert second_attempt_note(context, f"{TASK} Only propose the fix.", 8) is None
    assert second_attempt_note(context, TASK, 3) is None  # too few steps left
    propose(context, FIXES)
    assert second_attempt_note(context, TASK, 8) is None  # the closing offer has it
    assert second_attempt_note(stopped_context(tmp_path, STEP_LIMIT), TASK, 8) is None
    running = stopped_context(tmp_path)
    running.state.stopped = False
    assert second_attempt_note(running, TASK, 8) is None
    step_limit = stopped_context(tmp_path, STEP_LIMIT)
    assert second_attempt_note(step_limit, TASK, 8, answered=True) is None
    declined = stopped_context(tmp_path)
    declined.patches.set_status(propose(declined, FAILS).id, "rejected", "not approved")
    propose(declined, FAILS, "return a * b")
    assert second_attempt_note(declined, TASK, 8) is None  # the user said no to p1


def test_an_answer_without_the_change_starts_again_with_what_the_patch_left(
    tmp_path: Path,
) -> None:
    context = stopped_context(tmp_path)
    context.state.stopped, context.state.stop_signal = False, None
    propose(context, FAILS, "return a - b  # kept as it was")
    attempt = next_attempt(context, TASK, 6, answered=True)
    assert attempt is not None
    assert attempt.note.startswith(
        "A first attempt at this task answered with the change not made. This is attempt 2, "
        "with a fresh start and the 6 steps left."
    ), attempt.note
    assert "1 tests still fail with p1 (first: test_add" in attempt.note
    assert attempt.note.endswith("Write a different change."), "p1 fixed none: not shown"
    assert "kept as it was" not in attempt.note
    assert attempt.notice.startswith("The agent answered without making the change")
    assert next_attempt(context, "What does add() return?", 6, answered=True) is None


def test_the_run_state_forgets_the_first_attempts_loops_only(tmp_path: Path) -> None:
    state = tool_context(DiskWorkspace(tmp_path)).state
    for _ in range(4):
        state.begin_step()
        signal = state.record("read_file", {"path": "calc.py"}, "text")
    assert signal is not None and signal.stop and state.stopped
    state.start_again()
    assert not state.stopped and state.stop_signal is None
    assert not state.repeats_last_call("read_file", {"path": "calc.py"})
    state.begin_step()
    assert state.record("read_file", {"path": "calc.py"}, "text") is None  # not a 5th repeat
    assert state.step == 5 and len(state.calls) == 5


def test_a_job_stopped_in_a_loop_starts_again_and_makes_its_change(tmp_repo: Path) -> None:
    read = {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}}
    fix = fix_script("pkg/calc.py", "return a + b", "return b + a", "Swapped the operands.")
    task = "add() in pkg/calc.py is wrong. Fix it."
    result, events, model = run_scripted(tmp_repo, [read] * 4 + fix[1:], SETTINGS, task)
    assert result.status == "answered", result
    assert result.answer == "Swapped the operands."
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert result.tools_used == ["read_file"] * 4 + ["propose_patch", "apply_patch", "final_answer"]
    notices = [e for e in events if e.kind == "notice"]
    assert len(notices) == 1 and "starts again" in notices[0].message, events
    assert "the 8 steps left" in notices[0].message
    steps = [(e.step, e.max_steps) for e in events if e.kind == "step"]
    assert steps == [(n, 12) for n in range(1, 8)], steps  # counted on, of the job's 12
    again = [message_text(m.content) for m in model.calls[4].messages]
    assert len(again) == 2, "the second attempt's history: the system prompt and the task"
    assert again[1].count("Fix it.") == 1 and "went round in circles" in again[1]


def test_a_question_stopped_in_a_loop_stays_stopped(tmp_repo: Path) -> None:
    read = {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}}
    turns = [read] * 5 + [{"final_answer": "It adds."}]
    result, events, model = run_scripted(tmp_repo, turns, SETTINGS, "What does add() do?")
    assert result.status == "stopped", result
    assert len(model.calls) == 4
    assert not [e for e in events if e.kind == "notice"]


def test_a_job_that_answers_without_its_change_starts_again_and_makes_it(
    tmp_repo: Path,
) -> None:
    unchanged = {"final_answer": "add() is correct as it is."}
    fix = fix_script("pkg/calc.py", "return a + b", "return b + a", "Swapped the operands.")
    task = "add() in pkg/calc.py is wrong. Fix it."
    result, events, model = run_scripted(tmp_repo, [unchanged] * 2 + fix[1:], SETTINGS, task)
    assert result.status == "answered", result
    assert result.answer == "Swapped the operands."
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return b + a\n"
    notices = [e.message for e in events if e.kind == "notice"]
    assert len(notices) == 1 and notices[0].startswith("The agent answered without"), notices
    again = [message_text(m.content) for m in model.calls[2].messages]
    assert len(again) == 2, "the second attempt's history: the system prompt and the task"
    assert "answered with the change not made" in again[1]


def test_a_job_that_answers_without_its_change_twice_keeps_its_second_answer(
    tmp_repo: Path,
) -> None:
    turns = [{"final_answer": f"No change is needed ({n})."} for n in range(4)]
    task = "add() in pkg/calc.py is wrong. Fix it."
    result, _, model = run_scripted(tmp_repo, turns, SETTINGS, task)
    assert result.status == "answered", result
    assert result.answer == "No change is needed (3).", "the second attempt's answer stands"
    assert len(model.calls) == 4
    assert (tmp_repo / "pkg" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
