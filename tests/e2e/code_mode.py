"""Shared pieces of the code-mode tests: model turns that carry code, and `lsp-agent run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_agent.settings import Settings


def code_turn(source: str, thought: str = "I will run this.") -> dict[str, Any]:
    """A scripted model turn in code mode: a thought, then one Python block."""
    return {"text": f"Thought: {thought}\n```python\n{source.strip()}\n```"}


FINAL = code_turn('final_answer("The run went on to its end after that step.")')
# Code mode on the real engine, in this process: the settings a code-mode test starts from.
CODE_SETTINGS = Settings(
    agent_type="code", sandbox_backend="docker", sandbox_timeout_s=30, phoenix_enabled=False
)


def run_code_mode(
    repo: Path,
    turns: list[dict[str, Any]],
    tmp_path: Path,
    *,
    task: str = "do the task",
    env: dict[str, str] | None = None,
    timeout: float = 180,
    yes: bool = True,
) -> subprocess.CompletedProcess[str]:
    """`lsp-agent run [--yes]` in code mode on the real Docker engine, the model scripted
    (without `--yes` and a terminal, every approval is refused)."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns), encoding="utf-8")
    environment = {
        **os.environ,
        "MODEL_ID": f"scripted:{script}",
        "AGENT_TYPE": "code",
        "SANDBOX_BACKEND": "docker",
        "SANDBOX_TIMEOUT_S": "5",
        "PHOENIX_ENABLED": "false",
        **(env or {}),
    }
    approve = ["--yes"] if yes else []
    return subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", task, *approve, "--repo", str(repo)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
