"""smolagents' `PythonExecutor`, with the model's code run in a Docker container, never here.

smolagents' `LocalPythonExecutor` interprets the code in our process: it is not a boundary.
This executor hands each step's code to the job's `CodeSession` (sandbox/code/session.py:
a hardened container without the repository) and serves every tool call the code makes by
calling the host's `InstrumentedTool`, so each call passes validation, policy, approval,
truncation, redaction, loop detection and its `tool_wrapped.<name>` span exactly as in
tool-calling mode. A tool's error reaches the code as an exception; a failing step raises
here and smolagents makes it the step's error observation (the run goes on).

Proxied calls have a budget (`MAX_CALLS_PER_STEP`, `MAX_CALLS_PER_JOB`): a loop in one
step is no way to make thousands of calls (probing a redacted secret one pattern at a
time, or flooding the approval questions); past it every call is answered with an error.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from smolagents.local_python_executor import CodeOutput, PythonExecutor
from smolagents.tools import Tool

from lsp_agent.agent.code_mode.block_text import block_code
from lsp_agent.agent.observations import is_error_observation
from safety.secret_redaction import redact_secrets
from safety.truncation import truncate_output
from sandbox.code import CodeSession

log = logging.getLogger(__name__)

FINAL_ANSWER = "final_answer"  # defined by the runner itself: it ends the step
MAX_CALLS_PER_STEP = 40
MAX_CALLS_PER_JOB = 200
_NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined")
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


class CodeStepError(Exception):
    """The step's code failed (an exception, a timeout, a lost container): its message is
    what the model reads."""


class SandboxedPythonExecutor(PythonExecutor):  # type: ignore[misc]
    """Runs code steps in the job's code container; serves tool calls on the host."""

    def __init__(
        self,
        session: CodeSession,
        *,
        max_chars: int,
        max_lines: int,
        stop_reason: Callable[[], str | None] = lambda: None,
        after_step: Callable[[str, list[str]], tuple[str, list[str]]] = lambda code, calls: (
            "",
            [],
        ),
        tool_defined: Callable[[str], str] = lambda name: "",
        write_instead: Callable[[], str] = lambda: "",
        workspace_file: Callable[[str], bool] = lambda path: False,
        max_calls_per_step: int = MAX_CALLS_PER_STEP,
        max_calls_per_job: int = MAX_CALLS_PER_JOB,
    ) -> None:
        self.session = session
        self.max_calls_per_step = max_calls_per_step
        self.max_calls_per_job = max_calls_per_job
        self.step_calls = 0
        self.job_calls = 0
        self.stop_reason = stop_reason
        self.after_step = after_step
        self.tool_defined = tool_defined  # what to add when a block defining a tool is refused
        self.write_instead = write_instead  # what writes the task's code, when a block cannot
        self.workspace_file = workspace_file  # whether the repository has this file
        self.max_chars = max_chars
        self.max_lines = max_lines
        self.tools: dict[str, Tool] = {}
        # smolagents reads `state["_print_outputs"]` to keep a failed step's prints.
        self.state: dict[str, Any] = {}
        self.last_calls: list[str] = []
        self.assigned: set[str] = set()  # variables the job's code has assigned so far

    # ---- PythonExecutor ----------------------------------------------------------------
    def send_tools(self, tools: dict[str, Tool]) -> None:
        self.tools = {name: tool for name, tool in tools.items() if name != FINAL_ANSWER}
        self.session.tools = [
            {"name": name, "inputs": list(tool.inputs)} for name, tool in self.tools.items()
        ]

    def send_variables(self, variables: dict[str, Any]) -> None:
        self.session.variables = {
            str(name): value if _is_json(value) else str(value) for name, value in variables.items()
        }

    def __call__(self, code_action: str) -> CodeOutput:
        self.step_calls = 0
        code_action = self._meant(code_action)
        hidden = self._defined_tools(code_action)
        if hidden:
            raise CodeStepError(hidden)
        self.assigned |= _assigned_names(code_action)
        outcome = self.session.run_step(code_action, self.serve_call)
        self.last_calls = list(outcome.calls)
        # what the step's code implies (a proposal), and the calls that made it
        added, calls = self.after_step(code_action, self.last_calls)
        self.last_calls += calls
        logs = self._bounded(outcome.logs)
        if outcome.error is not None and not calls:
            self.state["_print_outputs"] = logs
            error = self._bounded(outcome.error)
            hints = (
                _no_repository_hint(error),
                self._repository_module(error),
                self._unknown_tool(error, code_action),
            )
            raise CodeStepError(_joined(error, *hints, added))
        if outcome.error is not None:  # the block's definitions were proposed: that counts
            logs = _joined(logs, _aside(self._bounded(outcome.error)))
        logs = _joined(logs, added)
        self.state["_print_outputs"] = logs
        output = None if outcome.output is None else self._bounded(outcome.output)
        return CodeOutput(output=output, logs=logs, is_final_answer=outcome.final)

    def _meant(self, code: str) -> str:
        """The code the block means (`block_text.block_code`); a block of nothing but a
        thought is the step's error, counted by the loop guard like any block."""
        meant = block_code(code)
        if meant.strip() or not code.strip():
            return meant
        self.last_calls = []
        added, _ = self.after_step(code, [])
        raise CodeStepError(_joined(ONLY_A_THOUGHT, self.write_instead(), added))

    def _defined_tools(self, code: str) -> str:
        """Why the step's code must not run when it defines a function named as a tool ("" when
        it does not): asked to apply its patch, Qwen2.5-Coder-1.5B wrote `def apply_patch(
        patch_id): return "Patch applied successfully"`, which would hide the tool from this
        step and every later one (the container keeps the code's names)."""
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return ""  # the step's own error says what is wrong
        names = [*self.tools, FINAL_ANSWER]
        defined = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.name in names
        ]
        if not defined:
            return ""
        name = defined[0]
        inputs = list(self.tools[name].inputs) if name in self.tools else ["answer"]
        call = f"{name}({', '.join(f'{i}=...' for i in inputs)})"
        return (
            f"Your code defines {name}(), one of your tools, so it was not run: the tools are "
            f"defined already, to be called, never written (print({call}))."
            + self.tool_defined(name)
        )

    def _repository_module(self, error: str) -> str:
        """REPOSITORY_IMPORT for a ModuleNotFoundError of one of the repository's modules
        ("" for others): Qwen2.5-Coder-1.5B wrote the test class with `from pascals_triangle
        import rows` and `unittest.main()` into its block, three steps of "No module named
        'pascals_triangle'" until the time limit (pascals-triangle)."""
        match = _MISSING_MODULE.search(error)
        if match is None:
            return ""
        parts = match[1].split(".")
        if not all(parts):  # a relative name (`..x`) is no repository module
            return ""
        base = "/".join(parts)
        try:
            found = any(self.workspace_file(p) for p in (f"{base}.py", f"{base}/__init__.py"))
        except (OSError, ValueError):  # a name the workspace refuses as a path
            return ""
        return REPOSITORY_IMPORT if found else ""

    def _unknown_tool(self, error: str, code: str) -> str:
        """For a NameError of a name the code calls, the tools there are ("" otherwise): with
        15 of 16 tests passing, Qwen2.5-Coder-1.5B called `review_patch(patch_id="p2")`, read
        `NameError: name 'review_patch' is not defined`, and called it again for nine
        steps (bank-account)."""
        match = _NAME_ERROR.search(error)
        if match is None or not re.search(rf"\b{re.escape(match[1])}\s*\(", code):
            return ""
        known = ", ".join([*self.tools, FINAL_ANSWER])
        return (
            f"{match[1]}() is not one of your tools, and there is none like it. Your tools "
            f"are: {known}."
        )

    def cleanup(self) -> None:
        self.session.close()

    # ---- the host's side of a tool call ------------------------------------------------
    def serve_call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """(observation, is_error) of one proxied call, through the tool's wrapper."""
        stopped = self.stop_reason()
        if stopped is not None:  # cancelled, or a loop stop: no more calls in this job
            return f"RunStopped: {stopped}", True
        over = self._over_budget()
        if over is not None:
            return over, True
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return f"NameError: there is no tool {name!r}; the tools are: {known}", True
        call = getattr(tool, "call", None)
        observation = str(call(arguments) if callable(call) else tool(**arguments))
        if not is_error_observation(observation):
            return observation, False
        return _joined(observation, self._quoted_variables(name, arguments)), True

    def _quoted_variables(self, tool: str, arguments: dict[str, Any]) -> str:
        """A note for a failed call that passed a variable's name in quotes ("" when none
        did): Qwen2.5-Coder-1.5B set `old_code = \"\"\"…\"\"\"` and `new_code`, then called
        `propose_patch(path=…, old="old_code", new="new_code")` four times, each failing with
        "'old' was not found", until the loop guard stopped the run (bank-account)."""
        quoted = [
            (key, value)
            for key, value in arguments.items()
            if isinstance(value, str) and value.strip() in self.assigned
        ]
        if not quoted:
            return ""
        given = ", ".join(f'{key}="{value.strip()}"' for key, value in quoted)
        fixed = ", ".join(f"{key}={value.strip()}" for key, value in quoted)
        return (
            f"Note: {given} passed the text in quotes, not your variable of that name. "
            f"Pass the variable without quotes: {tool}({fixed}, ...)."
        )

    def _over_budget(self) -> str | None:
        """Count one call; the error the code gets when it is one too many."""
        self.step_calls += 1
        self.job_calls += 1
        if self.job_calls > self.max_calls_per_job:
            return (
                f"CallBudgetExceeded: this task's code has made {self.max_calls_per_job} tool "
                "calls, the most it may; no tool call runs any more. Finish with final_answer "
                "and what you found."
            )
        if self.step_calls > self.max_calls_per_step:
            return (
                f"CallBudgetExceeded: one step may make at most {self.max_calls_per_step} tool "
                "calls; this one was not run. Print what you have, and ask for less per step "
                "(a glob or a narrower pattern instead of a loop over many calls)."
            )
        return None

    def _bounded(self, text: str) -> str:
        bounded, _ = truncate_output(redact_secrets(text), self.max_chars, self.max_lines)
        return bounded


