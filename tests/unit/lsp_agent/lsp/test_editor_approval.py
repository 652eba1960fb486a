"""The editor-side gate, writer and progress reporter, against a fake editor connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types

from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.lsp.buffers import OpenBuffers
from lsp_agent.lsp.client_setup import ApprovalOptions, EditOptions
from lsp_agent.lsp.editor_approval import EditorApprovalGate
from lsp_agent.lsp.editor_writer import EditorPatchWriter
from lsp_agent.lsp.progress import ProgressReporter
from safety.approvals import ApprovalKind, ApprovalStore, Status
from tools.approval_gate import ApprovalAsk
from tools.patches.model import FilePatch, PatchResult

T = TypeVar("T")


class FakeClient:
    """Runs everything inline; requests wait for `answer()`."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.pending: list[tuple[str, Any, Future[Any]]] = []
        self.auto: dict[str, Any] = {}

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))

    def request(self, method: str, params: Any) -> Future[Any]:
        self.sent.append((method, params))
        future: Future[Any] = Future()
        if method in self.auto:
            value = self.auto[method]
            future.set_result(value(params) if callable(value) else value)
        else:
            self.pending.append((method, params, future))
        return future

    def call(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        future.set_result(fn())
        return future

    def methods(self) -> list[str]:
        return [m for m, _ in self.sent]


PATCH_ASK = ApprovalAsk(ApprovalKind.PATCH, "--- a/x\n+++ b/x\n", "Apply p1 to x.py", "check: ok")


def gate(client: FakeClient, store: ApprovalStore, tmp: Path, **options: Any) -> EditorApprovalGate:
    return EditorApprovalGate(
        store,
        client,
        ApprovalOptions(timeout_s=5, **options),
        cancel=threading.Event(),
        diff_dir=tmp,
    )


def test_preview_clients_approve_patches_in_the_preview(tmp_path: Path) -> None:
    client, store = FakeClient(), ApprovalStore()
    outcome = gate(client, store, tmp_path, preview=True).ask(PATCH_ASK)
    assert outcome.approved and outcome.by == "editor preview"
    assert client.sent == [] and store.pending() == []


def test_dialog_answers(tmp_path: Path) -> None:
    for answer, status in [
        ("Apply", Status.APPROVED),
        ("Reject", Status.REJECTED),
        (None, Status.REJECTED),
    ]:
        client, store = FakeClient(), ApprovalStore()
        item = None if answer is None else types.MessageActionItem(title=answer)
        client.auto[types.WINDOW_SHOW_MESSAGE_REQUEST] = item
        outcome = gate(client, store, tmp_path).ask(PATCH_ASK)
        assert outcome.status is status, answer
        params = client.sent[0][1]
        assert "(a1): Apply p1 to x.py?" in params.message and "check: ok" in params.message


def test_show_diff_then_apply(tmp_path: Path) -> None:
    client, store = FakeClient(), ApprovalStore()
    answers = iter(["Show diff", "Apply"])
    client.auto[types.WINDOW_SHOW_MESSAGE_REQUEST] = lambda _p: types.MessageActionItem(
        title=next(answers)
    )
    client.auto[types.WINDOW_SHOW_DOCUMENT] = types.ShowDocumentResult(success=True)
    assert gate(client, store, tmp_path, show_document=True).ask(PATCH_ASK).approved
    shown = next(p for m, p in client.sent if m == types.WINDOW_SHOW_DOCUMENT)
    assert Path(shown.uri.removeprefix("file://")).read_text() == PATCH_ASK.content


def test_cancel_and_close_reject_pending_requests(tmp_path: Path) -> None:
    client, store = FakeClient(), ApprovalStore()
    the_gate = gate(client, store, tmp_path)
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(the_gate.ask(PATCH_ASK)))
    worker.start()
    while not store.pending():
        threading.Event().wait(0.01)
    the_gate.close("the job was cancelled")
    worker.join(5)
    assert result and result[0].rejected and "cancelled" in result[0].reason
    _, _, dialog = client.pending[0]
    dialog.set_result(types.MessageActionItem(title="Apply"))  # a late answer changes nothing
    assert store.outcome("a1").status is Status.REJECTED  # type: ignore[union-attr]
    the_gate.cancel.set()
    assert the_gate.ask(PATCH_ASK).rejected and len(client.pending) == 1


