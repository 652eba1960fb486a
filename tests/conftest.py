"""Shared fixtures.

Component rule: a test that needs Docker, Neovim, Phoenix, ripgrep or git FAILS when `CI=true`
and the component is missing (CI provisions them), and is skipped with a reason elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lsp_agent.testing.calc_repo import write_calc_repo
from safety import host_env

# In-process tests set the user's environment with monkeypatch.setenv, as a user would before
# starting lsp-agent: here the user's environment follows os.environ. The start-up snapshot
# itself is tested in tests/unit/safety/test_host_env.py and, end to end, through the real CLI and
# server in subprocesses (tests/lsp/test_library_dotenv.py).
host_env.follow_process_environ()


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_component(name: str, available: bool, how_to_fix: str) -> None:
    """Fail under CI, skip elsewhere, when a real component a test needs is missing."""
    if available:
        return
    message = f"{name} is not available: {how_to_fix}"
    if in_ci():
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


def docker_engine_available() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


@pytest.fixture(scope="session")
def docker_engine() -> None:
    require_component(
        "Docker engine",
        docker_engine_available(),
        "install docker.io and start dockerd (see .ci/run)",
    )


def git_init(path: Path) -> Path:
    """Make `path` a git repository with one commit of whatever it holds."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    git = shutil.which("git") or "git"
    for argv in (
        [git, "init", "-q", "-b", "main"],
        [git, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "add", "-A"],
        [
            git,
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
    ):
        subprocess.run(argv, cwd=path, check=True, env=env, capture_output=True)
    return path


@pytest.fixture
def tmp_repo(tmp_path: Path) -> Path:
    """A small git repository with a Python package and a test."""
    return git_init(write_calc_repo(tmp_path / "repo"))


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def phoenix_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A real Phoenix server started by `lsp-agent phoenix`; yields its base URL."""
    import sys

    port, grpc_port = free_port(), free_port()
    workdir = tmp_path_factory.mktemp("phoenix")
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(workdir)}
    command = [sys.executable, "-m", "lsp_agent", "phoenix", "--port", str(port)]
    command += ["--grpc-port", str(grpc_port)]
    log_path = workdir / "phoenix.log"
    with open(log_path, "wb") as log_handle:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log_handle)
        url = f"http://127.0.0.1:{port}"
        try:
            if not wait_for_http(url + "/healthz", proc, timeout_s=240):
                tail = log_path.read_text(errors="replace")[-2000:]
                require_component("Phoenix server", False, f"`lsp-agent phoenix` failed:\n{tail}")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def wait_for_http(url: str, proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Poll `url` until it answers 200, the process dies, or the time runs out."""
    import time

    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(1)
    return False


@pytest.fixture(scope="session")
def llama_cpp_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """llama-cpp-python's real OpenAI-compatible server with SmolLM2, once per test session;
    yields it (`openai_base`, `log_tail()`); the agent calls it `openai/smollm2`."""
    from lsp_agent.testing.llama_cpp_server import (
        LlamaCppPythonServer,
        missing_server_modules,
    )
    from lsp_agent.testing.server_process import ModelServerError

    missing = missing_server_modules()
    require_component(
        "llama-cpp-python's server", not missing, f"missing {missing}: run `uv sync` (dev group)"
    )
    log_path = tmp_path_factory.mktemp("llama-cpp-server") / "server.log"
    server = LlamaCppPythonServer(log_path=log_path, context_tokens=4096)
    try:
        server.start()
    except ModelServerError as exc:
        require_component("llama-cpp-python's server", False, str(exc))
    try:
        yield server
    finally:
        server.stop()