ONLY_A_THOUGHT = (
    "Your block holds only a thought, no Python, so nothing ran. Write the thought before "
    "the ```python line and only code in the block."
)
NO_REPOSITORY = (
    "The code runs in a sandbox without the repository's files, so open() and os find none "
    'of them: read a file with print(read_file(path="...")), and change one by writing its '
    "whole function or class in a block, or with propose_patch."
)


REPOSITORY_IMPORT = (
    "The code runs in a sandbox without the repository's files, so import finds none of its "
    "modules: run the tests with print(run_tests()), read a file with "
    'print(read_file(path="...")), and change one by writing its whole function or class in '
    "a block."
)


def _no_repository_hint(error: str) -> str:
    """NO_REPOSITORY for an error of a file the container lacks ("" for others): Qwen2.5-
    Coder-1.5B opened the test file with open() and failed with FileNotFoundError for 22
    steps (parallel-letter-frequency)."""
    missing = ("FileNotFoundError", "NotADirectoryError", "No such file or directory")
    return NO_REPOSITORY if any(sign in error for sign in missing) else ""


def _aside(error: str) -> str:
    """A step error told beside a proposal of the step's definitions, not as the step's
    failure: `class MeteredFile(io.BufferedRandom)` in a block without `import io` raised
    NameError in the container, while the proposed paasio.py imports io; told the NameError
    as the step's error ("Fix the code and try again"), Qwen2.5-Coder-1.5B wrote the class
    again for four steps instead of reading the proposal's check."""
    last = error.strip().splitlines()[-1] if error.strip() else error
    return (
        f"(Running the block by itself raised {last}. That does not matter for the proposal "
        "below: the proposed file keeps its own imports, and its check ran the tests.)"
    )


def _assigned_names(code: str) -> set[str]:
    """The variable names `code` assigns anywhere (nothing when it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def _joined(*parts: str) -> str:
    return "\n".join(part for part in parts if part)


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
