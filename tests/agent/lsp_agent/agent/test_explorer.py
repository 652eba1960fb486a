"""The explorer sub-agent (AGENT_SUBAGENTS=explorer): scripted model, real tools, real repo."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lsp_agent.agent.explorer import EXPLORER_MAX_STEPS, EXPLORER_PROMPT, Explorer
from lsp_agent.agent.factory import AgentRun, build_agent
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.runtime import run_job
from lsp_agent.models.robust import RobustModel
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from tests.jobs import disk_job
from tests.tool_context import tool_context
from tests.tool_names import READ_ONLY_TOOLS
from tools.approval_gate import AutoApprove
from tools.workspace import DiskWorkspace

SETTINGS = Settings(
    sandbox_backend="none",
    phoenix_enabled=False,
    agent_max_steps=6,
    agent_subagents=("explorer",),
)
READ_ONLY = READ_ONLY_TOOLS | {"final_answer"}
ASK = {"tool": "explorer", "arguments": {"task": "Where is add() defined, what does it return?"}}
FOUND = "add() is in pkg/calc.py line 2; it returns a + b."
# The sub-agent tries to write (no such tools for it), then reads and answers.
SUB_TRIES_TO_WRITE = [
    {
        "tool": "propose_patch",
        "arguments": {"path": "pkg/calc.py", "old": "return a + b", "new": "return 0"},
    },
    {"tool": "run_cmd", "arguments": {"command": "echo pwned > pkg/calc.py"}},
    {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
    {"final_answer": FOUND},
]


def run(repo: Path, turns: list[dict], settings: Settings = SETTINGS, cancel=None, on=None):
    events: list[ProgressEvent] = []
    model = ScriptedModel(turns)

    def progress(event: ProgressEvent) -> None:
        events.append(event)
        if on is not None:
            on(event)

    result = run_job(
        disk_job(
            "explain add",
            repo,
            settings,
            progress=progress,
            cancel=cancel or threading.Event(),
            model=model,
        )
    )
    return result, events, model


def tool_results(call) -> list[str]:
    return [
        str(m.content[0]["text"] if isinstance(m.content, list) else m.content)
        for m in call.messages
        if str(getattr(m.role, "value", m.role)) == "tool-response"
    ]


def test_the_explorer_is_offered_only_when_configured(tmp_repo: Path) -> None:
    off = dataclasses.replace(SETTINGS, agent_subagents=())
    _, _, model = run(tmp_repo, [{"final_answer": "42"}], off)
    assert "explorer" not in model.calls[0].tool_names
    _, _, model = run(tmp_repo, [{"final_answer": "42"}])
    assert "explorer" in model.calls[0].tool_names


def test_the_explorer_is_read_only_and_its_answer_is_the_observation(tmp_repo: Path) -> None:
    before = (tmp_repo / "pkg" / "calc.py").read_bytes()
    turns = [ASK, *SUB_TRIES_TO_WRITE, {"final_answer": "add returns a + b (pkg/calc.py)."}]
    result, events, model = run(tmp_repo, turns)
    assert result.status == "answered", result
    assert (tmp_repo / "pkg" / "calc.py").read_bytes() == before  # nothing was written
    sub_calls = model.calls[1:5]
    for call in sub_calls:
        assert set(call.tool_names) == READ_ONLY
        assert EXPLORER_PROMPT in call.text()
        assert "Where is add() defined" in call.text()
    # The sub-agent was told those tools do not exist.
    assert "there is no tool `propose_patch`" in sub_calls[1].text()
    assert "there is no tool `run_cmd`" in sub_calls[2].text()
    # Its answer came back as the explorer call's observation.
    observation = tool_results(model.calls[5])[-1]
    assert observation.startswith("Explorer's answer (") and FOUND in observation
    assert result.tools_used == ["explorer", "final_answer"]
    assert result.steps == 2 and result.model_calls == 6
    # Its progress was reported, labelled as the explorer's, at the caller's step.
    labelled = [e for e in events if e.kind == "subagent"]
    assert {e.step for e in labelled} == {1} and all(e.tool == "explorer" for e in labelled)
    lines = [e.message for e in labelled]
    assert "explorer: running read_file" in lines
    # Its own step limit: min(EXPLORER_MAX_STEPS, AGENT_MAX_STEPS) = 6 here.
    assert any(line.startswith("explorer step 3/6 · read_file") for line in lines), lines
    assert not [e for e in events if e.kind == "tool" and e.tool in ("propose_patch", "run_cmd")]


def test_the_explorer_has_its_own_step_limit(tmp_repo: Path) -> None:
    settings = dataclasses.replace(SETTINGS, agent_max_steps=20)
    wander = [
        {"tool": "list_files", "arguments": {"pattern": f"*.{n}"}}
        for n in range(EXPLORER_MAX_STEPS)
    ]
    turns = [ASK, *wander, {"text": "Nothing found."}, {"final_answer": "I could not find it."}]
    result, _, model = run(tmp_repo, turns, settings)
    assert result.status == "answered", result
    observation = tool_results(model.calls[-1])[-1]
    assert f"used all its {EXPLORER_MAX_STEPS} steps" in observation
    assert "narrower question" in observation


def test_a_looping_explorer_is_stopped_and_the_caller_goes_on(tmp_repo: Path) -> None:
    same = {"tool": "list_files", "arguments": {"pattern": "*.py"}}
    turns = [ASK, same, same, same, same, {"final_answer": "I will look myself."}]
    result, _, model = run(tmp_repo, turns)
    assert result.status == "answered", result
    error = json.loads(tool_results(model.calls[-1])[-1])
    assert error["error"] == "loop_detected" and error["tool"] == "explorer"
    assert "narrower question" in error["recovery_suggestion"]


def test_cancel_stops_the_explorer_within_one_step(tmp_repo: Path) -> None:
    cancel = threading.Event()

    def cancel_on_first_sub_step(event: ProgressEvent) -> None:
        if event.kind == "subagent" and " step 1/" in event.message:
            cancel.set()

    wander = [{"tool": "list_files", "arguments": {"pattern": f"*.{n}"}} for n in range(6)]
    result, events, model = run(
        tmp_repo, [ASK, *wander], cancel=cancel, on=cancel_on_first_sub_step
    )
    assert result.status == "cancelled"
    assert model.call_count == 2  # the main agent's call and one sub-agent step
    assert not [e for e in events if e.kind == "step" and e.step > 1]


def test_sub_agent_spans_nest_under_the_explorer_call(tmp_repo: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    context = tool_context(
        DiskWorkspace(tmp_repo),
        approvals=AutoApprove(),
        tracer=provider.get_tracer("test"),
    )
    model = RobustModel(
        ScriptedModel(
            [
                ASK,
                {"tool": "rg_search", "arguments": {"pattern": "def add"}},
                {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
                {"final_answer": FOUND},
                {"final_answer": "done: add returns a + b"},
            ]
        )
    )
    run = AgentRun(model, context, 5, 8192, progress=lambda e: None, cancel=threading.Event())
    build_agent(run, extra_tools=[Explorer(run, max_steps=4)]).agent.run("explain add")
    spans = {span.name: span for span in exporter.get_finished_spans()}
    parent = spans["tool_wrapped.explorer"]
    for name in ("tool_wrapped.rg_search", "tool_wrapped.read_file"):
        child = spans[name]
        assert child.parent is not None and child.parent.span_id == parent.context.span_id
        assert child.context.trace_id == parent.context.trace_id
