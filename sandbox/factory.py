"""`open_sandbox`: the backend the config asks for; the host only when asked; never failing."""

from __future__ import annotations

import logging
from pathlib import Path

from sandbox import tracing
from sandbox.checks import DriverBackedSandbox
from sandbox.config import SandboxConfig
from sandbox.docker import BUILD_HINT, ContainerEngine, EngineError, EngineNotLocal, image_tag
from sandbox.docker_backend import DockerSandbox
from sandbox.local_backend import HostApproval, LocalSandbox
from sandbox.null_backend import NullSandbox
from sandbox.project import ProjectProfile
from sandbox.protocol import Sandbox

logger = logging.getLogger(__name__)

_reported: set[str] = set()


def open_sandbox(
    repo_root: Path | str,
    settings: SandboxConfig | None = None,
    *,
    engine: ContainerEngine | None = None,
    host_approval: HostApproval | None = None,
    profile: ProjectProfile | None = None,
) -> Sandbox:
    """A sandbox for `repo_root`; use it as a context manager.

    `settings` (the sandbox's own config) None reads the user's scope only: the
    environment and the user config file, never the repository's `.env`
    (`SandboxConfig.from_user_scope`): the repository must not choose where its code runs.
    SANDBOX_BACKEND: `docker` (Docker, else no sandbox and `check: unavailable`),
    `local` (no isolation, only when the user chose it), `none`, or `auto` (Docker when
    its engine and image are there, else no sandbox: never the host). `engine`
    replaces the Docker engine (tests). `host_approval` asks the user before each command
    the local backend would run on this machine (without it, nothing runs there).
    `profile` is the job's project profile: what checks a patch (else the sandbox makes
    one on its first check).
    """
    root = Path(repo_root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"sandbox repository root {root} is not a directory")
    config = SandboxConfig.from_user_scope() if settings is None else settings
    with tracing.span("open", requested=config.backend) as span:
        sandbox = _open(root, config, engine, host_approval)
        tracing.set_attributes(span, backend=sandbox.backend)
    if isinstance(sandbox, DriverBackedSandbox):
        sandbox.profile = profile
    return sandbox


def docker_problem(config: SandboxConfig, engine: ContainerEngine | None = None) -> str | None:
    """Why the Docker backend cannot be used (None when it can)."""
    owned = None
    try:
        if engine is None:
            from sandbox.docker import DockerEngine

            engine = owned = DockerEngine()
        image = image_tag(config)
        if not engine.has_image(image):
            return f"the sandbox image {image} does not exist: {BUILD_HINT}"
        return None
    except EngineNotLocal as exc:
        return str(exc)
    except EngineError as exc:
        return f"{exc}, then {BUILD_HINT}"
    finally:
        if owned is not None:
            owned.close()


def _open(
    root: Path,
    config: SandboxConfig,
    engine: ContainerEngine | None,
    host_approval: HostApproval | None,
) -> Sandbox:
    choice = config.backend
    if choice == "none":
        return NullSandbox(root, reason="SANDBOX_BACKEND=none")
    if choice == "local":
        return LocalSandbox(root, config, host_approval)
    owns_engine = engine is None
    try:
        if engine is None:
            from sandbox.docker import DockerEngine

            engine = DockerEngine()
        problem = docker_problem(config, engine)
    except EngineNotLocal as exc:
        problem = str(exc)
    except EngineError as exc:
        problem = f"{exc}, then {BUILD_HINT}"
    if problem is None and engine is not None:
        return DockerSandbox(
            root, config, engine=engine, image=image_tag(config), owns_engine=owns_engine
        )
    if engine is not None and owns_engine:
        engine.close()
    problem = problem or "no engine"
    # `auto` never falls back to running code on this machine: only a user who chose
    # SANDBOX_BACKEND=local gets that (the repository may have been written by anyone).
    _report_once(
        logging.ERROR if choice == "docker" else logging.WARNING,
        f"Docker sandbox unavailable: {problem}. Until then patch checks and commands do "
        "not run (`check: unavailable`).",
    )
    return NullSandbox(root, reason=f"Docker sandbox unavailable: {problem}")


def _report_once(level: int, message: str) -> None:
    if message not in _reported:
        _reported.add(message)
        logger.log(level, message)
