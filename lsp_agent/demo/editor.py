"""The editor `lsp-agent demo` plays: a headless client that acts as a user would.

It opens documents, asks for code actions, runs one, shows progress as it arrives, answers
the server's approval questions (patches: Apply; commands: Reject, except the unsandboxed
patch check that SANDBOX_BACKEND=local asks about: the demo's sample repository is its
own, and it runs those tests on this machine itself), applies workspace edits to its
buffers and saves them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types

from lsp_agent.demo.headless_client import HeadlessClient

_BREAK = re.compile(r"\r\n|\r|\n")
JOB_END_PREFIX = "lsp-agent (job"

CAPABILITIES = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
    ),
    experimental={"lspAgent": {"prompt": True}},
)


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def offset_at(text: str, position: types.Position) -> int:
    """The string offset of an LSP position (UTF-16 code units, the default encoding)."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    if position.line >= len(starts):
        return len(text)
    offset, used = starts[position.line], 0
    match = _BREAK.search(text, offset)
    end = match.start() if match else len(text)
    while offset < end and used < position.character:
        used += 2 if ord(text[offset]) > 0xFFFF else 1
        offset += 1
    return offset


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    spans = sorted(
        ((offset_at(text, e.range.start), offset_at(text, e.range.end), e.new_text) for e in edits),
        key=lambda span: span[0],
    )
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def _progress_message(value: Any) -> tuple[str, str]:
    """(kind, message) of a `$/progress` value (a dict or a structured object)."""
    if isinstance(value, dict):
        return str(value.get("kind", "")), str(value.get("message") or value.get("title") or "")
    kind = getattr(value, "kind", "")
    message = getattr(value, "message", None) or getattr(value, "title", None) or ""
    return str(kind), str(message)


class DemoEditor(HeadlessClient):
    """Records and prints what a user would see; approves patches, rejects commands."""

    def __init__(self, show: Callable[[str], None]) -> None:
        super().__init__()
        self.show = show
        self.documents: dict[str, tuple[str, int]] = {}
        self.questions: list[str] = []
        self.steps_seen: list[str] = []
        self.applied_files: list[str] = []
        self.job_ended = asyncio.Event()

        @self.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def on_question(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
            return self.answer(params)

        @self.feature(types.WORKSPACE_APPLY_EDIT)
        def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            return self.apply_edit(params.edit)

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def on_progress_create(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @self.feature(types.PROGRESS)
        def on_progress(params: types.ProgressParams) -> None:
            kind, message = _progress_message(params.value)
            if (
                kind == "report"
                and message
                and (not self.steps_seen or self.steps_seen[-1] != message)
            ):
                self.steps_seen.append(message)
                self.show(f"   {message}")

    def on_message(self, params: types.ShowMessageParams) -> None:
        if params.message.startswith(JOB_END_PREFIX):
            self.job_ended.set()

    def on_log(self, params: types.LogMessageParams) -> None:
        """A warning in the editor's log is shown (e.g. that traces are off); a job's
        summary is not (its end is told by showMessage)."""
        if params.type == types.MessageType.Warning and not params.message.startswith(
            "lsp-agent job "
        ):
            self.show(f"   {params.message}")

    # ---- what the user does ---------------------------------------------------------------
    def open(self, path: Path) -> str:
        uri = path.resolve().as_uri()
        text = path.read_text(encoding="utf-8")
        self.documents[uri] = (text, 1)
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        return uri

    def answer(self, params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        titles = [action.title for action in params.actions or ()]
        choice = "Apply" if "Apply" in titles else "Reject"
        if "UNSANDBOXED" in params.message and "pytest" in params.message and "Run" in titles:
            choice = "Run"  # the check of the demo's own sample (see the module docstring)
        self.questions.append(params.message)
        first_line = params.message.splitlines()[0] if params.message else ""
        self.show(f"   question: {first_line} -> {choice}")
        return types.MessageActionItem(title=choice)

    def apply_edit(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        changes: list[tuple[str, list[types.TextEdit], int | None]] = [
            (uri, list(edits), None) for uri, edits in (edit.changes or {}).items()
        ]
        for change in edit.document_changes or ():
            if not isinstance(change, types.TextDocumentEdit):
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason="the demo editor only applies text edits"
                )
            text_edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
            changes.append((change.text_document.uri, text_edits, change.text_document.version))
        for uri, _edits, version in changes:
            document = self.documents.get(uri)
            if document is not None and version is not None and document[1] != version:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="version moved")
        for uri, text_edits, _version in changes:
            self._write(uri, text_edits)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _write(self, uri: str, edits: list[types.TextEdit]) -> None:
        path = path_of(uri)
        document = self.documents.get(uri)
        before = document[0] if document else path.read_text(encoding="utf-8")
        after = apply_text_edits(before, edits)
        path.write_text(after, encoding="utf-8")  # the editor saves the approved change
        self.applied_files.append(path.name)
        if document is None:
            return
        version = document[1] + 1
        self.documents[uri] = (after, version)
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=after)],
            )
        )
        self.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri))
        )
