"""The InstrumentedTool wrapper: order of checks, metadata, errors, state, spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from safety.approvals import Outcome, Status
from safety.errors import ErrorType, ValidationError
from safety.policy import CommandPolicy
from tests.tool_context import tool_context
from tools.approval_gate import ApprovalAsk, AutoApprove
from tools.base import AgentTool, ToolContext, ToolFailure, ToolLimits
from tools.instrumented import InstrumentedTool
from tools.patches.model import PatchError
from tools.workspace import DiskWorkspace

ERROR_KEYS = {"error", "message", "tool", "context", "recovery_suggestion"}


class RecordingGate:
    def __init__(self, approve: bool, events: list[str]) -> None:
        self.approve = approve
        self.events = events
        self.asked: list[ApprovalAsk] = []

    def ask(self, ask: ApprovalAsk) -> Outcome:
        self.events.append("approval")
        self.asked.append(ask)
        status = Status.APPROVED if self.approve else Status.REJECTED
        return Outcome("t", status, by="test", reason="" if self.approve else "user said no")


class RecordingPolicy(CommandPolicy):
    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def evaluate(self, command: str, *, context: str = "host"):  # type: ignore[override]
        self.events.append("policy")
        return super().evaluate(command, context=context)


class ShellTool(AgentTool):
    name = "shell_tool"
    description = "Runs nothing; records the call."
    inputs = {
        "command": {"type": "string", "description": "A command."},
        "path": {"type": "string", "description": "A path.", "nullable": True},
    }
    command_input = "command"
    path_inputs = ("path",)

    def __init__(self, context: ToolContext, events: list[str], result: Any = "ok") -> None:
        self.events = events
        self.result = result
        super().__init__(context)

    def forward(self, command: str, path: str | None = None) -> Any:
        self.events.append("execute")
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


@pytest.fixture
def events() -> list[str]:
    return []


@pytest.fixture
def memory() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def make(
    tmp_repo: Path,
    events: list[str],
    memory: InMemorySpanExporter,
    *,
    approve=True,
    result: Any = "ok",
    limits: ToolLimits | None = None,
):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    gate = RecordingGate(approve, events)
    context = tool_context(
        DiskWorkspace(tmp_repo),
        limits=limits or ToolLimits(),
        policy=RecordingPolicy(events),
        approvals=gate,
        tracer=provider.get_tracer("test"),
    )
    inner = ShellTool(context, events, result)
    return InstrumentedTool(inner, context), inner, gate, context


def test_metadata_is_copied_not_shared(tmp_repo, events, memory) -> None:
    wrapped, inner, _, _ = make(tmp_repo, events, memory)
    assert (wrapped.name, wrapped.description, wrapped.output_type) == (
        inner.name,
        inner.description,
        inner.output_type,
    )
    assert wrapped.inputs == inner.inputs
    assert wrapped.inputs is not inner.inputs
    assert wrapped.inputs["command"] is not inner.inputs["command"]
    wrapped.inputs["command"]["description"] = "changed"
    assert inner.inputs["command"]["description"] == "A command."


def test_allowed_command_runs_without_approval(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory)
    assert wrapped(command="ls -la") == "ok"
    assert events == ["policy", "execute"]


def test_deny_never_executes_and_never_asks(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory)
    error = json.loads(wrapped(command="rm -rf /"))
    assert set(error) == ERROR_KEYS
    assert error["error"] == ErrorType.COMMAND_DENIED
    assert events == ["policy"]


def test_require_approval_waits_for_the_gate_and_rejection_executes_nothing(
    tmp_repo, events, memory
) -> None:
    wrapped, _, gate, _ = make(tmp_repo, events, memory, approve=False)
    observation = wrapped(command="pip install numpy")
    error = json.loads(observation)
    assert error["error"] == ErrorType.APPROVAL_REJECTED
    assert error["message"].startswith("rejected:") and "user said no" in error["message"]
    assert events == ["policy", "approval"]
    assert gate.asked[0].content == "pip install numpy"


def test_approval_lets_it_run(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory, approve=True)
    assert wrapped(command="pip install numpy") == "ok"
    assert events == ["policy", "approval", "execute"]


def test_validation_comes_first(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory)
    escaped = json.loads(wrapped(command="pip install numpy", path="../outside"))
    assert escaped["error"] == ErrorType.PATH_OUTSIDE_WORKSPACE
    # From the second failure in a row, a loop hint follows the error (its own paragraph).
    unknown, _ = json.JSONDecoder().raw_decode(wrapped(command="ls", pth="x"))
    assert "Did you mean 'path'" in unknown["message"]
    assert "shell_tool(command: string, path?: string)" in unknown["recovery_suggestion"]
    missing, _ = json.JSONDecoder().raw_decode(wrapped(path="a.txt"))
    assert "needs the argument 'command'" in missing["message"]
    assert events == [], "nothing judged, asked or run after a bad input"


def test_oversized_input_is_refused(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory, limits=ToolLimits(max_input_chars=10))
    error = json.loads(wrapped(command="echo " + "x" * 50))
    assert error["error"] == ErrorType.INPUT_TOO_LARGE and events == []


class LooksLikeAToolError(Exception):
    """Not in the ToolError family: the wrapper matches on the type, not on `to_error`."""

    def to_error(self, tool: str) -> dict[str, Any]:
        return {"error": "spoofed", "tool": tool}


@pytest.mark.parametrize(
    ("raised", "error_type"),
    [
        (ToolFailure(ErrorType.FILE_NOT_FOUND, "nope", "look elsewhere"), ErrorType.FILE_NOT_FOUND),
        (PatchError("bad hunk", recovery_suggestion="re-read"), ErrorType.PATCH_INVALID),
        (ValidationError(ErrorType.INVALID_PATH, "bad", "fix it"), ErrorType.INVALID_PATH),
        (LooksLikeAToolError("x"), ErrorType.INTERNAL_ERROR),
        (FileNotFoundError(2, "No such file", "a.py"), ErrorType.FILE_NOT_FOUND),
        (RuntimeError("bug"), ErrorType.INTERNAL_ERROR),
        (KeyError("x"), ErrorType.INTERNAL_ERROR),
    ],
)
def test_every_failure_becomes_the_error_schema(tmp_repo, events, memory, raised, error_type):
    wrapped, *_ = make(tmp_repo, events, memory, result=raised)
    error = json.loads(wrapped(command="ls"))
    assert set(error) == ERROR_KEYS
    assert error["error"] == error_type and error["tool"] == "shell_tool"
    assert error["recovery_suggestion"]


def test_long_output_is_truncated_with_a_note(tmp_repo, events, memory) -> None:
    text = "".join(f"line {i}\n" for i in range(500))
    wrapped, *_ = make(
        tmp_repo, events, memory, result=text, limits=ToolLimits(max_output_lines=20)
    )
    out = wrapped(command="ls")
    assert out.startswith("line 0\n") and "line 100" not in out
    assert "480 more lines" in out or "not shown" in out


def test_dict_results_stay_valid_json_when_truncated(tmp_repo, events, memory) -> None:
    result = {"exit_code": 0, "stdout": "x\n" * 1000}
    wrapped, *_ = make(
        tmp_repo, events, memory, result=result, limits=ToolLimits(max_output_lines=10)
    )
    out = json.loads(wrapped(command="ls"))
    assert out["exit_code"] == 0 and len(out["stdout"]) < 500


def test_state_records_calls_and_warns_on_loops(tmp_repo, events, memory) -> None:
    wrapped, _, _, context = make(tmp_repo, events, memory)
    outputs = [wrapped(command="ls") for _ in range(4)]
    assert len(context.state.calls) == 4
    assert all(call.tool == "shell_tool" for call in context.state.calls)
    assert "[warning]" in outputs[2] or "[warning]" in outputs[3]


def test_span_per_call_with_attributes(tmp_repo, events, memory) -> None:
    wrapped, *_ = make(tmp_repo, events, memory, approve=False)
    wrapped(command="pip install numpy")
    (span,) = memory.get_finished_spans()
    assert span.name == "tool_wrapped.shell_tool"
    attrs = dict(span.attributes or {})
    assert attrs["openinference.span.kind"] == "TOOL"
    assert attrs["tool.name"] == "shell_tool"
    assert attrs["lsp_agent.policy.verdict"] == "REQUIRE_APPROVAL"
    assert attrs["lsp_agent.policy.rule"]
    assert attrs["lsp_agent.approval.outcome"] == "rejected"
    assert attrs["lsp_agent.error.type"] == "approval_rejected"
    assert attrs["lsp_agent.error.recovery_hint"]
    assert len(str(attrs["lsp_agent.tool.args_hash"])) == 16
    assert attrs["lsp_agent.tool.input_chars"] > 0 and attrs["lsp_agent.tool.output_chars"] > 0
    assert attrs["lsp_agent.tool.truncated"] is False
    assert attrs["lsp_agent.tool.duration_ms"] >= 0
    assert "pip install numpy" in str(attrs["input.value"])
    assert "rejected" in str(attrs["output.value"])


def test_span_is_current_while_the_tool_runs_and_not_after(tmp_repo, events, memory) -> None:
    wrapped, inner, *_ = make(tmp_repo, events, memory)
    seen: list[str] = []

    def forward(command: str, path: str | None = None) -> str:
        seen.append(getattr(trace.get_current_span(), "name", ""))
        return "ok"

    inner.forward = forward  # type: ignore[method-assign]
    wrapped(command="ls")
    assert seen == ["tool_wrapped.shell_tool"], "sandbox spans nest under the tool span"
    assert not trace.get_current_span().get_span_context().is_valid, "context is restored"


def test_a_bug_in_the_wrapper_is_raised_and_recorded_on_the_span(
    tmp_repo, events, memory, monkeypatch
) -> None:
    wrapped, _, _, context = make(tmp_repo, events, memory)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("state is broken")

    monkeypatch.setattr(context.state, "record", broken)
    with pytest.raises(RuntimeError, match="state is broken"):
        wrapped(command="ls")
    (span,) = memory.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    assert [event.name for event in span.events] == ["exception"]
    assert not trace.get_current_span().get_span_context().is_valid, "context is restored"


def test_wrapper_works_inside_a_smolagents_agent(tmp_repo, events, memory) -> None:
    from smolagents import ToolCallingAgent

    from lsp_agent.models.scripted import ScriptedModel

    wrapped, *_ = make(tmp_repo, events, memory)
    model = ScriptedModel(
        [
            {"tool": "shell_tool", "arguments": {"command": "ls"}},
            {"final_answer": "done"},
        ]
    )
    agent = ToolCallingAgent(tools=[wrapped], model=model, max_steps=3, verbosity_level=-1)
    assert agent.run("list files") == "done"
    assert events == ["policy", "execute"]


def test_auto_approve_gate_approves() -> None:
    from safety.approvals import ApprovalKind

    outcome = AutoApprove().ask(ApprovalAsk(ApprovalKind.COMMAND, "x", "x"))
    assert outcome.approved


def test_a_loop_warning_names_the_task_file_not_read_yet_with_the_call(tmp_path: Path) -> None:
    """Told only to "try something else", Qwen2.5-Coder-1.5B called repo_info and list_files
    in turn until the run was stopped, and never read the stub the task named."""
    from tools.registry import build_tools

    (tmp_path / "pangram.py").write_text("def is_pangram(sentence):\n    pass\n")
    (tmp_path / "pangram_test.py").write_text("import pangram\n")
    context = tool_context(tmp_path, task_files=("pangram.py", "pangram_test.py"))
    tools = {tool.name: tool for tool in build_tools(context)}
    outputs = [
        tools[name](**arguments)
        for name, arguments in [
            ("repo_info", {}),
            ("list_files", {"pattern": "*.py"}),
            ("repo_info", {}),
            ("list_files", {"pattern": "*.py"}),
        ]
    ]
    assert "[warning]" in outputs[-1]
    assert outputs[-1].endswith(
        'The task names pangram.py, not read yet: read_file(path="pangram.py").'
    )
    assert "def is_pangram" in tools["read_file"](path="pangram.py")
    assert context.seen_paths == {"pangram.py"}
    tools["read_file"](path="missing.py")  # a failed read reads nothing
    for _ in range(2):
        out = tools["repo_info"]()
        out = tools["read_file"](path="pangram.py")
    assert "[warning]" in out
    assert out.endswith('not read yet: read_file(path="pangram_test.py").'), out
    assert context.seen_paths == {"pangram.py"}
