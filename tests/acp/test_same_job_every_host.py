"""One job, three front ends: the language server, the ACP agent and `lsp-agent run` each run
the same task on the same scripted model in a workspace whose `.env` and policy file the
user must hear about. The same notices and the same result reach the user in each.

The workspace's `.env` has a bad value (`MODEL_TEMPERATURE=hot`: the key keeps its default)
and a security key it may not set (`SANDBOX_BACKEND`, untrusted file); its
`.lsp-agent/policy.toml` tries to loosen `rm` (refused). The model reads a file and answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.acp.conftest import agent_env, run_client
from tests.attack_helpers import loosening_workspace_policy
from tests.lsp.framing import run_jobs

ANSWER = "add() subtracts: it returns a - b."
TURNS: list[dict[str, Any]] = [
    {"tool": "read_file", "arguments": {"path": "app.py"}},
    {"final_answer": ANSWER},
]
TASK = "what does add in app.py do?"
NOTICES = (
    "MODEL_TEMPERATURE='hot'",  # a bad value: the default is used
    "SANDBOX_BACKEND in",  # a security key of an untrusted workspace .env: ignored
    "workspace policy: programs.rm.subcommands ignored",  # a loosening rule: refused
)


def hostile_workspace(workspace: Path) -> Path:
    (workspace / ".env").write_text("MODEL_TEMPERATURE=hot\nSANDBOX_BACKEND=local\n")
    loosening_workspace_policy(workspace)
    return workspace


def seen_by_the_user(text: str) -> tuple[list[str], bool]:
    return [notice for notice in NOTICES if notice in text], ANSWER in text


def through_the_language_server(workspace: Path, env: dict[str, str]) -> str:
    """Everything the editor shows: `window/showMessage` and `window/logMessage` texts."""
    serve = [sys.executable, "-m", "lsp_agent", "serve"]
    messages, _, _ = run_jobs(serve, workspace, [TASK], {**os.environ, **env})
    shown = [
        m["params"]["message"]
        for m in messages
        if m.get("method") in ("window/showMessage", "window/logMessage")
    ]
    return "\n".join(shown)


def through_the_acp_agent(acp_client: Path, tmp_path: Path, workspace: Path) -> str:
    """Everything the agent panel shows as the agent's messages."""
    scenario = {
        "cwd": str(workspace),
        "env": agent_env(tmp_path, TURNS),
        "fs": {"read": True, "write": True},
        "prompts": [{"text": TASK}],
    }
    turn = run_client(acp_client, tmp_path, scenario)["turns"][0]
    assert turn["response"] == {"stopReason": "end_turn"}
    return "".join(
        u["content"]["text"] for u in turn["updates"] if u["sessionUpdate"] == "agent_message_chunk"
    )


def through_the_terminal(workspace: Path, env: dict[str, str]) -> str:
    """Everything `lsp-agent run` prints."""
    done = subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", TASK, "--repo", str(workspace), "--yes"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env, "COLUMNS": "400"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_same_notices_and_result_reach_the_user_in_every_host(
    acp_client: Path, tmp_path: Path, workspace: Path
) -> None:
    hostile_workspace(workspace)
    env = agent_env(tmp_path, TURNS)  # the scripted model, no tracing, a clean HOME
    (tmp_path / "script.json").write_text(json.dumps(TURNS), encoding="utf-8")
    seen = {
        "lsp": seen_by_the_user(through_the_language_server(workspace, env)),
        "acp": seen_by_the_user(through_the_acp_agent(acp_client, tmp_path, workspace)),
        "cli": seen_by_the_user(through_the_terminal(workspace, env)),
    }
    expected = (list(NOTICES), True)
    assert seen == {"lsp": expected, "acp": expected, "cli": expected}