def writer(client: FakeClient, buffers: OpenBuffers, root: Path) -> EditorPatchWriter:
    return EditorPatchWriter(
        client, buffers, root, EditOptions(), cancel=threading.Event(), timeout_s=5
    )


def setup_file(tmp_path: Path) -> tuple[OpenBuffers, PatchResult]:
    (tmp_path / "x.py").write_text("a = 1\n")
    buffers = OpenBuffers(tmp_path)
    return buffers, PatchResult(
        (FilePatch("x.py", "x.py", "a = 1\n", "a = 2\n", base_version=None),)
    )


def test_writer_sends_the_current_version_and_maps_results(tmp_path: Path) -> None:
    buffers, result = setup_file(tmp_path)
    uri = (tmp_path / "x.py").resolve().as_uri()
    buffers.update(uri, "a = 1\n", 4)
    client = FakeClient()
    client.auto[types.WORKSPACE_APPLY_EDIT] = types.ApplyWorkspaceEditResult(applied=True)
    the_writer = writer(client, buffers, tmp_path)
    threading.Timer(0.05, lambda: buffers.update(uri, "a = 2\n", 5)).start()
    assert the_writer.write(result).status == "applied"
    params = client.sent[0][1]
    assert params.edit.document_changes[0].text_document.version == 4

    client.auto[types.WORKSPACE_APPLY_EDIT] = types.ApplyWorkspaceEditResult(applied=True)
    buffers.update(uri, "a = 1\n", 10)
    skipped = the_writer.write(result)  # "applied", but the buffer never changed (Neovim 0.7)
    assert skipped.status == "failed" and "did not change" in skipped.reason

    def buffer_becomes(text: str, version: int, *, applied: bool) -> Any:
        """An editor answer: the buffer changes to `text` meanwhile, then `applied`."""

        def answer(_params: Any) -> types.ApplyWorkspaceEditResult:
            buffers.update(uri, text, version)
            return types.ApplyWorkspaceEditResult(applied=applied)

        return answer

    client.auto[types.WORKSPACE_APPLY_EDIT] = buffer_becomes(
        "a = 1\n# only some hunks\n", 11, applied=True
    )
    partial = the_writer.write(result)
    assert partial.status == "applied" and "partially applied: x.py" in partial.reason

    client.auto[types.WORKSPACE_APPLY_EDIT] = types.ApplyWorkspaceEditResult(
        applied=False, failure_reason="nope"
    )
    buffers.update(uri, "a = 1\n", 6)
    failed = the_writer.write(result)
    assert failed.status == "failed" and "nope" in failed.reason

    client.auto[types.WORKSPACE_APPLY_EDIT] = types.ApplyWorkspaceEditResult(applied=False)
    assert the_writer.write(result).status == "rejected"

    client.auto[types.WORKSPACE_APPLY_EDIT] = buffer_becomes("a = 1\n# typed\n", 7, applied=False)
    stale = the_writer.write(result)
    assert stale.status == "failed" and "while the edit was pending" in stale.reason


