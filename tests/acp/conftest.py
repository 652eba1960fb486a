"""The ACP layer: `lsp-agent acp` as a real subprocess, driven by the official ACP client
library (npm `@agentclientprotocol/sdk`, `ClientSideConnection`) from `client/acp_client.mjs`,
or by raw lines for the protocol's bad-input cases. The model is the scripted one
(`MODEL_ID=scripted:PATH`), the sandbox is off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_component

CLIENT_DIR = Path(__file__).parent / "client"
AGENT_COMMAND = [sys.executable, "-m", "lsp_agent", "acp"]
APP = "def add(a, b):\n    return a - b\n"


def agent_env(tmp_path: Path, script: list[dict[str, Any]]) -> dict[str, str]:
    """The agent's environment: the scripted model, no sandbox, no tracing, a clean HOME."""
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "MODEL_ID": f"scripted:{script_path}",
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
        "LOG_LEVEL": "INFO",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def acp_client() -> Path:
    """The official client library, installed by `npm ci` (tests/check.sh does it)."""
    script = CLIENT_DIR / "acp_client.mjs"
    installed = (CLIENT_DIR / "node_modules" / "@agentclientprotocol" / "sdk").is_dir()
    require_component(
        "node and the ACP client library",
        shutil.which("node") is not None and installed,
        "install Node 20+ and run `npm ci --prefix tests/acp/client`",
    )
    return script


def run_client(
    acp_client: Path, tmp_path: Path, scenario: dict[str, Any], timeout_s: float = 90
) -> dict[str, Any]:
    """Run one scenario through the official client; its transcript."""
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"command": AGENT_COMMAND, **scenario}), encoding="utf-8")
    env = {**os.environ, "CI": os.environ.get("CI", "")}
    done = subprocess.run(
        ["node", str(acp_client), str(path)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=env,
        check=False,
    )
    assert done.returncode == 0, f"client exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    transcript: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    transcript["stderr"] = done.stderr
    return transcript
