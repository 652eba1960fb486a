"""`lsp-agent bench lsp`: the language server's latency over stdio.

- `start_ms`: from spawning `lsp-agent serve` to the `initialize` answer (median of 3);
- `code_action_idle_p50_ms` / `_p99_ms`: one `textDocument/codeAction` round trip at a
  time, no job running;
- `code_action_busy_p50_ms` / `_p99_ms`: the same while an agent job runs — the real
  runtime against a scripted OpenAI-compatible endpoint on 127.0.0.1 that delays its
  answer, so the job is busy (waiting on the model) for the whole measurement;
- `job_busy_during_measure`: 1 when the job was still running when the measurement ended.

Targets: p99 < 15 ms both ways; start < 1 s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from lsp_agent.testing.scripted_server import ScriptedOpenAIServer

SERVE = [sys.executable, "-m", "lsp_agent", "serve"]
MODEL_DELAY_S = 60.0
SAMPLE = "def add(a, b):\n    total = a - b\n    return total\n" * 50
STARTS = 3


class StdioClient:
    """A minimal blocking LSP client on a server process's pipes."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            SERVE,
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
        self.next_id += 1
        msg_id = self.next_id
        self.send({"id": msg_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")
            if "id" in message and "method" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})

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


def _initialize(client: StdioClient, root: Path) -> None:
    capabilities = {"window": {"workDoneProgress": True}}
    params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": capabilities}
    client.request("initialize", params)
    client.notify("initialized", {})


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _code_actions(client: StdioClient, uri: str, runs: int) -> list[float]:
    params = {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 61, "character": 4}, "end": {"line": 61, "character": 9}},
        "context": {
            "diagnostics": [
                {
                    "range": {
                        "start": {"line": 61, "character": 4},
                        "end": {"line": 61, "character": 9},
                    },
                    "message": "bad sign",
                }
            ]
        },
    }
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        actions = client.request("textDocument/codeAction", params)
        samples.append((time.perf_counter() - started) * 1000)
        assert actions, "the server offered no code action"
    return samples


def measure(runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory(prefix="lsp-bench-") as tmp,
        ScriptedOpenAIServer([{"final_answer": "done", "delay_s": MODEL_DELAY_S}]) as model,
    ):
        root = Path(tmp)
        (root / "app.py").write_text(SAMPLE)
        env = {
            **os.environ,
            "PHOENIX_ENABLED": "false",
            "SANDBOX_BACKEND": "none",
            "LOG_LEVEL": "WARNING",
            "MODEL_ID": "openai/bench",
            "MODEL_API_BASE": model.openai_base,
        }
        starts = []
        for _ in range(STARTS):
            began = time.perf_counter()
            client = StdioClient(env, root)
            _initialize(client, root)
            starts.append((time.perf_counter() - began) * 1000)
            client.close()
        figures["start_ms"] = statistics.median(starts)

        client = StdioClient(env, root)
        try:
            _initialize(client, root)
            uri = (root / "app.py").resolve().as_uri()
            client.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": SAMPLE,
                    }
                },
            )
            _code_actions(client, uri, min(20, runs))  # warm-up
            idle = _code_actions(client, uri, runs)
            figures["code_action_idle_p50_ms"] = statistics.median(idle)
            figures["code_action_idle_p99_ms"] = _percentile(idle, 0.99)

            started = client.request(
                "workspace/executeCommand",
                {"command": "lspAgent.run", "arguments": [{"task": "explain app.py", "uri": uri}]},
            )
            deadline = time.monotonic() + 120
            while not model.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            busy = _code_actions(client, uri, runs)
            figures["code_action_busy_p50_ms"] = statistics.median(busy)
            figures["code_action_busy_p99_ms"] = _percentile(busy, 0.99)
            status = client.request(
                "workspace/executeCommand", {"command": "lspAgent.status", "arguments": []}
            )
            figures["job_busy_during_measure"] = float(bool(status and status.get("jobs")))
            client.request(
                "workspace/executeCommand",
                {"command": "lspAgent.cancel", "arguments": [{"jobId": started["jobId"]}]},
            )
        finally:
            client.close()
    figures["runs"] = float(runs)
    return figures
