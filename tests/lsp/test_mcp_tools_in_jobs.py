"""MCP tools in a language-server job: a hanging MCP call is cut short by cancel, and the
server process does not outlive the job."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp

from lsp_agent.testing import ScriptedOpenAIServer
from tests.lsp.conftest import job_end
from tests.lsp.editor import (
    EditorClient,
    real_server,
    scripted_session,
    wait_for,
)
from tests.mcp_servers.config import process_gone, write_config

TURNS = [
    {"tool": "mcp_t_pid", "arguments": {}},
    {"tool": "mcp_t_hang", "arguments": {"seconds": 120}},
    {"final_answer": "woke"},
]


@pytest.fixture
def model() -> AsyncIterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(TURNS) as server:
        yield server


@pytest_lsp.fixture(config=real_server())
async def mcp_editor(lsp_client: EditorClient, workspace: Path, tmp_path: Path, model: Any):
    config = str(write_config(tmp_path / "mcp.json", trust=True))
    session = scripted_session(
        lsp_client, workspace, "visual-studio-code", model, MCP_CONFIG=config
    )
    async for _ in session:
        yield


async def test_cancel_stops_a_hanging_mcp_call_and_the_server(
    mcp_editor: EditorClient, model: ScriptedOpenAIServer
) -> None:
    started = await mcp_editor.run(task="wait for it")
    await wait_for(lambda: len(model.chat_requests) >= 2, "the model to ask for hang")
    await asyncio.sleep(1.0)  # the hang call is in flight
    pid_message = next(m for m in model.chat_requests[1]["messages"] if m.get("role") == "tool")
    pid = int(str(pid_message["content"]).strip().split()[-1])
    assert not process_gone(pid)
    began = time.monotonic()
    await mcp_editor.command("lspAgent.cancel", {"jobId": started["jobId"]})
    end = await job_end(mcp_editor, started["jobId"])
    assert "cancelled" in end.message
    assert time.monotonic() - began < 15  # not the 120 s the server would sleep
    deadline = time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert process_gone(pid), "the MCP server outlived the cancelled job"
