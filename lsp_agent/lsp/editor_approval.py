"""Approving patches and commands in the editor: the `ApprovalGate` the server gives a job.

The gate (called from the job thread) opens a request in the server's `ApprovalStore`
(ids `a1`, `a2`, …) and waits. The question reaches the user two ways at once; the first
answer wins:

- a `window/showMessageRequest` dialog: `Apply` / `Show diff` / `Reject` for a patch
  (`Show diff` opens the diff as a document with `window/showDocument`, or logs it when
  the client cannot show documents, then asks again), `Run` / `Reject` for a command;
  a dismissed dialog is a rejection;
- the `lspAgent.approve` / `lspAgent.reject` commands with that id (the id is in the
  dialog, the progress message, the log and `lspAgent.status`).

When the client supports change annotations (VS Code), a patch is instead approved
"deferred to the editor's preview": the writer sends the edit with one annotation per
hunk (`needsConfirmation`), the editor shows its refactor preview, and the
`ApplyWorkspaceEditResult` decides. A cancelled job is never asked and never writes.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.lsp.client_setup import ApprovalOptions
from lsp_agent.lsp.editor_client import EditorClient, log_message, shorten, show_message
from safety.approval_flags import visible
from safety.approvals import ApprovalKind, ApprovalRequest, ApprovalStore, Outcome, Status
from tools.approval_gate import ApprovalAsk, StoreGate

log = logging.getLogger(__name__)

APPLY, SHOW_DIFF, REJECT, RUN = "Apply", "Show diff", "Reject", "Run"
KEEP = "Keep note"
PREVIEW_APPROVER = "editor preview"

PendingHook = Callable[[ApprovalRequest, ApprovalAsk], None]


def _outcome(status: Status, by: str, reason: str) -> Outcome:
    return Outcome("none", status, by=by, reason=reason, at=time.time())


@dataclass(eq=False)
class EditorApprovalGate:
    """The `ApprovalGate` of one job in the editor."""

    store: ApprovalStore
    client: EditorClient
    options: ApprovalOptions
    _: KW_ONLY
    cancel: threading.Event
    diff_dir: Path
    on_pending: PendingHook | None = None
    workspace: str | None = None
    request_ids: list[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self._store_gate = StoreGate(
            self.store, self._present, timeout_s=self.options.timeout_s, workspace=self.workspace
        )

    def ask(self, ask: ApprovalAsk) -> Outcome:
        if self.cancel.is_set():
            return _outcome(Status.REJECTED, "cancel", "the job was cancelled")
        if ask.kind is ApprovalKind.PATCH and self.options.preview:
            return _outcome(
                Status.APPROVED, PREVIEW_APPROVER, "deferred to the editor's refactor preview"
            )
        return self._store_gate.ask(ask)

    def close(self, reason: str = "the job ended") -> None:
        """Reject this job's unanswered requests (cancel, end of job)."""
        for request_id in self.request_ids:
            if self.store.outcome(request_id) is None:
                self.store.reject(request_id, reason, by="lsp-agent")

    # ---- presenting (job thread, then loop thread) ----------------------------------------
    def _present(self, request: ApprovalRequest, ask: ApprovalAsk) -> None:
        self.request_ids.append(request.id)
        if self.on_pending is not None:
            self.on_pending(request, ask)
        if self.cancel.is_set():  # cancelled between ask() and here
            self.store.reject(request.id, "the job was cancelled", by="cancel")
            return
        self._ask_user(request, ask)

    def _ask_user(self, request: ApprovalRequest, ask: ApprovalAsk) -> None:
        patch = ask.kind is ApprovalKind.PATCH
        yes = KEEP if ask.kind is ApprovalKind.MEMORY_NOTE else RUN
        actions = [APPLY, SHOW_DIFF, REJECT] if patch else [yes, REJECT]
        detail = visible(shorten(ask.details, 160)) if ask.details else ""
        message = f"lsp-agent ({request.id}): {visible(ask.summary)}?" + (
            f"\n{detail}" if detail else ""
        )
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=message,
            actions=[types.MessageActionItem(title=a) for a in actions],
        )
        future = self.client.request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        future.add_done_callback(lambda f: self._answered(request, ask, f))

    def _answered(self, request: ApprovalRequest, ask: ApprovalAsk, future: Future[Any]) -> None:
        if self.store.outcome(request.id) is not None:
            return  # already answered (a command, a cancel, a timeout)
        error = (
            RuntimeError("the request was cancelled") if future.cancelled() else future.exception()
        )
        if error is not None:
            self.store.reject(request.id, f"the editor could not ask: {error}", by="editor")
            return
        answer = future.result()
        title = getattr(answer, "title", None)
        if title in (APPLY, RUN, KEEP):
            self.store.approve(request.id, by="editor dialog")
        elif title == SHOW_DIFF:
            self._show_diff(request, ask)
        elif title == REJECT:
            self.store.reject(request.id, "rejected in the editor", by="editor dialog")
        else:
            self.store.reject(request.id, "the question was dismissed", by="editor dialog")

    def _show_diff(self, request: ApprovalRequest, ask: ApprovalAsk) -> None:
        if not self.options.show_document:
            log_message(
                self.client,
                types.MessageType.Info,
                f"lsp-agent ({request.id}):\n{visible(ask.content)}",
            )
            show_message(
                self.client,
                types.MessageType.Info,
                f"lsp-agent ({request.id}): the diff is in the lsp-agent log (window/logMessage)",
            )
            self._ask_user(request, ask)
            return
        path = self.write_diff(request, ask)
        params = types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
        future = self.client.request(types.WINDOW_SHOW_DOCUMENT, params)
        future.add_done_callback(lambda _f: self._ask_user(request, ask))

    def write_diff(self, request: ApprovalRequest, ask: ApprovalAsk) -> Path:
        self.diff_dir.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", ask.summary)[:60].strip("-")
        path = self.diff_dir / f"{request.id}-{name or 'patch'}.diff"
        path.write_text(visible(ask.content), encoding="utf-8")
        return path
