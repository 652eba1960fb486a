"""The MCP server's supervisor: over-long messages become errors for their id, short ones
pass unchanged, and the server's exit code is its own."""

from __future__ import annotations

import json
import subprocess
import sys

from tools.mcp.supervisor import supervised

SERVER = (
    "import sys\n"
    'print(\'{"jsonrpc":"2.0","id":7,"result":"\' + \'x\' * 500 + \'"}\')\n'
    'print(\'{"jsonrpc":"2.0","id":"b","result":"short"}\')\n'
    "sys.exit(3)\n"
)


def test_long_lines_become_errors_and_short_ones_pass() -> None:
    argv = supervised([sys.executable, "-c", SERVER], sys.executable, limit=200)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["id"] == 7 and "larger than 200 bytes" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "id": "b", "result": "short"}
    assert done.returncode == 3


def test_a_program_that_cannot_start_says_so() -> None:
    argv = supervised(["/nonexistent/server"], sys.executable)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 127 and "cannot start /nonexistent/server" in done.stderr
