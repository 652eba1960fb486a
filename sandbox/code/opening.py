"""Whether code mode can run here, and opening one job's code session.

Model-written code runs only in a hardened container of a local Docker engine that has the
sandbox image, and only when SANDBOX_BACKEND is `auto` or `docker`: the `local` backend may
run approved commands on the host, but model code never does.
"""

from __future__ import annotations

import threading

from sandbox.code.session import CodeSession
from sandbox.config import SandboxConfig
from sandbox.docker import DockerEngine, EngineError, image_tag
from sandbox.factory import docker_problem

CODE_BACKENDS = ("auto", "docker")  # the SANDBOX_BACKEND values under which code may run


def code_mode_problem(config: SandboxConfig, engine: DockerEngine | None = None) -> str | None:
    """Why model code cannot run in a Docker container here (None when it can)."""
    if config.backend not in CODE_BACKENDS:
        return (
            f"SANDBOX_BACKEND={config.backend}: model-written code runs only in the Docker "
            "sandbox (auto or docker)"
        )
    return docker_problem(config, engine)


def open_code_session(
    config: SandboxConfig, *, cancel: threading.Event | None = None
) -> CodeSession | str:
    """The job's code session on a local engine (its container starts with the first step),
    or why there can be none. Closing the session releases the engine."""
    if config.backend not in CODE_BACKENDS:
        problem = code_mode_problem(config)
        assert problem is not None
        return problem
    try:
        engine = DockerEngine()
    except EngineError as exc:
        return str(exc)
    problem = code_mode_problem(config, engine)
    if problem is not None:
        engine.close()
        return problem
    session = CodeSession.docker(
        engine.client, image_tag(config), step_timeout_s=config.timeout_s, cancel=cancel
    )
    session.on_close = engine.close
    return session
