"""`DockerSandbox`: one hardened warm container per session, replaced when it goes bad.

The container is created on first use and reused for every job; each job works in one
of its fresh copy-on-write trees (sandbox/docker/repo_view.py), and the container is replaced
when all of them are used. It is removed on
`close()`, at interpreter exit (`weakref.finalize`), and by Docker itself when this
process dies (see sandbox/docker/docker_engine.py). A job that times out, or a container that
crashed, gets a fresh container next time. Jobs are serialised (one container).
"""

from __future__ import annotations

import logging
import threading
import weakref
from pathlib import Path
from typing import Any

from sandbox import tracing
from sandbox.checks import DriverBackedSandbox, SandboxUnavailable
from sandbox.config import SandboxConfig
from sandbox.docker import (
    NODE_MODULES_MOUNT,
    WORK_COPY,
    WORKSPACE,
    ChannelBroken,
    ChannelTimeout,
    ContainerEngine,
    DriverChannel,
    EngineError,
    ProjectMounts,
)
from sandbox.project import SKIPPED_DIRS
from sandbox.project_envs import ready_mounts

logger = logging.getLogger(__name__)

JUNIT_PATH = "/tmp/lsp-agent-junit.xml"  # beside the work copy, not in it
HOST_GRACE_S = 15.0  # the host gives up this long after the in-container timeout
_COPY_HINT = (
    " (the sandbox runs as the repository owner, or as nobody for a root-owned repository: "
    "files the owner cannot read cannot be checked)"
)


class DockerSandbox(DriverBackedSandbox):
    backend = "docker"

    def __init__(
        self,
        repo_root: Path,
        config: SandboxConfig,
        *,
        engine: ContainerEngine,
        image: str,
        owns_engine: bool = True,
    ) -> None:
        super().__init__(repo_root, config)
        self.image = image
        self._engine = engine
        self._channel: DriverChannel | None = None
        self._remove_container: weakref.finalize[Any, Any] | None = None
        self._lock = threading.RLock()
        self._closed = False
        self.containers_started = 0
        self._channel_env = ProjectMounts()  # the project environments the container mounts
        self._close_engine = weakref.finalize(self, engine.close) if owns_engine else None

    @property
    def container_id(self) -> str | None:
        channel = self._channel
        return channel.container_id if channel is not None else None

    def _base_job(self) -> dict[str, Any]:
        return {
            "source": WORKSPACE,
            "work": WORK_COPY,
            "excludes": sorted(SKIPPED_DIRS),
            "copy_hint": _COPY_HINT,
            "junit_path": JUNIT_PATH,
            "node_modules": NODE_MODULES_MOUNT,
        }

    def _execute(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        with self._lock:
            if self._closed:
                raise RuntimeError("this sandbox is closed")
            channel = self._ensure_channel()
            with tracing.span(
                "exec", backend=self.backend, container_id=channel.container_id[:12]
            ) as span:
                try:
                    answer = channel.request(job, timeout_s + HOST_GRACE_S)
                except ChannelTimeout:
                    self._discard("no answer before the host-side deadline")
                    tracing.set_attributes(span, timed_out=True)
                    return {"stage": "command", "timed_out": True, "applies": None}
                except ChannelBroken as exc:
                    self._discard(f"it died during a job: {exc}")
                    message = f"the sandbox container died during the job ({exc})"
                    return {"stage": "driver", "error": message}
                tracing.set_attributes(span, timed_out=bool(answer.get("timed_out")))
            if answer.get("timed_out"):
                self._discard("a job timed out (leftover processes are not trusted)")
            elif answer.get("stage") == "driver":
                self._discard(f"its driver failed: {answer.get('error')}")
            elif answer.get("trees_left") == 0:
                self._discard("every fresh work tree was used", logging.DEBUG)
            return answer

    def environment_key(self) -> str:
        return ready_mounts(self.repo_root).key()

    def has_program(self, name: str) -> bool:
        """Whether the image has `name` on PATH, as its driver found at start (unknown: yes)."""
        with self._lock:
            try:
                channel = self._ensure_channel()
            except SandboxUnavailable:
                return True  # the check itself will say the sandbox is unavailable
            return bool(channel.programs.get(name, True))

    def _ensure_channel(self) -> DriverChannel:
        channel = self._channel
        env = ready_mounts(self.repo_root)
        if channel is not None:
            if channel.alive() and env == self._channel_env:
                return channel
            reason = "it stopped (crashed or was removed)"
            self._discard(reason if env == self._channel_env else "the project env changed")
        with tracing.span("create_container", backend=self.backend, image=self.image) as span:
            try:
                channel = self._engine.start_driver(self.repo_root, self.image, project_env=env)
            except EngineError as exc:
                raise SandboxUnavailable(str(exc)) from exc
            tracing.set_attributes(span, container_id=channel.container_id[:12])
        self._channel = channel
        self._channel_env = env
        self._remove_container = weakref.finalize(self, channel.close)
        self.containers_started += 1
        logger.debug("sandbox container %s started", channel.container_id[:12])
        return channel

    def _discard(self, reason: str, level: int = logging.INFO) -> None:
        """Remove the current container; the next job starts a fresh one."""
        channel, finalizer = self._channel, self._remove_container
        self._channel = self._remove_container = None
        if channel is None:
            return
        logger.log(level, "removing sandbox container %s: %s", channel.container_id[:12], reason)
        with tracing.span(
            "remove_container", backend=self.backend, container_id=channel.container_id[:12]
        ):
            if finalizer is not None:
                finalizer()
            else:  # pragma: no cover - a channel always gets a finalizer
                channel.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._channel is not None:
                self._discard("the session ended", logging.DEBUG)
            if self._close_engine is not None:
                self._close_engine()
