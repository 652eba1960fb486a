"""The editor's `PatchWriter`: an approved patch goes out as `workspace/applyEdit`.

`write()` is called from the job thread and blocks until the editor answers. The check
and the send happen together on the loop thread (between two incoming messages), so no
`didChange` can slip in between: every file must still have the patch's `before` text
(open documents from the editor's buffers — and the version the patch was made against —
closed files from the disk; a file to create must not exist). If anything moved, nothing
is sent and the agent is told the patch is stale. The edit names each open document's
version, so the editor itself refuses it if the user types while it is in flight.

The `ApplyWorkspaceEditResult` becomes the `apply_patch` observation: `applied`;
`failed` with the editor's reason (or "stale" when a document moved meanwhile);
`rejected` when the editor declined it (the user cancelled the preview).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.lsp.buffers import OpenBuffers
from lsp_agent.lsp.client_setup import EditOptions
from lsp_agent.lsp.editor_client import EditorClient
from lsp_agent.lsp.edits import EditError, workspace_edit
from safety.approval_flags import patch_flags
from tools.patches import FilePatch, PatchResult, WriteOutcome

log = logging.getLogger(__name__)

APPLY_TIMEOUT_S = 600.0
LOOP_TIMEOUT_S = 30.0
SYNC_WAIT_S = 2.0

Versions = dict[str, int | None]


class EditorPatchWriter:
    """Writes patches through the editor; never over text the patch was not made for."""

    def __init__(
        self,
        client: EditorClient,
        buffers: OpenBuffers,
        root: Path,
        options: EditOptions,
        *,
        cancel: threading.Event,
        timeout_s: float = APPLY_TIMEOUT_S,
    ) -> None:
        self.client = client
        self.buffers = buffers
        self.root = root.resolve()
        self.options = options
        self.cancel = cancel
        self.timeout_s = timeout_s

    def write(self, result: PatchResult) -> WriteOutcome:
        if self.cancel.is_set():
            return WriteOutcome("failed", "the job was cancelled; nothing was written")
        try:
            sent = self.client.call(lambda: self._check_and_send(result)).result(LOOP_TIMEOUT_S)
        except Exception as exc:
            log.exception("could not send the workspace edit")
            return WriteOutcome("failed", f"could not send the edit to the editor: {exc}")
        if isinstance(sent, WriteOutcome):
            return sent
        future, versions = sent
        try:
            response = future.result(self.timeout_s)
        except FutureTimeout:
            return WriteOutcome(
                "failed",
                f"the editor did not answer workspace/applyEdit within {self.timeout_s:g} s",
            )
        except Exception as exc:
            return WriteOutcome("failed", f"the editor refused the edit: {exc}")
        return self._outcome(result, response, versions)

    # ---- on the loop thread ---------------------------------------------------------------
    def _check_and_send(self, result: PatchResult) -> WriteOutcome | tuple[Future[Any], Versions]:
        versions: Versions = {}
        stale: list[str] = []
        for file in result.files:
            problem = self._check(file, versions)
            if problem:
                stale.append(problem)
        if stale:
            return WriteOutcome(
                "failed",
                "stale: " + "; ".join(stale) + " since the patch was checked; nothing was written",
                [f.path for f in result.files],
            )
        try:
            edit = workspace_edit(result, self.root, self.options, versions)
        except EditError as exc:
            return WriteOutcome("failed", f"{exc}; nothing was written")
        # the refactor preview may be the only question: it carries the same flags
        flags = patch_flags(result.diff, result.paths)
        label = " | ".join(["lsp-agent: " + ", ".join(result.paths), *flags])
        params = types.ApplyWorkspaceEditParams(edit=edit, label=label)
        return self.client.request(types.WORKSPACE_APPLY_EDIT, params), versions

    def _check(self, file: FilePatch, versions: Versions) -> str:
        """Why `file` cannot be written now ("" when it can); records the version to send."""
        if file.old_path is None:
            return f"{file.path} exists now" if self._exists(file.path) else ""
        if file.path != file.old_path and file.after is not None and self._exists(file.path):
            return f"{file.path} exists now"
        document = self.buffers.get(file.old_path)
        if document is not None:
            text, version = document
            if file.base_version is not None and version != file.base_version:
                moved = f"version {file.base_version} -> {version}"
                return f"{file.old_path} changed in the editor ({moved})"
            if text != file.before:
                return f"{file.old_path} changed in the editor"
            versions[file.path] = version
            return ""
        versions[file.path] = None
        if self._disk_text(file.old_path) != file.before:
            return f"{file.old_path} changed on disk"
        return ""

    def _exists(self, rel_path: str) -> bool:
        return self.buffers.get(rel_path) is not None or (self.root / rel_path).exists()

    def _disk_text(self, rel_path: str) -> str | None:
        try:
            return (self.root / rel_path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _moved(self, versions: Versions) -> list[str]:
        moved = []
        for path, version in versions.items():
            document = self.buffers.get(path)
            if version is not None and (document is None or document[1] != version):
                moved.append(path)
        return moved

    # ---- back on the job thread ----------------------------------------------------------
    def _verify(self, result: PatchResult, versions: Versions, files: list[str]) -> WriteOutcome:
        """Wait for the editor's `didChange` of each open document, then check it.

        Neovim 0.7 skips an edit for a buffer newer than the edit's version yet answers
        `applied: true`; VS Code applies only the hunks left checked in its preview.
        """
        unchanged = [
            path
            for path, version in versions.items()
            if version is not None and not self.buffers.wait_for_change(path, version, SYNC_WAIT_S)
        ]
        if unchanged:
            return WriteOutcome(
                "failed",
                f"the editor answered that it applied the edit, but {', '.join(unchanged)} did "
                "not change (the document was probably newer than the edit)",
                files,
            )
        partial = []
        for file in result.files:
            document = self.buffers.get(file.path)
            if versions.get(file.path) is not None and document and document[0] != file.after:
                partial.append(file.path)
        if partial:
            return WriteOutcome(
                "applied",
                f"partially applied: {', '.join(partial)} differ from the patch (hunks were "
                "left out in the editor)",
                files,
            )
        return WriteOutcome("applied", "", files)

    def _outcome(self, result: PatchResult, response: Any, versions: Versions) -> WriteOutcome:
        files = [f.path for f in result.files]
        if not isinstance(response, types.ApplyWorkspaceEditResult):
            return WriteOutcome("failed", f"the editor sent no valid result ({response!r})", files)
        if response.applied:
            return self._verify(result, versions, files)
        if response.failure_reason:
            return WriteOutcome(
                "failed", f"the editor could not apply it: {response.failure_reason}", files
            )
        try:
            moved = self.client.call(lambda: self._moved(versions)).result(LOOP_TIMEOUT_S)
        except Exception:
            moved = []
        if moved:
            return WriteOutcome(
                "failed",
                f"stale: {', '.join(moved)} changed in the editor while the edit was pending",
                files,
            )
        return WriteOutcome("rejected", "the edit was declined in the editor", files)
