"""The server's side of agent jobs: start, watch, approve, cancel, report.

`JobHost` is what the `lspAgent.*` command handlers delegate to. It knows the editor only
as an `EditorClient` (thread-safe; see `lsp_agent.lsp.bridge`), so it is plain Python.
For each job it builds the editor `ApprovalGate` and `PatchWriter`, an `OverlayWorkspace`
on the open buffers and a progress reporter, then calls the agent runtime in the job's
thread with one `JobRequest` (`lsp_agent.agent.runtime.run_job`, imported on first use so
the server starts without smolagents and LiteLLM).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.agent.job_types import JobRequest, JobResult, ProgressEvent
from lsp_agent.lsp.buffers import OpenBuffers, relative_path
from lsp_agent.lsp.client_setup import JOB_CLIENT, ClientSetup
from lsp_agent.lsp.commands import CommandError, RunRequest, selection_text, task_text
from lsp_agent.lsp.editor_approval import EditorApprovalGate
from lsp_agent.lsp.editor_client import EditorClient, log_message, shorten, show_message
from lsp_agent.lsp.editor_writer import EditorPatchWriter
from lsp_agent.lsp.jobs import Job, JobRefused, JobRegistry
from lsp_agent.lsp.progress import ProgressReporter
from lsp_agent.settings import Settings
from safety.approvals import ApprovalKind, ApprovalRequest, ApprovalStore
from tools.approval_gate import ApprovalAsk

log = logging.getLogger(__name__)

ANSWER_CHARS = 400
__all__ = ["JobHost", "JobRunner", "load_runtime"]


JobRunner = Callable[[JobRequest], JobResult]


def load_runtime() -> JobRunner:
    """The real agent runtime (imports smolagents and LiteLLM: only when a job starts)."""
    from lsp_agent.agent.runtime import run_job

    return run_job


class JobHost:
    """Jobs of one editor session."""

    def __init__(
        self,
        client: EditorClient,
        buffers: OpenBuffers,
        *,
        settings: Settings,
        runner: Callable[[], JobRunner] = load_runtime,
    ) -> None:
        self.client = client
        self.buffers = buffers
        self.settings = settings
        self.runner = runner
        self.root: Path | None = None
        self.setup = ClientSetup()
        self.registry = JobRegistry()
        self.store = ApprovalStore()
        self.diff_dir = Path(tempfile.gettempdir()) / f"lsp-agent-{os.getpid()}"
        self._owners: dict[str, int] = {}
        self._gates: dict[int, EditorApprovalGate] = {}
        self._reporters: dict[int, ProgressReporter] = {}

    def configure(self, root: Path | None, setup: ClientSetup) -> None:
        self.root = root.resolve() if root is not None else None
        self.buffers.set_root(self.root)
        self.setup = setup

    # ---- lspAgent.run ---------------------------------------------------------------------
    def run(self, request: RunRequest) -> dict[str, Any]:
        root = self.root
        if root is None:
            raise CommandError("lsp-agent needs a workspace folder to run a job; open a folder")
        rel = relative_path(root, request.uri) if request.uri else None
        if request.uri and rel is None:
            raise CommandError(f"{request.uri} is not inside the workspace folder {root}")
        document = self.buffers.get(rel) if rel else None
        selection = selection_text(document[0], request.range) if document else None
        task = task_text(request, rel, selection)
        settings = self.settings
        try:
            job = self.registry.start(
                request.task,
                str(root),
                lambda job: self._execute(job, task, settings, root),
                self._finished,
            )
        except JobRefused as exc:
            show_message(self.client, types.MessageType.Warning, f"lsp-agent: {exc}")
            raise
        log.info("job %s started: %s", job.id, shorten(request.task, 200))
        return {"jobId": job.id, "progressToken": job.token}

    def _execute(self, job: Job, task: str, settings: Settings, root: Path) -> JobResult:
        reporter = ProgressReporter(
            self.client, job.token, f"lsp-agent: {job.task}", supported=self.setup.progress
        )
        self._reporters[job.id] = reporter
        reporter.begin()
        gate = EditorApprovalGate(
            self.store,
            self.client,
            self.setup.approvals,
            cancel=job.cancel,
            diff_dir=self.diff_dir,
            on_pending=lambda request, ask: self._pending(job, request, ask),
            workspace=str(root),
        )
        self._gates[job.id] = gate
        writer = EditorPatchWriter(
            self.client, self.buffers, root, self.setup.edits, cancel=job.cancel
        )

        def on_progress(event: ProgressEvent) -> None:
            if event.kind == "notice":  # e.g. traces are off: the server's log and the editor's
                log.warning("%s", event.message)
                log_message(self.client, types.MessageType.Warning, f"lsp-agent: {event.message}")
                return
            job.progress(event)
            reporter.report(event)
            if event.kind == "plan":  # the progress line shows its start; the log all of it
                text = f"lsp-agent job {job.id} plan (step {event.step}):\n{event.message}"
                log_message(self.client, types.MessageType.Info, text)

        request = JobRequest(
            task,
            settings,
            self.buffers.workspace(root),
            approvals=gate,
            writer=writer,
            progress=on_progress,
            cancel=job.cancel,
            client=JOB_CLIENT,
        )
        try:
            return self.runner()(request)
        finally:
            gate.close("the job ended")

    def _pending(self, job: Job, request: ApprovalRequest, ask: ApprovalAsk) -> None:
        self._owners[request.id] = job.id
        job.message = f"waiting for approval {request.id}: {ask.summary}"
        reporter = self._reporters.get(job.id)
        if reporter is not None:
            reporter.note(f"waiting for approval {request.id}: {ask.summary}")
        log_message(
            self.client,
            types.MessageType.Info,
            f"lsp-agent job {job.id}: approval {request.id} pending: {ask.summary}. Answer the "
            f'question, or run lspAgent.approve / lspAgent.reject {{"patchId": "{request.id}"}}.',
        )

    def _finished(self, job: Job, result: JobResult) -> None:
        self._gates.pop(job.id, None)
        reporter = self._reporters.pop(job.id, None)
        summary, kind, text = _summary(job, result)
        if reporter is not None:
            reporter.end(summary)
        details = [f"lsp-agent job {job.id} ({result.status}, {result.steps} steps): {job.task}"]
        if result.answer:
            details.append(result.answer)
        details += result.facts
        if result.error:
            details.append(f"error: {result.error}")
        details += [f"patch {line}" for line in result.patches]
        log_message(self.client, _log_kind(kind), "\n".join(details))
        show_message(self.client, kind, text)  # last: clients and tests take it as the end
        log.log(
            logging.ERROR if result.status == "failed" else logging.INFO,
            "job %s ended: %s %s",
            job.id,
            result.status,
            result.error,
        )

    # ---- lspAgent.cancel / workDoneProgress cancel -------------------------------------------
    def cancel(self, job_id: int) -> dict[str, Any]:
        job, cancelled = self.registry.cancel(job_id)
        if job is None:
            raise CommandError(f"there is no job {job_id}")
        if cancelled:
            gate = self._gates.get(job.id)
            if gate is not None:
                gate.close("the job was cancelled")
            reporter = self._reporters.get(job.id)
            if reporter is not None:
                reporter.note("cancelling…")
        return {
            "jobId": job.id,
            "cancelled": cancelled,
            "state": "cancelling" if cancelled else job.state,
        }

    def cancel_token(self, token: object) -> None:
        job = self.registry.by_token(token)
        if job is not None:
            self.cancel(job.id)

    def shutdown(self) -> None:
        for job in self.registry.running():
            self.cancel(job.id)

    # ---- lspAgent.approve / lspAgent.reject -------------------------------------------------
    def answer(self, ident: str, approve: bool, reason: str = "") -> dict[str, Any]:
        request = self._resolve(ident)
        if approve:
            outcome = self.store.approve(request.id, by="lspAgent.approve")
        else:
            outcome = self.store.reject(request.id, reason or "rejected by lspAgent.reject")
        return {"approvalId": request.id, "status": outcome.status.value}

    def _resolve(self, ident: str) -> ApprovalRequest:
        pending = self.store.pending()
        for request in pending:
            if request.id == ident.lower():
                return request
        if re.fullmatch(r"[pP]?\d+", ident):
            patch = f"p{ident.lstrip('pP')}"
            mentions = [
                r
                for r in pending
                if r.kind is ApprovalKind.PATCH and re.search(rf"\b{patch}\b", r.summary)
            ]
            if len(mentions) == 1:
                return mentions[0]
        listed = ", ".join(f"{r.id} ({r.summary})" for r in pending) or "none"
        raise CommandError(f"no pending approval {ident!r}; pending approvals: {listed}")

    # ---- lspAgent.status ------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        running = [job.describe() for job in self.registry.running()]
        last = self.registry.last()
        pending = [
            {
                "approvalId": r.id,
                "kind": r.kind.value,
                "summary": r.summary,
                "jobId": self._owners.get(r.id),
            }
            for r in self.store.pending()
        ]
        return {
            "job": running[-1] if running else None,
            "jobs": running,
            "pendingApprovals": pending,
            "lastJob": last.describe() if last is not None and last.state == "finished" else None,
            "projectInstructions": _instructions(self.root),
            "projectEnv": self._project_env(),
        }

    def _project_env(self) -> str | None:
        """Whether the workspace's declared dependencies (Python, Node) are prepared."""
        if self.root is None:
            return None
        from sandbox.project_envs import project_status

        return project_status(self.root)


