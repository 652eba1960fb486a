"""A fake `ContainerEngine` for tests: "containers" are temporary directories on the host.

Jobs really run (through `driver_steps.run_job`, like the local backend), so backend
logic can be tested without Docker. `script` queues misbehaviour for the next requests:
"timeout" (host-side deadline passes), "broken" (the container dies mid-job), "crash"
(it dies before the job; `alive()` turns False), or a dict returned as the answer.
NOT isolation: test code only.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Any

from sandbox.checks.driver_steps import run_job
from sandbox.docker.engine import (
    ChannelBroken,
    ChannelTimeout,
    EngineError,
    Job,
    Mounts,
    ProjectMounts,
)
from sandbox.local_backend import host_command

_ids = itertools.count(1)


class FakeChannel:
    def __init__(self, engine: FakeEngine, repo_root: Path, image: str) -> None:
        self.engine = engine
        self.repo_root = repo_root
        self.image = image
        self.container_id = f"fake{next(_ids):060d}"
        self.scratch = Path(tempfile.mkdtemp(prefix="lsp-agent-fake-container-"))
        self.closed = False
        self.crashed = False
        self.programs = dict(engine.programs)

    def request(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self.engine.requests.append((self.container_id, job, timeout_s))
        if self.closed or self.crashed:
            raise ChannelBroken("the fake container is gone")
        action = self.engine.script.pop(0) if self.engine.script else None
        if action == "timeout":
            raise ChannelTimeout("the fake sandbox did not answer in time")
        if action in ("broken", "crash"):
            self.crashed = True
            raise ChannelBroken("the fake driver exited")
        if isinstance(action, dict):
            return dict(action)
        return run_job(self.host_job(job))

    def host_job(self, job: dict[str, Any]) -> dict[str, Any]:
        """The container job with host paths (repo and scratch) in place of container ones."""
        local = dict(job, source=str(self.repo_root), work=str(self.scratch / "work"))
        if local.get("command"):
            local["command"] = host_command(list(local["command"]))
        if local.get("junit_path"):
            old, new = local["junit_path"], str(self.scratch / "junit.xml")
            local["junit_path"] = new
            local["command"] = [part.replace(old, new) for part in local["command"] or ()]
        return local

    def alive(self) -> bool:
        return not (self.closed or self.crashed)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.engine.removed.append(self.container_id)
            shutil.rmtree(self.scratch, ignore_errors=True)


class FakeEngine:
    def __init__(
        self,
        *,
        image_present: bool = True,
        start_error: str | None = None,
        programs: dict[str, bool] | None = None,
    ) -> None:
        self.image_present = image_present
        self.programs = dict(programs or {})  # what the "image" has (unknown: yes)
        self.start_error = start_error
        self.script: list[Any] = []
        self.channels: list[FakeChannel] = []
        self.removed: list[str] = []
        self.requests: list[tuple[str, dict[str, Any], float]] = []
        self.closed = False

    def has_image(self, image: str) -> bool:
        if self.start_error and "engine" in self.start_error:
            raise EngineError(self.start_error)
        return self.image_present

    def start_driver(
        self, repo_root: Path, image: str, project_env: ProjectMounts | None = None
    ) -> FakeChannel:
        if self.start_error:
            raise EngineError(self.start_error)
        channel = FakeChannel(self, repo_root, image)
        self.channels.append(channel)
        return channel

    def run_once(
        self, repo_root: Path, image: str, job: Job, timeout_s: float, project_env: Mounts = None
    ) -> Job:
        channel = self.start_driver(repo_root, image)
        try:
            return channel.request(job, timeout_s)
        finally:
            channel.close()

    def crash_current(self) -> None:
        """Make the newest container die (as if killed from outside)."""
        self.channels[-1].crashed = True

    def close(self) -> None:
        self.closed = True
