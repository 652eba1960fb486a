"""`lsp-agent serve` with Phoenix enabled but down: one line in the log, one message to the
editor, once per server however many jobs run, and no OpenTelemetry exporter noise."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.lsp.editor import REAL_SERVER, SERVER_ENV
from tests.lsp.framing import frame, parse_frames


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
    proc = subprocess.Popen(
        REAL_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    chunks: list[bytes] = []
    stdout = proc.stdout
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: stdout.read1(65536), b"")))
    reader.start()

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(frame({"jsonrpc": "2.0", **message}))
        proc.stdin.flush()

    def wait_for(marker: bytes) -> None:
        deadline = time.monotonic() + 120
        while marker not in b"".join(chunks) and time.monotonic() < deadline:
            time.sleep(0.05)

    send(
        {
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}},
        }
    )
    send({"method": "initialized", "params": {}})
    for job in (1, 2):
        send(
            {
                "id": 1 + job,
                "method": "workspace/executeCommand",
                "params": {"command": "lspAgent.run", "arguments": [{"task": "read app.py"}]},
            }
        )
        wait_for(f"(job {job}): read it".encode())
    send({"id": 9, "method": "shutdown"})
    send({"method": "exit"})
    proc.wait(timeout=60)
    reader.join(timeout=10)
    stderr = (proc.stderr.read() if proc.stderr else b"").decode()
    messages = parse_frames(b"".join(chunks))
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
