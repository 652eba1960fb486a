"""`open_sandbox`: pick the backend the settings ask for, falling back loudly, never failing."""

from __future__ import annotations

import logging
from pathlib import Path

from lsp_agent.settings import Settings, user_scope_settings
from sandbox import tracing
from sandbox.docker_backend import DockerSandbox
from sandbox.docker_client import BUILD_HINT
from sandbox.engine import ContainerEngine, EngineError
from sandbox.image import image_tag
from sandbox.local_backend import LocalSandbox
from sandbox.null_backend import NullSandbox
from sandbox.protocol import Sandbox

logger = logging.getLogger(__name__)

_reported: set[str] = set()


def open_sandbox(
    repo_root: Path | str,
    settings: Settings | None = None,
    *,
    engine: ContainerEngine | None = None,
) -> Sandbox:
    """A sandbox for `repo_root`; use it as a context manager.

    `settings` None reads them from the user's scope only (the environment and the user
    config file), never from the repository's `.env`: the repository must not choose
    where its own code runs.
    SANDBOX_BACKEND: `docker` (Docker, else no sandbox and `check: unavailable`),
    `local` (no isolation), `none`, or `auto` (Docker when its engine and image are
    there, else local with a loud warning). `engine` replaces the Docker engine (tests).
    """
    root = Path(repo_root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"sandbox repository root {root} is not a directory")
    if settings is None:
        settings = user_scope_settings()[0]
    with tracing.span("open", requested=settings.sandbox_backend) as span:
        sandbox = _open(root, settings, engine)
        tracing.set_attributes(span, backend=sandbox.backend)
    return sandbox


def docker_problem(settings: Settings, engine: ContainerEngine | None = None) -> str | None:
    """Why the Docker backend cannot be used (None when it can)."""
    owned = None
    try:
        if engine is None:
            from sandbox.docker_engine import DockerEngine

            engine = owned = DockerEngine()
        image = image_tag(settings)
        if not engine.has_image(image):
            return f"the sandbox image {image} does not exist: {BUILD_HINT}"
        return None
    except EngineError as exc:
        return f"{exc}, then {BUILD_HINT}"
    finally:
        if owned is not None:
            owned.close()


def _open(root: Path, settings: Settings, engine: ContainerEngine | None) -> Sandbox:
    choice = settings.sandbox_backend
    if choice == "none":
        return NullSandbox(root, reason="SANDBOX_BACKEND=none")
    if choice == "local":
        return LocalSandbox(root, settings)
    owns_engine = engine is None
    try:
        if engine is None:
            from sandbox.docker_engine import DockerEngine

            engine = DockerEngine()
        problem = docker_problem(settings, engine)
    except EngineError as exc:
        problem = f"{exc}, then {BUILD_HINT}"
    if problem is None and engine is not None:
        return DockerSandbox(
            root, settings, engine=engine, image=image_tag(settings), owns_engine=owns_engine
        )
    if engine is not None and owns_engine:
        engine.close()
    problem = problem or "no engine"
    if choice == "docker":
        _report_once(
            logging.ERROR,
            f"Docker sandbox unavailable: {problem}. Until then patch results say "
            "`check: unavailable` (or set SANDBOX_BACKEND=local, which is not isolation).",
        )
        return NullSandbox(root, reason=f"Docker sandbox unavailable: {problem}")
    _report_once(
        logging.WARNING,
        f"Docker sandbox unavailable: {problem}. Falling back to the LOCAL backend: "
        "checks run on this machine WITHOUT ISOLATION.",
    )
    return LocalSandbox(root, settings)


def _report_once(level: int, message: str) -> None:
    if message not in _reported:
        _reported.add(message)
        logger.log(level, message)
