"""Agent jobs: one at a time per workspace, each in its own worker thread.

A second `lspAgent.run` while a job is running in the same workspace is **refused** (not
queued) with a message naming the running job and how to cancel it. Queuing was
rejected on purpose: a queued task would start later against buffers the user has
changed in the meantime, and its approvals would pop up long after the user asked.

Jobs run in plain daemon threads — never pygls's thread pool, which also reads stdin.
A job that raises (a bug) ends as `failed`; the registry and the server carry on.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsp_agent.agent.job_types import JobResult, ProgressEvent

log = logging.getLogger(__name__)

KEEP_FINISHED = 20  # finished jobs remembered for lspAgent.status


class JobRefused(Exception):
    """A job could not start (another is running in that workspace)."""


@dataclass
class Job:
    """A running or finished job, as `lspAgent.status` shows it."""

    id: int
    task: str
    workspace: str
    token: str
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.time)
    state: str = "running"
    step: int = 0
    max_steps: int = 0
    tool: str | None = None
    message: str = "starting"
    plan: str = ""  # the agent's latest plan (AGENT_PLANNING_INTERVAL > 0)
    result: JobResult | None = None
    thread: threading.Thread | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def progress(self, event: ProgressEvent) -> None:
        if event.kind == "plan" and event.ok:
            self.plan = event.message
        if event.step:
            self.step, self.max_steps = event.step, event.max_steps
        self.tool = event.tool or self.tool
        self.message = event.message

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "jobId": self.id,
            "task": self.task,
            "state": self.state,
            "step": self.step,
            "maxSteps": self.max_steps,
            "tool": self.tool,
            "message": self.message,
            "plan": self.plan or None,
            "progressToken": self.token,
            "runningForS": round(time.time() - self.started, 1),
        }
        if self.result is not None:
            info["status"] = self.result.status
            info["answer"] = self.result.answer
            info["error"] = self.result.error
            info["patches"] = list(self.result.patches)
            info["facts"] = list(self.result.facts)
            info["steps"] = self.result.steps
            info["toolsUsed"] = list(self.result.tools_used)
            info["durationS"] = round(self.result.duration_s, 1)
        return info


JobBody = Callable[[Job], JobResult]
JobDone = Callable[[Job, JobResult], None]


class JobRegistry:
    """Starts, tracks and cancels jobs; at most one running job per workspace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._jobs: dict[int, Job] = {}
        self._running: dict[str, int] = {}

    def start(self, task: str, workspace: str, body: JobBody, on_done: JobDone) -> Job:
        """Start `body(job)` in a thread; raise `JobRefused` if the workspace is busy."""
        with self._lock:
            running = self._running.get(workspace)
            if running is not None:
                other = self._jobs[running]
                raise JobRefused(
                    f"job {other.id} is still running in this workspace ({other.task!r}, "
                    f"{other.message}). One job per workspace: wait for it, or cancel it with "
                    f'lspAgent.cancel {{"jobId": {other.id}}}.'
                )
            job_id = next(self._ids)
            job = Job(job_id, task, workspace, token=f"lsp-agent/job/{job_id}")
            self._jobs[job_id] = job
            self._running[workspace] = job_id
        job.thread = threading.Thread(
            target=self._run, args=(job, body, on_done), name=f"lsp-agent-job-{job_id}", daemon=True
        )
        job.thread.start()
        return job

    def _run(self, job: Job, body: JobBody, on_done: JobDone) -> None:
        started = time.monotonic()
        try:
            result = body(job)
        except BaseException as exc:  # a bug in the job: report it, keep serving
            log.exception("job %s crashed", job.id)
            result = JobResult(
                "failed",
                error=f"internal error: {type(exc).__name__}: {exc}",
                duration_s=time.monotonic() - started,
            )
        if job.cancel.is_set() and result.status not in ("cancelled", "failed"):
            log.info("job %s finished as %s after a cancel", job.id, result.status)
        with self._lock:
            job.result = result
            job.state = "finished"
            finished = [j for j in self._jobs.values() if j.state == "finished"]
            for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._jobs[old.id]
            if self._running.get(job.workspace) == job.id:
                del self._running[job.workspace]
        try:
            on_done(job, result)
        except Exception:
            log.exception("reporting the end of job %s failed", job.id)
        finally:
            job.done.set()

    def get(self, job_id: int) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def by_token(self, token: object) -> Job | None:
        with self._lock:
            return next((j for j in self._jobs.values() if j.token == token), None)

    def cancel(self, job_id: int) -> tuple[Job | None, bool]:
        """Ask the job to stop (the agent stops within one step).

        Returns the job (None: no such job) and whether it was running."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.state != "running":
                return job, False
            job.state = "cancelling"
        job.cancel.set()
        return job, True

    def running(self) -> list[Job]:
        with self._lock:
            return [self._jobs[i] for i in self._running.values()]

    def last(self) -> Job | None:
        with self._lock:
            return self._jobs[max(self._jobs)] if self._jobs else None
