"""In `serve`, nothing but framed JSON-RPC reaches stdout — ever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.lsp.framing import session

SERVE = [sys.executable, "-m", "lsp_agent", "serve"]


def lifecycle(root: Path) -> list[dict[str, object]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"modelNumCtx": "big"},
            },
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]


def test_serve_writes_only_framed_json_rpc(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_MAX_STEPS": "abc", "LOG_LEVEL": "DEBUG"}
    messages, stderr, returncode = session(SERVE, *lifecycle(tmp_path), env=env)
    assert returncode == 0, stderr.decode(errors="replace")
    by_id = {m.get("id"): m for m in messages if "id" in m}
    assert by_id[1]["result"]["serverInfo"]["name"] == "lsp-agent"
    assert by_id[2]["result"] is None
    warnings = [m["params"]["message"] for m in messages if m.get("method") == "window/showMessage"]
    assert any("AGENT_MAX_STEPS" in w and "'abc'" in w for w in warnings)
    assert any("MODEL_NUM_CTX" in w and "'big'" in w for w in warnings)
    assert b"initialize" in stderr, "debug logs go to stderr"


def test_stray_writes_after_start_go_to_stderr() -> None:
    program = (
        "import os\n"
        "from lsp_agent.lsp.stdio import reserve_stdout_for_rpc\n"
        "rpc = reserve_stdout_for_rpc()\n"
        "print('stray print')\n"
        "os.write(1, b'stray c-level write\\n')\n"
        "rpc.write(b'RPC')\n"
    )
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=30)
    assert proc.stdout == b"RPC"
    assert b"stray print" in proc.stderr
    assert b"stray c-level write" in proc.stderr


def test_log_file_receives_logs(tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    messages, _, returncode = session(
        [*SERVE, "--log-file", str(log_file)],
        *lifecycle(tmp_path),
        env={**os.environ, "LOG_LEVEL": "INFO"},
    )
    assert returncode == 0 and messages
    assert "initialize: root=" in log_file.read_text()
