"""Two MCP servers whose tool names collide after renaming (issue 28, finding 7).

`t-1` and `t_1` both give `mcp_t_1_add`: every job used to crash while the agent was built,
and in `serve` each such job left its MCP server processes running. The real server runs
two jobs; both end answered, the second server's tools are offered under a new name, and no
MCP server process outlives its job.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path

from tests.lsp.test_trust_boundaries_server import RawEditor, scripted
from tests.mcp_servers.config import ROOT


def servers_running(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            status = (proc / "status").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and "zombie" not in status:
            found.append(int(proc.name))
    return found


def wait_gone(marker: str, timeout_s: float = 15) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while servers_running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return servers_running(marker)


def test_colliding_mcp_tool_names_neither_crash_jobs_nor_leak_servers(tmp_path: Path) -> None:
    marker = f"lsp-agent-test-{uuid.uuid4().hex}"
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_servers.flaky_server", marker],
        "env": {"PYTHONPATH": str(ROOT)},
        "trust": True,
        "tools": ["add", "pid"],
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"t-1": server, "t_1": server}}))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("x = 1\n")
    turns = [  # each job's scripted model starts at the first turn
        {"tool": "mcp_t_1_add_2", "arguments": {"a": 2, "b": 40}},
        {"final_answer": "added"},
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL_", "SANDBOX_"))}
    env.update(
        SANDBOX_BACKEND="none",
        PHOENIX_ENABLED="false",
        MCP_CONFIG=str(config),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    editor = RawEditor(workspace, scripted(env, tmp_path, turns))
    try:
        for number in (1, 2):
            editor.request(
                "workspace/executeCommand",
                {"command": "lspAgent.run", "arguments": [{"task": "add"}]},
            )
            tag = f"(job {number})"
            editor.wait_for(tag, lambda tag=tag: any(tag in m for m in editor.shown()))
            ended = next(m for m in editor.shown() if tag in m)
            assert wait_gone(marker) == [], f"MCP servers outlived job {number}: {ended}"
            assert "added" in ended, ended
        progress = json.dumps([m for m in editor.messages if m.get("method") == "$/progress"])
        assert "mcp_t_1_add_2" in progress and "42" in progress, progress
    finally:
        editor.close()
        left = wait_gone(marker)
        for pid in left:  # this test's own servers, by pid
            os.kill(pid, signal.SIGKILL)
    assert left == []
