"""A real OpenAI-compatible server nobody here wrote: llama-cpp-python's `llama_cpp.server`
(`--chat_format chatml-function-calling`, SmolLM2-135M) on 127.0.0.1.

`lsp-agent run` and one LSP job (the real server over stdio) run against it in plain and
constrained mode (`MODEL_CONSTRAINED_CALLS=true`). That server refuses `tool_choice:
"required"` and `response_format: json_schema` with HTTP 500; the capability fallbacks must
turn those into `auto` / `json_object` so that no error reaches the agent, nothing crashes and
tool calls come back. The 135M model's answers are not judged. Steps and tokens are kept
small so the runs stay short (the model answers in about a second per call on 2 cores).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.framing import frame, read_frames
from tests.tool_names import BUILT_IN_TOOLS

TOOLS = BUILT_IN_TOOLS | {"final_answer"}
TASK = "Read pkg/calc.py and say what add() returns."
JOB_TIMEOUT_S = 600
MODES = {"plain": "false", "constrained": "true"}


def model_env(server: Any, constrained: str) -> dict[str, str]:
    return {
        **os.environ,
        "MODEL_ID": "openai/smollm2",
        "MODEL_API_BASE": server.openai_base,
        "MODEL_CONSTRAINED_CALLS": constrained,
        "AGENT_MAX_STEPS": "2",
        "MODEL_MAX_TOKENS": "96",
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
        "LOG_LEVEL": "INFO",
    }


def assert_no_model_errors(stderr: str, constrained: bool) -> None:
    assert "Traceback" not in stderr, stderr[-3000:]
    assert "model call" not in stderr, stderr[-3000:]  # RobustModel: "model call N failed (…)"
    downgrades = re.findall(r"model server \S+ \(openai/smollm2\) (.*) from now on", stderr)
    expected = [
        "answered HTTP 500 with no message to tool_choice=required; sending tool_choice=auto"
    ]
    if constrained:
        expected.insert(
            0, "rejected response_format=json_schema; sending response_format=json_object"
        )
    assert downgrades == expected, stderr[-3000:]


@pytest.mark.parametrize("mode", list(MODES))
def test_lsp_agent_run_against_llama_cpp_python(
    llama_cpp_server: Any, tmp_repo: Path, mode: str
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lsp_agent", "run", TASK, "--repo", str(tmp_repo), "--yes"],
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT_S,
        env=model_env(llama_cpp_server, MODES[mode]),
        stdin=subprocess.DEVNULL,
    )
    assert_no_model_errors(out.stderr, mode == "constrained")
    called = re.findall(r"^step [12]/2 (\S+)", out.stdout, re.M)
    assert called and set(called) <= TOOLS, out.stdout
    assert out.returncode in (0, 1), out.stdout + out.stderr  # answered or max_steps
    assert "failed after" not in out.stdout, out.stdout


class StdioEditor:
    """Just enough of an editor: answers the server's requests, keeps its notifications."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lsp_agent", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.notifications: list[dict[str, Any]] = []
        self.stderr = b""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._errors = threading.Thread(target=self._read_stderr, daemon=True)
        self._errors.start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(frame({"jsonrpc": "2.0", **message}))
            self.proc.stdin.flush()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for message in read_frames(self.proc.stdout):
            self._handle(message)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read1(65536):
            self.stderr += chunk

    def _handle(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:  # a request from the server
            result: Any = None
            if message["method"] == "workspace/configuration":
                result = [None for _ in message["params"]["items"]]
            self.send({"id": message["id"], "result": result})
        elif "method" in message:
            self.notifications.append(message)

    def shown(self) -> list[str]:
        return [
            n["params"]["message"]
            for n in list(self.notifications)
            if n["method"] == "window/showMessage"
        ]

    def progress_messages(self) -> list[str]:
        return [
            str(n["params"]["value"].get("message", ""))
            for n in list(self.notifications)
            if n["method"] == "$/progress" and n["params"]["value"].get("kind") == "report"
        ]

    def close(self) -> int:
        self.send({"id": 99, "method": "shutdown"})
        self.send({"method": "exit"})
        try:
            code = self.proc.wait(timeout=60)
        finally:
            self._reader.join(timeout=10)
            self._errors.join(timeout=10)
        return code


@pytest.mark.parametrize("mode", list(MODES))
def test_an_lsp_job_against_llama_cpp_python(
    llama_cpp_server: Any, tmp_repo: Path, mode: str
) -> None:
    editor = StdioEditor(model_env(llama_cpp_server, MODES[mode]))
    capabilities = {"window": {"workDoneProgress": True}}
    editor.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": None,
                "rootUri": tmp_repo.as_uri(),
                "capabilities": capabilities,
            },
        }
    )
    editor.send({"method": "initialized", "params": {}})
    editor.send(
        {
            "id": 2,
            "method": "workspace/executeCommand",
            "params": {"command": "lspAgent.run", "arguments": [{"task": TASK}]},
        }
    )
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while not any("(job 1)" in s for s in editor.shown()) and time.monotonic() < deadline:
        time.sleep(0.1)
    code = editor.close()
    stderr = editor.stderr.decode(errors="replace")
    ended = [s for s in editor.shown() if "(job 1)" in s]
    assert ended, (editor.shown(), stderr[-3000:])
    assert "failed" not in ended[0], ended[0]
    assert_no_model_errors(stderr, mode == "constrained")
    # "step n/2 · TOOL · message" (the step-limit line has no tool)
    steps = [m for m in editor.progress_messages() if re.match(r"step [12]/2 · [^·]+ · ", m)]
    called = {m.split(" · ")[1] for m in steps}
    assert called and called <= TOOLS, editor.progress_messages()
    assert code == 0


