"""`lsp-agent phoenix`: a local Arize Phoenix server, in an environment of its own.

Why its own environment: the Phoenix *server* (20.26.x; 20.3.0 crashes at import on
Python 3.11) needs `openai>=3` through pydantic-ai, while LiteLLM pins `openai<3`. The
language server only needs the exporter side (OpenTelemetry + arize-phoenix-otel), so the
server runs from a virtual environment built from the pinned `phoenix-requirements.txt`
shipped in this package, created on first use under the data directory.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

from safety import host_process
from safety.host_env import user_environ
from safety.user_scope import require_data_dir

log = logging.getLogger(__name__)

REQUIREMENTS = Path(__file__).with_name("phoenix-requirements.txt")


def pinned_requirements() -> bytes:
    """The requirement lines of `REQUIREMENTS`, comments left out (a comment is no reason
    to build a new environment)."""
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if not line.lstrip().startswith("#")).encode()


def environment_dir() -> Path:
    """The Phoenix environment, named by a hash of the pinned requirements."""
    digest = hashlib.sha256(pinned_requirements()).hexdigest()[:12]
    return require_data_dir() / f"phoenix-env-{digest}"


def phoenix_executable(env: Path) -> Path:
    return env / ("Scripts" if os.name == "nt" else "bin") / "phoenix"


def ensure_environment() -> Path:
    """Create the Phoenix environment if it is missing; return the `phoenix` executable.

    Built in place (a virtual environment cannot be moved) and marked complete with a
    stamp file at the end, so an interrupted set-up is rebuilt rather than half-used.
    """
    env = environment_dir()
    exe = phoenix_executable(env)
    stamp = env / ".lsp-agent-complete"
    if stamp.exists() and exe.exists():
        return exe
    shutil.rmtree(env, ignore_errors=True)
    python = env / "bin" / "python"
    try:
        uv: str | None = host_process.resolve_program("uv", host_process.vetted_environ())
    except host_process.ProgramNotFound:
        uv = None
    print(f"Setting up Phoenix in {env} (one time, about a minute)...", file=sys.stderr)
    if uv:
        commands = [
            [uv, "venv", "-q", "--python", sys.executable, str(env)],
            [uv, "pip", "install", "-q", "--python", str(python), "-r", str(REQUIREMENTS)],
        ]
    else:
        commands = [
            [sys.executable, "-m", "venv", str(env)],
            [str(python), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)],
        ]
    for argv in commands:
        host_process.run(argv, check=True)
    stamp.write_text(REQUIREMENTS.read_text(encoding="utf-8"), encoding="utf-8")
    return exe


def phoenix_environment(port: int, grpc_port: int, working_dir: Path) -> dict[str, str]:
    """Environment variables for `phoenix serve`: ports, data dir, no outside calls (laid
    over the user's environment by `safety.host_process`)."""
    return {
        "PHOENIX_PORT": str(port),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(working_dir),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }


def run_phoenix(port: int = 6006, setup_only: bool = False, grpc_port: int | None = None) -> int:
    """Start Phoenix in the foreground (OTLP/HTTP at http://127.0.0.1:PORT/v1/traces)."""
    try:
        exe = ensure_environment()
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"lsp-agent phoenix: could not set up Phoenix's environment: {exc}", file=sys.stderr)
        return 1
    if setup_only:
        print(f"Phoenix is installed: {exe}")
        return 0
    working_dir = Path(
        user_environ().get("PHOENIX_WORKING_DIR") or require_data_dir() / "phoenix-data"
    )
    working_dir.mkdir(parents=True, exist_ok=True)
    env = phoenix_environment(port, grpc_port or (4317 if port == 6006 else port + 1), working_dir)
    print(
        f"Phoenix UI and OTLP endpoint: http://127.0.0.1:{port} "
        f"(set PHOENIX_ENDPOINT=http://127.0.0.1:{port}/v1/traces)",
        file=sys.stderr,
    )
    sys.stderr.flush()
    launch = host_process.launch([str(exe), "serve"], working_dir, env=env)
    if os.name == "posix":
        # Become Phoenix, so signals (Ctrl-C, terminate) reach the server itself.
        os.chdir(launch.cwd)
        os.execve(launch.argv[0], launch.argv, launch.env)  # host-launch-ok: a vetted launch
    try:
        return host_process.run(launch.argv, cwd=launch.cwd, env=env).returncode
    except KeyboardInterrupt:
        return 0
