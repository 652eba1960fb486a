"""A minimal blocking LSP client on a `lsp-agent serve` process's pipes (for the benches)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from safety import host_process

SERVE = [sys.executable, "-P", "-m", "lsp_agent", "serve"]


class StdioClient:
    """A minimal blocking LSP client on a server process's pipes."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.proc = host_process.popen(
            SERVE,
            whole_env=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.next_id = 0
        self.answers: dict[int, dict[str, Any]] = {}

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.stdin.flush()

    def read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = self.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line in (b"\r\n", b"\n") and length:
                message: dict[str, Any] = json.loads(self.stdout.read(length))
                return message

    def request(self, method: str, params: Any) -> Any:
        return self.wait(self.begin(method, params), method)

    def begin(self, method: str, params: Any) -> int:
        """Send a request without waiting for its answer (`wait` gets it)."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, msg_id: int, method: str = "request") -> Any:
        """The result of request `msg_id`; answers to other requests are kept for theirs."""
        while msg_id not in self.answers:
            message = self.read()
            if "id" in message and "method" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            elif "id" in message:
                self.answers[message["id"]] = message
        message = self.answers.pop(msg_id)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result")

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MiB (Linux `/proc`), 0.0 where unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
