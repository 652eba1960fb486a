"""An attempt that stops getting closer is stopped (`agent.attempt_patience`), and a job of
such attempts starts again, hotter, until a version passes (`agent.fresh_start`, through
`run_job` with real tools and the local sandbox running the repository's tests)."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.attempt_patience import AttemptPatience, best_patch, failing_tests
from lsp_agent.agent.fresh_start import ATTEMPT_TEMPERATURES, next_attempt
from lsp_agent.models.messages import message_text
from lsp_agent.settings import Settings
from safety.run_state import NO_PROGRESS
from sandbox.protocol import PatchCheck
from tests.jobs import run_scripted
from tests.tool_context import tool_context
from tools.base import ToolContext
from tools.patches import apply_whole_file
from tools.workspace import DiskWorkspace

TASK = "Implement the stub in calc.py so that the tests in test_calc.py pass."


def failing(*names: str, fixed: tuple[str, ...] = ()) -> PatchCheck:
    ids = tuple(f"test_calc.py::{name}" for name in names)
    output = "".join(f"FAILED test_calc.py::{name} - AssertionError\n" for name in names)
    return PatchCheck(True, False, output, 0.1, still_failing=ids, fixed=fixed)


PASSES = PatchCheck(True, True, "3 passed", 0.1, fixed=("test_calc.py::test_add",))


def context_of(root: Path) -> ToolContext:
    root.mkdir(exist_ok=True)
    (root / "calc.py").write_text("def add(a, b):\n    pass\n", encoding="utf-8")
    return tool_context(DiskWorkspace(root))


def propose(context: ToolContext, check: PatchCheck, body: str) -> str:
    result = apply_whole_file("calc.py", f"def add(a, b):\n    {body}\n", context.workspace, 200)
    return context.patches.add(result.diff, result, check).id


def test_steps_after_a_failing_version_without_a_better_one_stop_the_attempt(
    tmp_path: Path,
) -> None:
    context = context_of(tmp_path)
    patience = AttemptPatience(context, enabled=True)
    patience.after_step()  # a read before any version: not counted
    assert not context.state.stopped
    propose(context, failing("test_add", "test_sub", "test_mul"), "return a - b")
    patience.after_step()  # the attempt's first version starts its patience
    assert not context.state.stopped
    propose(context, failing("test_add", "test_sub"), "return a * b")
    patience.after_step()  # better: fewer tests fail
    assert not context.state.stopped and patience.best == 2
    propose(context, failing("test_add", "test_mul"), "return a ** b")
    patience.after_step()  # as many failing: no better
    signal = context.state.stop_signal
    assert context.state.stopped and signal is not None and signal.kind == NO_PROGRESS
    assert "no version that passes more tests" in signal.hint


def test_a_step_that_only_asks_to_apply_a_version_uses_no_patience(tmp_path: Path) -> None:
    context = context_of(tmp_path)
    patience = AttemptPatience(context, enabled=True)
    propose(context, failing("test_add"), "return a - b")
    patience.after_step(["propose_file"])
    patience.after_step(["apply_patch"])  # its answer (applied, or refused) is feedback
    assert not context.state.stopped
    patience.after_step(["read_file"])
    assert context.state.stopped


def test_a_passing_version_a_question_and_checks_without_tests_stop_nothing(
    tmp_path: Path,
) -> None:
    context = context_of(tmp_path)
    question = AttemptPatience(context, enabled=False)
    propose(context, failing("test_add"), "return a - b")
    for _ in range(3):
        question.after_step()
    assert not context.state.stopped
    patience = AttemptPatience(context, enabled=True)  # a later attempt: p1 failed
    propose(context, PASSES, "return a + b")
    patience.after_step()
    assert not context.state.stopped, "a passing version is applied, not abandoned"
    untested = context_of(tmp_path / "other")
    plain = AttemptPatience(untested, enabled=True)
    propose(untested, PatchCheck(True, None, "applies", 0.1), "return a + b")
    for _ in range(3):
        plain.after_step()
    assert not untested.state.stopped
    assert failing_tests(untested.patches.all()[0]) is None


def test_a_later_attempts_first_draw_no_better_than_the_jobs_best_ends_it(
    tmp_path: Path,
) -> None:
    """A later attempt is a fresh draw: a version no better than the job's best, or a step
    without one (code that does not parse), ends it at once; a better one may be improved."""
    context = context_of(tmp_path)
    propose(context, failing("test_add", "test_sub"), "return a - b")
    later = AttemptPatience(context, enabled=True)
    later.after_step(["a code block"])  # a SyntaxError, no version
    assert context.state.stopped
    context.state.start_again()
    again = AttemptPatience(context, enabled=True)
    propose(context, failing("test_add"), "return a * b")
    again.after_step(["propose_file"])  # better than p1: the attempt goes on
    assert not context.state.stopped
    propose(context, failing("test_add"), "return a ** b")
    again.after_step(["propose_file"])
    assert context.state.stopped


def by_value(*names: str) -> PatchCheck:
    """A check whose failing tests ran and got wrong values (pytest's sections)."""
    output = "".join(
        f"____ {name} ____\n>       assert add(1, 2) == 3\nE       assert -1 == 3\n"
        for name in names
    )
    ids = tuple(f"test_calc.py::{name}" for name in names)
    return PatchCheck(True, False, output, 0.1, still_failing=ids)


def test_a_later_attempts_draw_whose_values_are_off_is_repaired_once(tmp_path: Path) -> None:
    """space-age: a draw with round(…, 1) for two places failed all eight tests, as every
    version had; its values were off, so one more step sees them before the next draw."""
    context = context_of(tmp_path)
    propose(context, failing("test_add", "test_sub"), "return a - b")
    later = AttemptPatience(context, enabled=True)
    propose(context, by_value("test_add", "test_sub"), "return a - b + 0")
    later.after_step(["propose_file"])  # no better, but its code runs: repaired once
    assert not context.state.stopped
    propose(context, by_value("test_add", "test_sub"), "return a - b + 1")
    later.after_step(["propose_file"])  # the repair is no better: the attempt ends
    assert context.state.stopped
    context.state.start_again()
    erring = AttemptPatience(context, enabled=True)
    propose(context, failing("test_add", "test_sub"), "return a.b")  # an error, not values
    erring.after_step(["propose_file"])
    assert context.state.stopped
    first = context_of(tmp_path / "first")  # the first attempt: one step of patience
    patience = AttemptPatience(first, enabled=True)
    propose(first, by_value("test_add"), "return a - b")
    patience.after_step(["propose_file"])
    propose(first, by_value("test_add"), "return a - b + 0")
    patience.after_step(["propose_file"])
    assert first.state.stopped


def test_a_later_attempt_starts_from_the_jobs_best_version_and_its_failures(
    tmp_path: Path,
) -> None:
    context = context_of(tmp_path)
    propose(context, failing("test_add", "test_sub"), "return a - b  # p1")
    best = propose(context, failing("test_sub"), "return a * b  # p2")
    propose(context, failing("test_add", "test_sub"), "return a / b  # p3")
    assert best_patch(context) is not None and best_patch(context).id == best  # type: ignore[union-attr]
    patience = AttemptPatience(context, enabled=True)  # p1-p3 seen: none of them new
    patience.started = True  # as after the attempt's first version
    patience.after_step()  # a step without a better version
    assert context.state.stopped
    attempt = next_attempt(context, TASK, 10, answered=False, attempts=2)
    assert attempt is not None and attempt.number == 3
    assert attempt.note.startswith(
        "Attempt 2 at this task stopped: its last versions left no fewer tests failing. This "
        "is attempt 3, with a fresh start and the 10 steps left."
    ), attempt.note
    assert "Its best version, p2 (calc.py), is proposed, not applied." in attempt.note
    assert "1 tests still fail with p2" in attempt.note
    assert "# p2" not in attempt.note, "a fresh draw: the version is not shown"
    assert attempt.note.endswith("Write the whole of it again, a different version.")
    assert next_attempt(context, TASK, 3, answered=False, attempts=2) is None  # steps
    assert next_attempt(context, "What does add() do?", 10, answered=False) is None


def calc_repo(root: Path) -> Path:
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    pass\n", encoding="utf-8")
    (root / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_negative():\n"
        "    assert add(-1, -2) == -3\n",
        encoding="utf-8",
    )
    return root


def version(body: str) -> dict[str, object]:
    content = f"def add(a, b):\n    {body}\n"
    return {"tool": "propose_file", "arguments": {"path": "calc.py", "content": content}}


def test_a_job_whose_versions_stop_getting_closer_starts_again_hotter_until_one_passes(
    tmp_path: Path,
) -> None:
    repo = calc_repo(tmp_path / "repo")
    read = {"tool": "read_file", "arguments": {"path": "test_calc.py"}}
    turns = [
        version("return a - b"),  # passes test_zero only
        read,  # no better version: the attempt's patience is used up
        version("return a.b"),  # attempt 2: an AttributeError, no better: a new draw
        version("return a + b"),  # attempt 3: passes
        {"tool": "apply_patch", "arguments": {"patch_id": "p3"}},
        {"final_answer": "add() adds."},
    ]
    settings = Settings(
        sandbox_backend="local",
        phoenix_enabled=False,
        agent_max_steps=14,
        agent_edit_formats=("whole_file",),
        check_command="python -m pytest -q test_calc.py",
    )
    result, events, model = run_scripted(repo, turns, settings, TASK)
    assert result.status == "answered", result
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    notices = [e.message for e in events if e.kind == "notice"]
    assert len(notices) == 2, notices
    assert all(n.startswith("The agent's versions stopped passing more tests") for n in notices)
    temperatures = [call.kwargs.get("temperature") for call in model.calls]
    second, third_and_later = ATTEMPT_TEMPERATURES
    assert temperatures == [None, None, second, *[third_and_later] * 3]
    third = [message_text(m.content) for m in model.calls[3].messages]
    assert not any("return a - b" in text for text in third), "no earlier step, no version"
    assert "This is attempt 3" in third[1] and "Its best version, p1" in third[1]
