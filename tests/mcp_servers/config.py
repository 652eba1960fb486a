"""An `MCP_CONFIG` file naming the test server (tests import this to write one)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write_config(path: Path, *, trust: bool = False, tools: list[str] | None = None) -> Path:
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    server: dict[str, object] = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_servers.flaky_server"],
        "env": {"PYTHONPATH": pythonpath},
        "trust": trust,
    }
    if tools is not None:
        server["tools"] = tools
    path.write_text(json.dumps({"mcpServers": {"t": server}}))
    return path


def process_gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "zombie" in status.read_text().lower()
    except OSError:
        return True
