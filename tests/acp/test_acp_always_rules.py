"""An ACP "Always allow" covers that kind of effect only (issue 28, finding 8).

The real `lsp-agent acp`, driven by the official client library, with an MCP server the
client sends: the user answers "always allow" to an MCP call; the model then asks `run_cmd`
for exactly the text the MCP question showed. That command must be asked again (it used to
be allowed by the MCP call's rule, the rule being keyed by kind "command" and text alone).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.acp.conftest import agent_env, run_client
from tests.mcp_servers.config import ROOT

SHOWN = 'mcp files add {"a": 2, "b": 40}'


def test_always_allow_of_an_mcp_call_does_not_allow_a_command_of_the_same_text(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    servers = [
        {
            "name": "files",
            "command": sys.executable,
            "args": ["-m", "tests.mcp_servers.flaky_server"],
            "env": [{"name": "PYTHONPATH", "value": str(ROOT)}],
        }
    ]
    script = [
        {"tool": "mcp_files_add", "arguments": {"a": 2, "b": 40}},
        {"tool": "mcp_files_add", "arguments": {"a": 2, "b": 40}},
        {"tool": "run_cmd", "arguments": {"command": SHOWN}},
        {"final_answer": "done"},
    ]
    scenario = {
        "cwd": str(workspace),
        "env": agent_env(tmp_path, script),
        "fs": {"read": True, "write": True},
        "mcpServers": servers,
        "prompts": [{"text": "add", "permission": "allow_always"}],
    }
    out = run_client(acp_client, tmp_path, scenario, timeout_s=180)
    turn = out["turns"][0]
    asked = [p["toolCall"]["title"] for p in turn["permissions"]]
    # the MCP call once (its rule answers the second), the command of the same text again
    assert asked == [
        'Call `add` of MCP server `files` with {"a": 2, "b": 40}',
        f"Run `{SHOWN}`",
    ], asked
    options = [o["name"] for o in turn["permissions"][0]["options"]]
    assert "Always allow this exact call here (8 h)" in options
