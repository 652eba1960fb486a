"""A model server run as a child process on 127.0.0.1 for tests and benchmarks.

The lifecycle both real servers share (llama-cpp-python's `llama_cpp.server`, llama.cpp's
`llama-server`): a free port, the server's log in a file (never this process's stdout), a
wait until `GET /v1/models` answers, and a stop that never leaves the process behind.
Subclasses say how to start theirs (`command()`, `environment()`, `check_ready()`).
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

import httpx

from safety import host_process

START_TIMEOUT_S = 120.0


class ModelServerError(RuntimeError):
    """The server could not be started (missing parts, or it exited / never answered)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LoopbackServer:
    """The addresses of a server listening on 127.0.0.1 (a subclass says its `port`)."""

    @property
    def port(self) -> int:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT` (the Ollama-style base)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        """`http://127.0.0.1:PORT/v1` (what `MODEL_API_BASE` is set to for `openai/…`)."""
        return self.base_url + "/v1"


class ModelServerProcess(LoopbackServer):
    """Context manager around one OpenAI-compatible server process (see the module doc)."""

    label = "model server"

    def __init__(self, *, log_path: Path | None = None) -> None:
        self._port = free_port()
        self._own_log = log_path is None  # a temporary log is removed by `stop()`
        self.log_path = log_path or Path(tempfile.mkstemp(prefix="model-server-")[1])
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        return self._port

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        """What the server's environment adds to the user's (`safety.host_process`)."""
        return {"PYTHONUNBUFFERED": "1"}

    def check_ready(self) -> None:
        """Raise ModelServerError when the server cannot start here (before starting it)."""

    def start(self, timeout_s: float = START_TIMEOUT_S) -> Self:
        self.check_ready()
        with open(self.log_path, "wb") as log:
            self._proc = host_process.popen(
                self.command(),
                cwd=self.log_path.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.environment(),
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise ModelServerError(f"{self.label} exited:\n{tail}")
            try:
                if httpx.get(self.openai_base + "/models", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        tail = self.log_tail()
        self.stop()
        raise ModelServerError(f"{self.label} did not answer in {timeout_s:g} s:\n{tail}")

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
