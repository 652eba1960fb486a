"""Planning and the explorer through the real language server over stdio, with the real
runtime; the model is a scripted OpenAI-compatible endpoint on 127.0.0.1, the sandbox off."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from lsp_agent.testing import ScriptedOpenAIServer
from tests.jobs import fix_script
from tests.lsp.conftest import APP, job_end
from tests.lsp.editor import (
    REAL_SERVER,
    SERVER_ENV,
    EditorClient,
    make_editor_client,
    start_editor,
    wait_for,
)

PLAN_1 = "1. Read app.py.\n2. Fix add with propose_patch.\n3. Apply it.\n<end_plan>"
PLAN_2 = "1. Apply p1.\n2. Answer."
READ, PROPOSE, APPLY, ANSWER = fix_script(
    "app.py", "return a - b", "return a + b", "add() now adds."
)
PLANNED_FIX = [
    {"text": PLAN_1},
    READ,
    {**PROPOSE, "delay_s": 1.0},  # time for the test to read lspAgent.status mid-job
    {"text": PLAN_2},
    APPLY,
    ANSWER,
]
ASK = {"tool": "explorer", "arguments": {"task": "What does add() in app.py return?"}}
EXPLORED = [
    ASK,
    {
        "tool": "propose_patch",
        "arguments": {"path": "app.py", "old": "return a - b", "new": "return 0"},
    },
    {"tool": "run_cmd", "arguments": {"command": "echo pwned > app.py"}},
    {"tool": "read_file", "arguments": {"path": "app.py"}},
    {"final_answer": "add() in app.py returns a - b (line 6)."},
    {"final_answer": "add() subtracts: it returns a - b."},
]


@pytest.fixture
def model() -> AsyncIterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer([]) as server:
        yield server


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=REAL_SERVER, client_factory=make_editor_client, server_env=SERVER_ENV
    ),
)
async def editor(lsp_client: EditorClient, workspace: Path, model: ScriptedOpenAIServer):
    await start_editor(
        lsp_client,
        workspace,
        "visual-studio-code",
        options={"lspAgent": {"modelId": "openai/scripted", "modelApiBase": model.openai_base}},
    )
    yield
    await lsp_client.shutdown_session()


def configure(editor: EditorClient, **settings: str) -> None:
    editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


async def run_with(
    editor: EditorClient,
    model: ScriptedOpenAIServer,
    turns: list[dict[str, Any]],
    task: str,
    **settings: str,
) -> Any:
    """`settings`, the model's `turns`, then lspAgent.run `task` on app.py."""
    configure(editor, **settings)
    model.set_turns(turns)
    return await editor.run(task=task, uri=editor.uri("app.py"))


def progress_messages(editor: EditorClient, token: str) -> list[str]:
    return [
        str(value.message)
        for value in editor.progress_reports.get(token, [])
        if isinstance(value, types.WorkDoneProgressReport) and value.message
    ]


async def test_the_plan_is_progress_and_status_and_is_revised(
    editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    started = await run_with(editor, model, PLANNED_FIX, "fix add", AGENT_PLANNING_INTERVAL="2")
    await wait_for(lambda: len(model.chat_requests) >= 3, "the third model request")
    running = (await editor.command("lspAgent.status"))["job"]
    assert running is not None and running["plan"] == PLAN_1.replace("\n<end_plan>", "")
    end = await job_end(editor, started["jobId"])
    assert "add() now adds." in end.message
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    status = await editor.command("lspAgent.status")
    assert status["lastJob"]["plan"] == PLAN_2
    shown = progress_messages(editor, started["progressToken"])
    assert "step 1/25 · plan: 1. Read app.py. 2. Fix add with propose_patch. 3. Apply it." in shown
    assert "step 3/25 · plan: 1. Apply p1. 2. Answer." in shown
    logged = [m.message for m in editor.log_messages]
    assert any("plan (step 3):\n1. Apply p1.\n2. Answer." in m for m in logged), logged
    planning = [r for r in model.chat_requests if not r.get("tools")]
    assert len(planning) == 2 and len(model.chat_requests) == 6


async def test_the_explorer_reads_never_writes_and_answers_the_caller(
    editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    started = await run_with(
        editor, model, EXPLORED, "what does add do?", AGENT_SUBAGENTS="explorer"
    )
    end = await job_end(editor, started["jobId"])
    assert "add() subtracts" in end.message
    assert (workspace / "app.py").read_bytes() == APP.encode()
    offered = [{t["function"]["name"] for t in r.get("tools", [])} for r in model.chat_requests]
    assert "explorer" in offered[0] and "propose_patch" in offered[0]
    for tools in offered[1:5]:  # the sub-agent's requests
        assert "propose_patch" not in tools and "run_cmd" not in tools and "explorer" not in tools
        assert "read_file" in tools
    sub_texts = [json.dumps(r["messages"]) for r in model.chat_requests[1:5]]
    assert "there is no tool `propose_patch`" in sub_texts[1]
    assert "there is no tool `run_cmd`" in sub_texts[2]
    last = model.chat_requests[-1]["messages"]
    observation = next(str(m["content"]) for m in reversed(last) if m.get("role") == "tool")
    assert "Explorer's answer" in observation and "returns a - b (line 6)" in observation
    shown = progress_messages(editor, started["progressToken"])
    assert any(m.startswith("step 1/25 · explorer · explorer step 3/8 · read_file") for m in shown)


async def test_cancel_stops_the_explorer(
    editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    configure(editor, AGENT_SUBAGENTS="explorer")
    slow = [
        {"tool": "list_files", "arguments": {"pattern": f"*.{n}"}, "delay_s": 0.3} for n in range(8)
    ]
    model.set_turns([ASK, *slow, {"final_answer": "late"}])
    started = await editor.run(task="explore")
    token = started["progressToken"]
    await wait_for(
        lambda: any("explorer step 1/" in m for m in progress_messages(editor, token)),
        "the explorer's first step",
    )
    await editor.command("lspAgent.cancel", {"jobId": started["jobId"]})
    end = await job_end(editor, started["jobId"])
    assert "cancelled" in end.message
    assert len(model.chat_requests) <= 4  # stopped within a step, far from its 8 steps
    status = await editor.command("lspAgent.status")
    assert status["lastJob"]["status"] == "cancelled"