def _instructions(root: Path | None) -> str:
    """Whether the workspace has an `AGENTS.md` and how much of it the model gets."""
    from lsp_agent.agent.instructions import FILE_NAME, load_instructions

    found = load_instructions(root) if root is not None else None
    return found.describe() if found is not None else f"no {FILE_NAME}"


def _summary(job: Job, result: JobResult) -> tuple[str, types.MessageType, str]:
    """(progress end message, showMessage type, showMessage text)."""
    prefix = f"lsp-agent (job {job.id})"
    facts = f" [{result.facts_line}]" if result.facts else ""  # never shortened away
    if result.status == "answered":
        answer = shorten(result.answer, ANSWER_CHARS)
        return "done", types.MessageType.Info, f"{prefix}: {answer}{facts}"
    if result.status == "cancelled":
        return "cancelled", types.MessageType.Info, f"{prefix}: cancelled; nothing more was changed"
    if result.status == "max_steps":
        text = f"{prefix}: {result.error or 'stopped at the step limit without a final answer'}"
        return "stopped", types.MessageType.Warning, text + facts
    if result.status == "stopped":
        return "stopped", types.MessageType.Warning, f"{prefix}: stopped: {result.error}{facts}"
    return "failed", types.MessageType.Error, f"{prefix} failed: {result.error or 'unknown error'}"


def _log_kind(kind: types.MessageType) -> types.MessageType:
    return types.MessageType.Info if kind == types.MessageType.Info else kind
