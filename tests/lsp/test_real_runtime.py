"""End to end with the real agent runtime (`lsp_agent.agent.runtime.run_job`): the
model is a scripted OpenAI-compatible endpoint on 127.0.0.1, the sandbox is off. A full
job proposes, asks, applies — or, rejected, leaves the file byte-identical."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types

from lsp_agent.testing import ScriptedOpenAIServer
from tests.jobs import fix_script
from tests.lsp.conftest import APP, job_end
from tests.lsp.editor import (
    CLIENTS,
    REAL_SERVER,
    SERVER_ENV,
    EditorClient,
    real_server,
    scripted_session,
)
from tests.lsp.framing import run_jobs

TURNS = fix_script("app.py", "return a - b", "return a + b", "add() now adds.")


@pytest.fixture
def model() -> AsyncIterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(TURNS) as server:
        yield server


@pytest_lsp.fixture(config=real_server(), params=CLIENTS)
async def real_editor(
    lsp_client: EditorClient, request: pytest.FixtureRequest, workspace: Path, model: Any
):
    async for _ in scripted_session(lsp_client, workspace, request.param, model):
        yield


def tool_results(model: ScriptedOpenAIServer) -> list[str]:
    """What the runtime sent back to the model as tool observations."""
    last = model.chat_requests[-1]
    return [str(m.get("content")) for m in last["messages"] if m.get("role") == "tool"]


async def test_real_job_applies_an_approved_patch(
    real_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    started = await real_editor.run(task="fix add", uri=real_editor.uri("app.py"))
    end = await job_end(real_editor, started["jobId"])
    assert end.type == types.MessageType.Info and "add() now adds." in end.message
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert any("applied: p1" in r for r in tool_results(model)), json.dumps(tool_results(model))
    progress = real_editor.progress_reports[started["progressToken"]]
    assert isinstance(progress[-1], types.WorkDoneProgressEnd)


async def test_real_job_rejected_leaves_the_file_byte_identical(
    real_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    real_editor.default_answer = "Reject"
    real_editor.apply_mode = "decline"  # VS Code: the user cancels the refactor preview
    started = await real_editor.run(task="fix add", uri=real_editor.uri("app.py"))
    await job_end(real_editor, started["jobId"])
    assert (workspace / "app.py").read_bytes() == APP.encode()
    assert any("rejected" in r for r in tool_results(model)), json.dumps(tool_results(model))
    # The step note after the rejection: listed as rejected, never offered again.
    note = str(model.chat_requests[-1]["messages"][-1].get("content"))
    assert "p1: app.py [rejected]" in note, note
    assert "apply it with" not in note and "do not apply it again" in note, note


async def test_real_job_with_a_scripted_model_file(
    real_editor: EditorClient, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(TURNS))
    real_editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"modelId": f"scripted:{script}"})
    )
    started = await real_editor.run(task="fix add")
    end = await job_end(real_editor, started["jobId"])
    assert "add() now adds." in end.message
    # beside the model's words, what the job did (from its patch records)
    assert "[Applied p1 to app.py; " in end.message, end.message
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    status = await real_editor.command("lspAgent.status")
    assert status["lastJob"]["facts"][0].startswith("Applied p1 to app.py"), status


async def test_an_answer_claiming_a_fix_no_tool_made_is_shown_with_the_facts(
    real_editor: EditorClient, workspace: Path, tmp_path: Path
) -> None:
    # Qwen2.5-Coder-1.5B answered "The proposed patch was applied successfully." with
    # nothing applied; the editor must see that nothing changed, beside that claim.
    script = tmp_path / "script.json"
    claim = "The proposed patch was applied successfully."
    # (refused once: the task asks for a fix and no patch was proposed; said again, it stands,
    # and the job starts again once (agent.fresh_start): the same twice more)
    script.write_text(json.dumps([TURNS[0], *[{"final_answer": claim}] * 4]))
    real_editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"modelId": f"scripted:{script}"})
    )
    started = await real_editor.run(task="fix add")
    end = await job_end(real_editor, started["jobId"])
    assert claim in end.message
    assert "[No file was changed: no patch was applied.]" in end.message, end.message
    assert (workspace / "app.py").read_text() == APP


def test_a_real_job_writes_only_json_rpc_to_stdout(workspace: Path, tmp_path: Path) -> None:
    """smolagents and LiteLLM must not print: every stdout byte is a JSON-RPC frame."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([TURNS[0], {"final_answer": "read it"}]))
    env = {**SERVER_ENV, "MODEL_ID": f"scripted:{script}", "LOG_LEVEL": "DEBUG"}
    messages, stderr, returncode = run_jobs(REAL_SERVER, workspace, ["read app.py"], env)
    shown = [m["params"]["message"] for m in messages if m.get("method") == "window/showMessage"]
    assert any("(job 1): read it" in s for s in shown), (shown, stderr[-2000:])
    assert returncode == 0


