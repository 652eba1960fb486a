"""`lspAgent.undo {jobId?}`: put back what a job wrote, in one `workspace/applyEdit`.

Each job's writer is wrapped in a `RecordingWriter`, so its `WriteJournal` holds every
file as the job wrote it (the hunks the user kept, not the whole patch). Undo reverses
those writes against the documents as they are now (`tools.patches.plan_undo`): what the
user changed elsewhere stays, a file whose written lines changed since is left and named,
and the rest goes out as one workspace edit (no per-hunk confirmation: the user asked for
it), checked and versioned like any patch by `EditorPatchWriter`.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.lsp.buffers import OpenBuffers
from lsp_agent.lsp.client_setup import EditOptions
from lsp_agent.lsp.commands import CommandError
from lsp_agent.lsp.editor_client import EditorClient, shorten, show_message
from lsp_agent.lsp.editor_writer import LOOP_TIMEOUT_S, EditorPatchWriter
from lsp_agent.lsp.jobs import Job
from tools.patches import PatchWriter, RecordingWriter, WriteJournal, plan_undo, workspace_reader

__all__ = ["JobUndo"]

KEEP_JOURNALS = 20


class JobUndo:
    """The journals of a session's jobs, and undo."""

    def __init__(self, client: EditorClient, buffers: OpenBuffers) -> None:
        self.client = client
        self.buffers = buffers
        self._lock = threading.Lock()
        self._journals: dict[int, WriteJournal] = {}
        self._undone: set[int] = set()

    def recording(self, job_id: int, writer: PatchWriter) -> PatchWriter:
        """`writer`, with what it writes recorded for `job_id`."""
        journal = WriteJournal()
        with self._lock:
            self._journals[job_id] = journal
            for old in sorted(self._journals)[:-KEEP_JOURNALS]:
                del self._journals[old]
        return RecordingWriter(writer, journal)

    def describe(self, job_id: int) -> dict[str, Any]:
        """What `lspAgent.status` says about a job's changes."""
        with self._lock:
            journal = self._journals.get(job_id)
            undone = job_id in self._undone
        return {"changedFiles": journal.paths() if journal else [], "undone": undone}

    def undo(self, job: Job, root: Path, options: EditOptions) -> dict[str, Any]:
        """Restore what `job` wrote (blocks until the editor answers: not on the loop)."""
        if job.state != "finished":
            raise CommandError(
                f"job {job.id} is still running; cancel it (lspAgent.cancel) or wait, then undo"
            )
        with self._lock:
            journal = self._journals.get(job.id)
            undone = job.id in self._undone
        name = f"job {job.id} ({shorten(job.task, 80)})"
        if undone:
            return self._tell(job, "nothing", f"{name} was undone already", [], {})
        if not journal:
            return self._tell(job, "nothing", f"{name} changed no file: nothing to undo", [], {})
        workspace = self.buffers.workspace(root)
        read = workspace_reader(workspace)
        plan = self.client.call(lambda: plan_undo(journal.writes(), read)).result(LOOP_TIMEOUT_S)
        left = plan.reasons
        if not plan.result.files:
            nothing = f"nothing of {name} to undo: {plan.describe()}"
            return self._tell(job, "nothing", nothing, [], left)
        writer = EditorPatchWriter(
            self.client,
            self.buffers,
            root,
            dataclasses.replace(options, change_annotations=False),
            cancel=threading.Event(),
            title=f"lsp-agent undo of job {job.id}",
        )
        outcome = writer.write(plan.result)
        if outcome.status != "applied":
            return self._tell(job, outcome.status, f"undo of {name}: {outcome.reason}", [], left)
        with self._lock:
            self._undone.add(job.id)
        return self._tell(job, "applied", f"undid {name}: {plan.describe()}", plan.restored, left)

    def _tell(
        self, job: Job, status: str, message: str, restored: list[str], left: dict[str, str]
    ) -> dict[str, Any]:
        fine = status in ("applied", "nothing")
        kind = types.MessageType.Info if fine else types.MessageType.Warning
        show_message(self.client, kind, f"lsp-agent: {message}")
        return {
            "jobId": job.id,
            "status": status,
            "restored": restored,
            "changedSince": [{"path": path, "reason": why} for path, why in left.items()],
            "message": message,
        }
