"""The narrow interface the Docker backend needs from a container engine.

`DockerEngine` (sandbox/docker/docker_engine.py) implements it with the docker SDK; unit tests
use a fake. A *driver channel* is one warm container running `sandbox/checks/driver.py serve`:
jobs go in as JSON lines, answers come back as JSON (see the driver's docstring).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class ProjectMounts:
    """Prepared project environments a container mounts read-only (None: not prepared).

    `python` goes on `PYTHONPATH`; `node_modules` at `/sandbox/node_modules`, the parent
    of every work tree (sandbox/project_envs/node_env.py says why there).
    """

    python: Path | None = None
    node_modules: Path | None = None

    def key(self) -> str:
        """Names what is mounted ("" for nothing); part of the baseline cache key."""
        return "+".join(
            path.parent.name if path.name == "node_modules" else path.name for path in self
        )

    def __iter__(self) -> Iterator[Path]:
        return iter([path for path in (self.python, self.node_modules) if path is not None])


Job = dict[str, Any]  # one sandbox job, or its answer, as the driver speaks it (JSON)
Mounts = ProjectMounts | None


class EngineError(Exception):
    """The engine cannot give us a sandbox (down, image missing, API error). Actionable text."""


class EngineNotLocal(EngineError):
    """The engine is on another machine: the sandbox needs the repository's disk."""


class ChannelBroken(Exception):
    """The warm container or its driver went away (crashed, killed, removed)."""


class ChannelTimeout(Exception):
    """No answer before the host-side deadline; the container must be replaced."""


class DriverChannel(Protocol):
    container_id: str

    @property
    def programs(self) -> Mapping[str, bool]:
        """Which probed programs (node, npm, go, cargo) the image has on PATH, as the
        driver found them when it started (empty: not known)."""
        ...

    def request(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one job and wait up to `timeout_s` for its answer.

        Raises `ChannelTimeout` or `ChannelBroken`.
        """
        ...

    def alive(self) -> bool:
        """Whether the container still runs its driver (cheap, no engine call)."""
        ...

    def close(self) -> None:
        """Stop and remove the container (idempotent, never raises)."""
        ...


class ContainerEngine(Protocol):
    def has_image(self, image: str) -> bool: ...

    def start_driver(
        self, repo_root: Path, image: str, project_env: ProjectMounts | None = None
    ) -> DriverChannel:
        """Create and start a hardened warm container. Raises `EngineError`.

        `project_env` names prepared environments to mount read-only (Python's on
        `PYTHONPATH`, Node's `node_modules` at `/sandbox/node_modules`).
        """
        ...

    def run_once(
        self, repo_root: Path, image: str, job: Job, timeout_s: float, project_env: Mounts = None
    ) -> Job:
        """Do one job in a fresh container, removed afterwards (a cold `docker run`)."""
        ...

    def close(self) -> None: ...
