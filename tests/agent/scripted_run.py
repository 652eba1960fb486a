"""`lsp-agent run` as a subprocess against a scripted OpenAI-compatible server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lsp_agent.testing import ScriptedOpenAIServer


def run_against(
    server: ScriptedOpenAIServer,
    repo: Path,
    task: str,
    *args: str,
    timeout: float = 180,
    python_args: tuple[str, ...] = ("-m", "lsp_agent"),
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """`lsp-agent run TASK --repo REPO ARGS` with the model at `server`, no sandbox, no
    Phoenix; `env` adds to (or overrides) the user's environment. `python_args`: how Python
    starts the command line (`-c CODE` wrapping `lsp_agent.cli.main.main`, e.g.)."""
    return subprocess.run(
        [sys.executable, *python_args, "run", task, "--repo", str(repo), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={
            **os.environ,
            "MODEL_ID": "openai/scripted",
            "MODEL_API_BASE": server.openai_base,
            "SANDBOX_BACKEND": "none",
            "PHOENIX_ENABLED": "false",
            **env,
        },
    )
