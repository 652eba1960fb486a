"""Tests for run state and loop detection (safety.run_state)."""

from __future__ import annotations

import pytest

from safety.errors import ErrorType, tool_error
from safety.run_state import (
    CYCLE,
    PING_PONG,
    REPEAT,
    SAME_ERROR,
    SAME_TOOL_FAILING,
    STEP_LIMIT,
    AgentState,
    LoopStop,
    args_hash,
    command_not_run,
)


def test_steps_and_calls_are_recorded() -> None:
    state = AgentState(max_steps=3)
    assert state.step == 0 and state.steps_left == 3
    state.begin_step()
    assert state.record("read_file", {"path": "a.py"}, {"content": "x"}, duration_s=0.2) is None
    state.begin_step()
    state.record("rg_search", {"pattern": "x"}, error="boom", duration_s=0.1)
    (first, second) = state.calls
    assert (first.step, first.tool, first.ok, first.duration_s) == (1, "read_file", True, 0.2)
    assert first.args_hash == args_hash({"path": "a.py"})
    assert (second.ok, second.error) == (False, "boom")
    assert state.summary() == {
        "steps": 2,
        "tool_calls": 2,
        "errors": 1,
        "stopped": False,
        "stop_reason": None,
    }


def test_args_hash_ignores_key_order() -> None:
    assert args_hash({"a": 1, "b": 2}) == args_hash({"b": 2, "a": 1})
    assert args_hash({"a": 1}) != args_hash({"a": 2})
    assert args_hash(None) == args_hash({})


def test_tool_error_result_counts_as_error() -> None:
    state = AgentState()
    err = tool_error(
        ErrorType.FILE_NOT_FOUND, "File not found: x", tool="t", recovery_suggestion="r"
    )
    state.record("read_file", {"path": "x"}, err)
    assert state.calls[0].error == "file_not_found: File not found: x"


def test_repeat_hint_then_hard_stop() -> None:
    state = AgentState(repeat_limit=3)
    args = {"path": "a.py"}
    assert state.record("read_file", args) is None
    assert state.record("read_file", args) is None
    hint = state.record("read_file", args)
    assert hint is not None and hint.kind == REPEAT and not hint.stop
    assert "read_file" in hint.hint and "3 times" in hint.hint
    assert not state.stopped
    state.check()
    stop = state.record("read_file", args)
    assert stop is not None and stop.stop and state.stopped
    with pytest.raises(LoopStop) as info:
        state.check()
    assert info.value.signal.kind == REPEAT


def test_breaking_the_loop_after_a_hint_continues() -> None:
    state = AgentState()
    for _ in range(3):
        state.record("git_status", {})
    assert state.record("read_file", {"path": "b.py"}) is None
    assert not state.stopped


def test_same_tool_different_args_is_not_a_loop() -> None:
    state = AgentState()
    for i in range(10):
        assert state.record("read_file", {"path": f"f{i}.py"}) is None


def test_ping_pong() -> None:
    state = AgentState(ping_pong_cycles=2)
    a, b = ("read_file", {"path": "a"}), ("read_file", {"path": "b"})
    assert state.record(*a) is None
    assert state.record(*b) is None
    assert state.record(*a) is None
    hint = state.record(*b)
    assert hint is not None and hint.kind == PING_PONG and not hint.stop
    stop = state.record(*a)
    assert stop is not None and stop.stop and stop.kind == PING_PONG


def test_a_cycle_of_three_different_calls_hints_then_stops() -> None:
    # Qwen2.5-Coder-1.5B went round rg_search -> repo_info -> list_files eight times.
    state = AgentState()
    cycle = [
        ("rg_search", {"pattern": "X.py", "glob": "true"}),
        ("repo_info", {}),
        ("list_files", {"pattern": "*.py"}),
    ]
    for call in cycle * 1 + cycle[:2]:
        assert state.record(*call) is None
    hint = state.record(*cycle[2])
    assert hint is not None and hint.kind == CYCLE and not hint.stop
    assert "rg_search -> repo_info -> list_files" in hint.hint
    assert 'final_answer(answer="' in hint.hint
    assert not state.stopped
    signal = state.record(*cycle[0])  # going on with the same round after the warning
    assert signal is not None and signal.stop and state.stopped
    assert "Stopping the run" in signal.hint
    with pytest.raises(LoopStop):
        state.check()


def test_cycles_need_two_full_rounds_of_the_same_calls() -> None:
    state = AgentState()
    for round_ in range(4):
        for tool in ("rg_search", "repo_info", "list_files"):
            assert state.record(tool, {"round": round_}) is None