async def test_warm_up_runs_after_initialize_and_code_actions_answer_meanwhile(
    real_editor: EditorClient, model: ScriptedOpenAIServer
) -> None:
    """The agent machinery warms up in the background; the editor is served throughout."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=real_editor.uri("app.py")),
        range=types.Range(types.Position(5, 4), types.Position(5, 9)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    answered_while_warming = 0
    states: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = (await real_editor.command("lspAgent.status"))["warmUp"]
        states.append(state)
        if state.startswith("done"):
            break
        assert state == "running", states
        actions = await real_editor.text_document_code_action_async(params)
        answered_while_warming += bool(actions)
    assert states[-1].startswith("done in "), states
    assert states[0] == "running" and answered_while_warming > 0, states
    assert model.chat_requests == []  # warming up sends nothing to the model server
    started = await real_editor.run(task="fix add", uri=real_editor.uri("app.py"))
    end = await job_end(real_editor, started["jobId"])
    assert "add() now adds." in end.message


async def test_agents_md_reaches_the_model_and_status_says_how_much(
    real_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    (workspace / "AGENTS.md").write_text("Keep functions pure.\nName tests test_<what>.\n")
    status = await real_editor.command("lspAgent.status")
    assert status["projectInstructions"] == "AGENTS.md: 20 tokens, all of it used"
    started = await real_editor.run(task="fix add", uri=real_editor.uri("app.py"))
    await job_end(real_editor, started["jobId"])
    first = json.dumps(model.chat_requests[0]["messages"])
    assert "Keep functions pure." in first and "AGENTS.md" in first


async def test_workspace_memory_through_the_server(
    real_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    """AGENT_MEMORY from the editor's (user) settings: `remember` is offered, and a note kept
    in one job reaches the next job's first request; nothing is written into the workspace."""
    data = Path(SERVER_ENV["XDG_DATA_HOME"])
    real_editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"AGENT_MEMORY": "true"})
    )
    model.set_turns(
        [
            {"tool": "remember", "arguments": {"note": "Tests here run with make check-all."}},
            {"final_answer": "noted"},
            *TURNS,
        ]
    )
    first = await real_editor.run(task="remember how tests run")
    await job_end(real_editor, first["jobId"])
    assert "remember" in {t["function"]["name"] for t in model.chat_requests[0]["tools"]}
    asked = len(model.chat_requests)
    second = await real_editor.run(task="fix add", uri=real_editor.uri("app.py"))
    await job_end(real_editor, second["jobId"])
    text = json.dumps(model.chat_requests[asked]["messages"])
    assert "Notes from earlier tasks" in text and "make check-all" in text
    assert not [p for p in workspace.rglob("*") if p.suffix == ".json"]
    from lsp_agent.agent.memory import WorkspaceMemory

    assert WorkspaceMemory(workspace, data / "lsp-agent" / "memory").clear() == 1


KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"


async def test_a_search_does_not_show_an_open_buffers_private_key(
    real_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    """Issue 28, finding 10: buffers were searched when their name was not sensitive, so an
    unsaved private key in `notes.txt` came back line by line while `read_file` refused it."""
    (workspace / "notes.txt").write_text("nothing here yet\n")
    real_editor.open(
        "notes.txt",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    model.set_turns(
        [
            {"tool": "rg_search", "arguments": {"pattern": "b3Blbn"}},
            {"tool": "rg_search", "arguments": {"pattern": "AAAA", "glob": "*.txt"}},
            {"final_answer": "searched"},
        ]
    )
    started = await real_editor.run(task="search")
    await job_end(real_editor, started["jobId"])
    sent = json.dumps(model.chat_requests)
    assert "b3Blbn" in sent  # the model's own pattern
    assert KEY_BODY not in sent and KEY_BODY[6:26] not in sent, tool_results(model)
