"""The narrow interface the Docker backend needs from a container engine.

`DockerEngine` (sandbox/docker_engine.py) implements it with the docker SDK; unit tests
use a fake. A *driver channel* is one warm container running `sandbox/driver.py serve`:
jobs go in as JSON lines, answers come back as JSON (see the driver's docstring).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


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

    def start_driver(self, repo_root: Path, image: str) -> DriverChannel:
        """Create and start a hardened warm container. Raises `EngineError`."""
        ...

    def run_once(
        self, repo_root: Path, image: str, job: dict[str, Any], timeout_s: float
    ) -> dict[str, Any]:
        """Do one job in a fresh container, removed afterwards (a cold `docker run`)."""
        ...

    def close(self) -> None: ...