@pytest.mark.parametrize("period", [4, 5, 6])
def test_longer_cycles_are_caught_too(period: int) -> None:
    state = AgentState()
    calls = [("read_file", {"path": f"f{i}.py"}) for i in range(period)]
    for call in calls + calls[:-1]:
        assert state.record(*call) is None
    hint = state.record(*calls[-1])
    assert hint is not None and hint.kind == CYCLE


def test_same_error_repeated() -> None:
    state = AgentState(error_limit=3, failure_hint_at=3, failure_stop_at=9)
    for i in range(2):
        assert state.record("apply_patch", {"patch_id": f"p{i}"}, error="stale patch") is None
    hint = state.record("apply_patch", {"patch_id": "p9"}, error="stale patch")
    assert hint is not None and hint.kind == SAME_ERROR
    assert "stale patch" in hint.hint and "recovery_suggestion" in hint.hint
    stop = state.record("propose_patch", {"diff": "d"}, error="stale patch")
    assert stop is not None and stop.stop


def test_different_errors_of_different_tools_are_not_a_loop() -> None:
    state = AgentState()
    for i in range(6):
        tool = ("run_cmd", "read_file")[i % 2]
        assert state.record(tool, {"arg": f"c{i}"}, error=f"error {i}") is None


def test_one_tool_failing_with_changing_arguments_hints_then_stops() -> None:
    state = AgentState(failure_hint_at=2, failure_stop_at=5)
    assert state.record("run_tests", {"command": "c0"}, error="error 0") is None
    for i in range(1, 4):
        hint = state.record("run_tests", {"command": f"c{i}"}, error=f"error {i}")
        assert hint is not None and hint.kind == SAME_TOOL_FAILING and not hint.stop
        assert f"run_tests failed {i + 1} times in a row" in hint.hint
        assert "final_answer" in hint.hint
    assert not state.stopped
    stop = state.record("run_tests", {"command": "c4"}, error="error 4")
    assert stop is not None and stop.stop and stop.kind == SAME_TOOL_FAILING
    assert "Stopping the run: run_tests failed 5 times in a row" in stop.hint
    assert "error 4" in stop.hint
    assert state.stopped and state.summary()["stop_reason"] == SAME_TOOL_FAILING


def test_a_success_or_another_tool_resets_the_failure_count() -> None:
    state = AgentState(failure_hint_at=2, failure_stop_at=3)
    state.record("run_tests", {"command": "a"}, error="e1")
    state.record("run_tests", {"command": "b"}, error="e2")
    ran = {"exit_code": 1}  # the command ran; its tests failed: not a tool failure
    assert state.record("run_tests", {"command": "c"}, ran) is None
    state.record("run_tests", {"command": "d"}, error="e3")
    assert state.record("read_file", {"path": "x"}, error="e4") is None
    assert state.record("run_tests", {"command": "e"}, error="e5") is None
    assert not state.stopped


def test_a_command_that_never_ran_is_a_failure() -> None:
    assert command_not_run({"exit_code": 127, "stdout": ""}) == (
        "exit code 127: the command was not found"
    )
    assert command_not_run({"exit_code": 126}) is not None
    assert command_not_run({"exit_code": 1}) is None and command_not_run("text") is None
    state = AgentState()
    for i in range(4):
        state.record("run_tests", {"command": f"garbage{i}"}, {"exit_code": 127})
    assert state.calls[-1].ok is False
    assert state.stopped, "four identical 'not found' failures: hinted, then stopped"


def test_patience_allows_more_hints() -> None:
    state = AgentState(repeat_limit=2, patience=2)
    state.record("t", {})
    first = state.record("t", {})
    second = state.record("t", {})
    third = state.record("t", {})
    assert first is not None and not first.stop
    assert second is not None and not second.stop
    assert third is not None and third.stop


def test_step_limit_stops() -> None:
    state = AgentState(max_steps=2)
    state.begin_step()
    state.begin_step()
    assert not state.stopped
    state.begin_step()
    assert state.stopped and state.stop_signal is not None
    assert state.stop_signal.kind == STEP_LIMIT and "final_answer" in state.stop_signal.hint
    with pytest.raises(LoopStop):
        state.check()


def test_bad_limits_raise() -> None:
    with pytest.raises(ValueError):
        AgentState(repeat_limit=1)
    with pytest.raises(ValueError):
        AgentState(patience=0)
    with pytest.raises(ValueError):
        AgentState(failure_hint_at=3, failure_stop_at=3)