def test_writer_says_which_hunks_the_editor_kept_and_what_was_written(tmp_path: Path) -> None:
    before = "".join(f"line {n}\n" for n in range(1, 21))
    after = before.replace("line 2\n", "two\n").replace("line 18\n", "eighteen\n")
    (tmp_path / "x.py").write_text(before)
    buffers = OpenBuffers(tmp_path)
    uri = (tmp_path / "x.py").resolve().as_uri()
    buffers.update(uri, before, 1)
    kept = before.replace("line 18\n", "eighteen\n")

    def second_hunk_only(_params: Any) -> types.ApplyWorkspaceEditResult:
        buffers.update(uri, kept, 2)
        return types.ApplyWorkspaceEditResult(applied=True)

    client = FakeClient()
    client.auto[types.WORKSPACE_APPLY_EDIT] = second_hunk_only
    patch = PatchResult((FilePatch("x.py", "x.py", before, after),))
    outcome = writer(client, buffers, tmp_path).write(patch)
    assert outcome.status == "applied"
    assert "the user kept 1 of 2 hunks (2) and left out hunk 1 (@@ -1,5 +1,5 @@)" in outcome.reason
    assert [(f.before, f.after) for f in outcome.written] == [(before, kept)]


def test_writer_refuses_without_sending(tmp_path: Path) -> None:
    buffers, result = setup_file(tmp_path)
    client = FakeClient()
    uri = (tmp_path / "x.py").resolve().as_uri()
    moved = PatchResult((FilePatch("x.py", "x.py", "a = 1\n", "a = 2\n", base_version=3),))
    buffers.update(uri, "a = 1\n", 4)  # the version moved since the patch was checked
    outcome = writer(client, buffers, tmp_path).write(moved)
    assert outcome.status == "failed" and "version 3 -> 4" in outcome.reason
    buffers.remove(uri)
    (tmp_path / "x.py").write_text("a = 9\n")  # changed on disk
    outcome = writer(client, buffers, tmp_path).write(result)
    assert outcome.status == "failed" and "changed on disk" in outcome.reason
    create = PatchResult((FilePatch("x.py", None, None, "new\n"),))
    assert "exists now" in writer(client, buffers, tmp_path).write(create).reason
    cancelled = writer(client, buffers, tmp_path)
    cancelled.cancel.set()
    assert "cancelled" in cancelled.write(result).reason
    assert client.sent == []


def test_writer_times_out(tmp_path: Path) -> None:
    buffers, result = setup_file(tmp_path)
    client = FakeClient()
    the_writer = EditorPatchWriter(
        client, buffers, tmp_path, EditOptions(), cancel=threading.Event(), timeout_s=0.05
    )
    outcome = the_writer.write(result)
    assert outcome.status == "failed" and "did not answer" in outcome.reason


def test_progress_is_held_until_the_token_exists() -> None:
    client = FakeClient()
    reporter = ProgressReporter(client, "tok", "lsp-agent: task")
    reporter.begin()
    reporter.report(ProgressEvent(1, 10, "read_file", "reading"))
    reporter.report(ProgressEvent(2, 10, "rg_search", "searching"))
    assert client.methods() == [types.WINDOW_WORK_DONE_PROGRESS_CREATE]
    _, _, created = client.pending[0]
    created.set_result(None)
    values = [p.value for m, p in client.sent if m == types.PROGRESS]
    assert isinstance(values[0], types.WorkDoneProgressBegin) and values[0].cancellable
    assert [v.message for v in values[1:]] == [
        "step 1/10 · read_file · reading",
        "step 2/10 · rg_search · searching",
    ]
    reporter.end("done")
    assert isinstance(client.sent[-1][1].value, types.WorkDoneProgressEnd)


def test_progress_end_before_the_token_exists_and_refused_tokens() -> None:
    client = FakeClient()
    reporter = ProgressReporter(client, "tok", "t")
    reporter.begin()
    reporter.end("failed")
    client.pending[0][2].set_result(None)
    kinds = [type(p.value).__name__ for m, p in client.sent if m == types.PROGRESS]
    assert kinds == ["WorkDoneProgressBegin", "WorkDoneProgressEnd"]

    refused = FakeClient()
    reporter = ProgressReporter(refused, "tok", "t")
    reporter.begin()
    refused.pending[0][2].set_exception(RuntimeError("no"))
    reporter.report(ProgressEvent(1, 5, "read_file", "x"))
    assert refused.methods()[-1] == types.WINDOW_LOG_MESSAGE