def test_bench_models_serves_llama_cpp_python_itself(tmp_path: Path) -> None:
    """`bench models --serve-llama-cpp` starts its own server and runs a level against it."""
    from lsp_agent.testing.llama_cpp_server import missing_server_modules
    from tests.conftest import require_component

    missing = missing_server_modules()
    require_component("llama-cpp-python's server", not missing, f"missing {missing}: uv sync")
    output = tmp_path / "bench.json"
    env = {**os.environ, "PHOENIX_ENABLED": "false", "SANDBOX_BACKEND": "none"}
    command = [sys.executable, "-m", "lsp_agent", "bench", "models", "--serve-llama-cpp"]
    out = subprocess.run(
        [*command, "--levels", "L1", "--runs", "1", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT_S,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "Traceback" not in out.stderr and "model call" not in out.stderr, out.stderr[-3000:]
    figures = json.loads(output.read_text())["models"]
    assert "--serve-llama-cpp" in figures["command"]
    (run,) = figures["results"]["openai/smollm2"]["levels"]["L1"]["runs_detail"]
    assert run["status"] in ("answered", "max_steps"), run
    assert run["tools"] and set(run["tools"]) <= TOOLS, run
    assert "openai/smollm2" in out.stdout


def test_doctor_probes_llama_cpp_python(llama_cpp_server: Any, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MODEL_ID": "openai/smollm2",
        "MODEL_API_BASE": llama_cpp_server.openai_base,
        "PHOENIX_ENABLED": "false",
    }
    out = subprocess.run(
        [sys.executable, "-m", "lsp_agent", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT_S,
        env=env,
        cwd=tmp_path,
    )
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert checks["model"]["status"] == "OK", checks["model"]
    statuses = {n.removeprefix("model: "): c["status"] for n, c in checks.items() if ": " in n}
    assert statuses == {
        "tools": "OK",
        "tool_choice=required": "WARN",
        "response_format=json_schema": "WARN",
        "response_format=json_object": "OK",
        "streaming": "OK",
    }
    assert "HTTP 500 (no message)" in checks["model: tool_choice=required"]["detail"]
    assert "response_format" in checks["model: response_format=json_schema"]["detail"]
