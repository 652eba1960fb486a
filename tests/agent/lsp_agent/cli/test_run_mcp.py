"""MCP tools through `lsp-agent run`: offered next to the built-ins, asked about unless the
server is trusted, answered through the wrapper, and the server stopped with the job."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from lsp_agent.testing import ScriptedOpenAIServer
from tests.agent.scripted_run import run_against
from tests.mcp_servers.config import process_gone, write_config

SCRIPT = [
    {"tool": "mcp_t_pid", "arguments": {}},
    {"tool": "mcp_t_add", "arguments": {"a": 2, "b": 40}},
    {"final_answer": "2 + 40 = 42"},
]


def run(repo: Path, server: ScriptedOpenAIServer, config: Path, *args: str) -> Any:
    return run_against(server, repo, "add 2 and 40", *args, MCP_CONFIG=str(config))


def tool_messages(server: ScriptedOpenAIServer) -> list[str]:
    last = server.chat_requests[-1]["messages"]
    return [str(m.get("content")) for m in last if m.get("role") == "tool"]


def test_mcp_tools_are_offered_approved_called_and_the_server_stopped(
    tmp_repo: Path, tmp_path: Path
) -> None:
    config = write_config(tmp_path / "mcp.json")
    with ScriptedOpenAIServer(SCRIPT) as server:
        out = run(tmp_repo, server, config, "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    offered = {t["function"]["name"] for t in server.chat_requests[0]["tools"]}
    assert {"mcp_t_add", "mcp_t_pid", "read_file", "propose_patch"} <= offered
    pid_text, sum_text = tool_messages(server)
    assert sum_text.strip().endswith("42"), sum_text
    pid = int(pid_text.strip().split()[-1])
    deadline = time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert process_gone(pid), "the MCP server outlived the job"


def test_an_untrusted_server_is_refused_without_approval(tmp_repo: Path, tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", tools=["add"])
    script = [{"tool": "mcp_t_add", "arguments": {"a": 1, "b": 1}}, {"final_answer": "no"}]
    with ScriptedOpenAIServer(script) as server:
        out = run(tmp_repo, server, config)  # no terminal, no --yes: questions are rejected
    assert out.returncode == 0, out.stdout + out.stderr
    offered = {t["function"]["name"] for t in server.chat_requests[0]["tools"]}
    assert "mcp_t_add" in offered and "mcp_t_pid" not in offered  # the allow-list
    [observation] = tool_messages(server)
    error = json.loads(observation[observation.index("{") :])
    assert error["error"] == "approval_rejected"


def test_a_bad_config_is_reported_and_the_job_goes_on(tmp_repo: Path, tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text('{"servers": {}}')
    with ScriptedOpenAIServer([{"final_answer": "fine"}]) as server:
        out = run(tmp_repo, server, tmp_path / "mcp.json", "--yes")
    assert out.returncode == 0 and "fine" in out.stdout
    assert "mcpServers" in out.stderr and "no MCP tools from it in this job" in out.stderr
