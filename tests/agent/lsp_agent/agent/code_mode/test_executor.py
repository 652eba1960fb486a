"""The host's side of code mode's tool calls (`SandboxedPythonExecutor.serve_call`): every
proxied call goes through the real wrapped tool, errors are flagged for the code to raise,
and once the job is stopped no call runs. No code runs here: the container is never started."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_agent.agent.code_mode.executor import CodeStepError, SandboxedPythonExecutor
from sandbox.code.session import CodeSession
from tests.tool_context import tool_context
from tools.base import ToolContext
from tools.registry import build_tools
from tools.workspace import DiskWorkspace


def never_started() -> object:
    raise AssertionError("no container in this test")


def executor_for(repo: Path, stopped: list[str]) -> tuple[SandboxedPythonExecutor, ToolContext]:
    context = tool_context(DiskWorkspace(repo))
    executor = SandboxedPythonExecutor(
        CodeSession(never_started),  # type: ignore[arg-type]
        max_chars=3000,
        max_lines=150,
        stop_reason=lambda: stopped[0] if stopped else None,
    )
    tools = {tool.name: tool for tool in build_tools(context)}
    executor.send_tools({**tools, "final_answer": tools["repo_info"]})
    return executor, context


def task_file_executor(
    tmp_path: Path, path: str, text: str
) -> tuple[SandboxedPythonExecutor, ToolContext]:
    """An executor on a repository of one task file, its hooks wired to the file's
    WrittenDefinitions as code mode wires them (`CodeMode.monitor`)."""
    from lsp_agent.agent.code_mode.written_definitions import WrittenDefinitions

    (tmp_path / path).write_text(text, encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = (path,)
    written = WrittenDefinitions(context)
    executor = SandboxedPythonExecutor(
        CodeSession(never_started),  # type: ignore[arg-type]
        max_chars=3000,
        max_lines=150,
        after_step=written,
        tool_defined=written.tool_defined,
        write_instead=written.write_instead,
    )
    executor.send_tools({tool.name: tool for tool in build_tools(context)})
    return executor, context


def test_calls_pass_the_wrapper_and_errors_are_flagged(tmp_repo: Path) -> None:
    executor, context = executor_for(tmp_repo, [])
    names = [tool["name"] for tool in executor.session.tools]
    assert "final_answer" not in names and "propose_patch" in names
    assert {"name": "read_file", "inputs": ["path", "start_line", "end_line"]} in (
        executor.session.tools
    )
    text, is_error = executor.serve_call("read_file", {"path": "pkg/calc.py"})
    assert "return a + b" in text and not is_error
    text, is_error = executor.serve_call("read_file", {"path": "../outside.txt"})
    assert is_error and json.loads(text)["error"] == "path_outside_workspace"
    text, is_error = executor.serve_call("read_file", {"path": ".env"})
    assert is_error, text
    text, is_error = executor.serve_call("no_such_tool", {})
    assert is_error and text.startswith("NameError") and "read_file" in text
    assert context.state.summary()["tool_calls"] == 3  # recorded for loop detection


def test_once_stopped_no_call_runs(tmp_repo: Path) -> None:
    stopped: list[str] = []
    executor, context = executor_for(tmp_repo, stopped)
    stopped.append("the job was cancelled")
    text, is_error = executor.serve_call("read_file", {"path": "pkg/calc.py"})
    assert is_error and text == "RunStopped: the job was cancelled"
    assert context.state.summary()["tool_calls"] == 0


def test_code_observations_lose_their_headers_and_a_none_value() -> None:
    from lsp_agent.agent.code_mode.messages import compact_observation

    logs = "Execution logs:\nline 1\nline 2\n"
    assert compact_observation(logs + "Last output from code snippet:\nNone") == "line 1\nline 2"
    assert compact_observation(logs + "Last output from code snippet:\n42") == (
        "line 1\nline 2\nValue: 42"
    )
    assert compact_observation("Execution logs:\nLast output from code snippet:\n7") == "Value: 7"
    masked = "(result shortened to save context; it began: step 1)"
    assert compact_observation(masked) == masked


def test_a_failed_model_call_is_told_in_code_mode_terms() -> None:
    from lsp_agent.agent.code_mode.messages import unusable_reply_text
    from lsp_agent.models.robust import recovery_text

    text = unusable_reply_text(recovery_text("the model server timed out", None))
    assert text.startswith("Your last reply could not be used: the model server timed out.")
    assert "```python" in text and "tool call" not in text


def test_proxied_calls_have_a_budget_per_step_and_per_job(tmp_repo: Path) -> None:
    executor, context = executor_for(tmp_repo, [])
    executor.max_calls_per_step, executor.max_calls_per_job = 3, 5
    answers = [executor.serve_call("list_files", {"pattern": "*.py"}) for _ in range(4)]
    assert [is_error for _text, is_error in answers] == [False, False, False, True]
    assert answers[-1][0].startswith("CallBudgetExceeded: one step may make at most 3")
    executor.step_calls = 0  # a new step (what __call__ does)
    answers = [executor.serve_call("list_files", {"pattern": "*.py"}) for _ in range(2)]
    assert answers[0][1] is False and answers[1][1] is True
    assert "this task's code has made 5 tool calls" in answers[1][0]
    assert context.state.summary()["tool_calls"] == 4  # refused calls never ran


def test_code_that_defines_a_tool_is_not_run(tmp_repo: Path) -> None:
    # Qwen2.5-Coder-1.5B, told to apply its patch, wrote a stub of apply_patch instead.
    executor, _ = executor_for(tmp_repo, [])
    code = 'def apply_patch(patch_id):\n    return "Patch applied successfully"\n'
    try:
        executor(code)  # the container is never started: the check comes first
    except CodeStepError as exc:
        message = str(exc)
    else:
        raise AssertionError("the step ran")
    assert message == (
        "Your code defines apply_patch(), one of your tools, so it was not run: the tools are "
        "defined already, to be called, never written (print(apply_patch(patch_id=...)))."
    )
    assert "final_answer(answer=...)" in executor._defined_tools("def final_answer(a):\n    a\n")
    assert executor._defined_tools("def accumulate(c, f):\n    return c\n") == ""


def test_a_failed_call_that_quotes_a_variable_s_name_is_told_to_pass_the_variable(
    tmp_repo: Path,
) -> None:
    # bank-account: old_code and new_code were set, then propose_patch(old="old_code", …)
    executor, _ = executor_for(tmp_repo, [])
    executor.assigned |= {"old_code", "new_code"}  # what __call__ collects from the code
    text, is_error = executor.serve_call(
        "propose_patch", {"path": "pkg/calc.py", "old": "old_code", "new": "new_code"}
    )
    assert is_error and "'old' was not found" in text
    assert text.endswith(
        'Note: old="old_code", new="new_code" passed the text in quotes, not your variable '
        "of that name. Pass the variable without quotes: propose_patch(old=old_code, "
        "new=new_code, ...)."
    )
    # a call that works is left as it is, and a quoted text no variable has gets no note
    text, is_error = executor.serve_call("read_file", {"path": "pkg/calc.py"})
    assert not is_error and "Note:" not in text
    text, is_error = executor.serve_call("read_file", {"path": "old"})
    assert is_error and "Note:" not in text


def test_the_names_a_step_assigns_are_collected() -> None:
    from lsp_agent.agent.code_mode.executor import _assigned_names

    code = 'old_code = """x"""\nfor line in []:\n    pass\na, b = 1, 2\nprint(old_code)\n'
    assert _assigned_names(code) == {"old_code", "line", "a", "b"}
    assert _assigned_names("def f(:\n") == set()


def test_an_error_of_a_file_the_container_lacks_says_how_to_read_one(tmp_repo: Path) -> None:
    # parallel-letter-frequency: open("…_test.py") in the code, FileNotFoundError, 22 steps
    import pytest

    from lsp_agent.agent.code_mode.executor import NO_REPOSITORY
    from sandbox.code.session import StepOutcome

    executor, _ = executor_for(tmp_repo, [])
    errors = iter(
        [
            "FileNotFoundError: [Errno 2] No such file or directory: 'calc_test.py'",
            "NameError: name 'x' is not defined",
        ]
    )

    def failing(code: str, serve: object) -> StepOutcome:
        return StepOutcome(error=next(errors))

    executor.session.run_step = failing  # type: ignore[method-assign,assignment]
    with pytest.raises(CodeStepError) as raised:
        executor("print(open('calc_test.py').read())")
    assert str(raised.value).endswith("'calc_test.py'\n" + NO_REPOSITORY)
    assert 'print(read_file(path="..."))' in NO_REPOSITORY
    with pytest.raises(CodeStepError) as raised:
        executor("print(x)")
    assert str(raised.value) == "NameError: name 'x' is not defined"


def test_a_block_whose_definitions_were_proposed_is_not_failed_by_its_own_run(
    tmp_repo: Path,
) -> None:
    # paasio: `class MeteredFile(io.BufferedRandom)` without `import io` in the block
    from sandbox.code.session import StepOutcome

    executor, _ = executor_for(tmp_repo, [])

    def failing(code: str, serve: object) -> StepOutcome:
        return StepOutcome(error="NameError: name 'io' is not defined")

    executor.session.run_step = failing  # type: ignore[method-assign,assignment]
    executor.after_step = lambda code, calls: ("Your code writes MeteredFile …", ["propose_file"])
    output = executor("class MeteredFile(io.BufferedRandom):\n    pass\n")
    assert output.logs == (
        "(Running the block by itself raised NameError: name 'io' is not defined. That does "
        "not matter for the proposal below: the proposed file keeps its own imports, and its "
        "check ran the tests.)\nYour code writes MeteredFile …"
    )
    assert executor.last_calls == ["propose_file"]


def test_blocks_that_write_the_tools_one_by_one_are_pointed_at_the_task_and_stopped(
    tmp_path: Path,
) -> None:
    # hangman: after a stale step, run_cmd, read_file, git_status, … were written, one a step
    executor, context = task_file_executor(tmp_path, "hangman.py", "class Hangman:\n    pass\n")
    messages = []
    for name in ("run_cmd", "read_file", "git_status", "git_diff", "apply_patch"):
        try:
            executor(f"def {name}(*args):\n    return ''\n")
        except CodeStepError as exc:
            messages.append(str(exc))
    assert len(messages) == 5
    assert messages[0].endswith(
        "never written (print(run_cmd(command=...))). To change hangman.py, write the whole of "
        "Hangman in a block: it is proposed as a change to hangman.py."
    ), messages[0]
    assert "[warning]" in messages[1] and "[stop]" in messages[4], messages
    assert context.state.stopped


def test_a_call_of_a_tool_that_does_not_exist_is_told_the_tools_there_are(
    tmp_repo: Path,
) -> None:
    # bank-account: review_patch(patch_id="p2"), NameError, nine steps
    import pytest

    from sandbox.code.session import StepOutcome

    executor, _ = executor_for(tmp_repo, [])

    def failing(code: str, serve: object) -> StepOutcome:
        name = "review_patch" if "review_patch" in code else "total"
        return StepOutcome(error=f"NameError: name '{name}' is not defined")

    executor.session.run_step = failing  # type: ignore[method-assign,assignment]
    with pytest.raises(CodeStepError) as raised:
        executor('review_patch(patch_id="p2")')
    lines = str(raised.value).splitlines()
    assert lines[0] == "NameError: name 'review_patch' is not defined"
    assert lines[1].startswith(
        "review_patch() is not one of your tools, and there is none like it. Your tools are: "
    )
    assert "apply_patch" in lines[1] and lines[1].endswith(", final_answer.")
    with pytest.raises(CodeStepError) as raised:
        executor("print(total)")  # a variable, not a call: no list of tools
    assert str(raised.value) == "NameError: name 'total' is not defined"


def test_a_block_of_only_a_thought_is_told_so_and_counts_for_the_loop_guard(
    tmp_path: Path,
) -> None:
    # bank-account: "```python\nthought: I need to modify BankAccount …\n```", six steps of
    # "SyntaxError: invalid syntax (line 1 of your code)"
    import pytest

    from lsp_agent.agent.code_mode.executor import ONLY_A_THOUGHT
    from sandbox.code.session import StepOutcome

    executor, _ = task_file_executor(tmp_path, "bank.py", "class Bank:\n    pass\n")
    ran: list[str] = []

    def recording(code: str, serve: object) -> StepOutcome:
        ran.append(code)
        return StepOutcome()

    executor.session.run_step = recording  # type: ignore[method-assign,assignment]
    messages = []
    for _ in range(4):
        with pytest.raises(CodeStepError) as raised:
            executor("thought: I need to modify Bank to add checks.")
        messages.append(str(raised.value))
    assert ran == []  # nothing ran
    assert messages[0] == (
        f"{ONLY_A_THOUGHT}\nTo change bank.py, write the whole of Bank in a block: it is "
        "proposed as a change to bank.py."
    )
    assert "[warning]" in messages[2] and "[stop]" in messages[3], messages
    executor("thought: the class\n```python\nx = 1\n")  # opened again: the code after runs
    assert ran == ["x = 1"]


def test_an_import_of_a_repository_module_says_how_to_run_its_tests(tmp_repo: Path) -> None:
    # pascals-triangle: the test class and `from pascals_triangle import rows` in a block,
    # "No module named 'pascals_triangle'" three steps in a row
    import pytest

    from lsp_agent.agent.code_mode.executor import REPOSITORY_IMPORT
    from sandbox.code.session import StepOutcome

    executor, context = executor_for(tmp_repo, [])
    executor.workspace_file = context.workspace.exists
    errors = iter(
        [
            "ModuleNotFoundError: No module named 'pkg.calc'",
            "ModuleNotFoundError: No module named 'numpy'",
            "ModuleNotFoundError: No module named '..calc'",
        ]
    )

    def failing(code: str, serve: object) -> StepOutcome:
        return StepOutcome(error=next(errors))

    executor.session.run_step = failing  # type: ignore[method-assign,assignment]
    with pytest.raises(CodeStepError) as raised:
        executor("from pkg.calc import add")
    assert str(raised.value).endswith("'pkg.calc'\n" + REPOSITORY_IMPORT)
    assert "print(run_tests())" in REPOSITORY_IMPORT
    for code in ("import numpy", "from ..calc import add"):  # not the repository's
        with pytest.raises(CodeStepError) as raised:
            executor(code)
        assert REPOSITORY_IMPORT not in str(raised.value)
