"""`lsp-agent serve` with Phoenix enabled but down: one line in the log, one message to the
editor, once per server however many jobs run, and no OpenTelemetry exporter noise."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.lsp.editor import REAL_SERVER, SERVER_ENV
from tests.lsp.framing import run_jobs


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_phoenix_down_is_told_once_to_the_log_and_the_editor(
    workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [{"tool": "read_file", "arguments": {"path": "app.py"}}, {"final_answer": "read it"}]
        )
    )
    env = {
        **SERVER_ENV,
        "MODEL_ID": f"scripted:{script}",
        "PHOENIX_ENABLED": "true",
        "PHOENIX_ENDPOINT": f"http://127.0.0.1:{closed_port()}/v1/traces",
    }
    messages, stderr, _ = run_jobs(REAL_SERVER, workspace, ["read app.py"] * 2, env)
    shown = [m["params"] for m in messages if m.get("method") == "window/showMessage"]
    logged = [m["params"] for m in messages if m.get("method") == "window/logMessage"]
    assert any("(job 2): read it" in s["message"] for s in shown), (shown, stderr[-2000:])
    notices = [m for m in shown + logged if "Phoenix" in m["message"]]
    assert len(notices) == 1, notices
    assert notices[0]["type"] == 2  # Warning, in the editor's log
    assert "Traces are off" in notices[0]["message"]
    assert "lsp-agent phoenix" in notices[0]["message"]
    log_lines = [line for line in stderr.splitlines() if "Phoenix" in line]
    assert len(log_lines) == 1, log_lines
    assert "Failed to export" not in stderr and "opentelemetry" not in stderr.lower()
