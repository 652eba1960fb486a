"""Files the ACP way: read through the client's `fs/read_text_file` (unsaved buffers),
write an approved patch through `fs/write_text_file` (the client's buffers stay in sync),
and fall back to the disk when the client cannot.

Every path is checked by `safety.validation` first (inside the workspace, not a
sensitive file) — the client is asked only about paths the disk workspace would allow.
The writer checks staleness before writing anything: each file's current text (as the
client sees it) must still be the patch's `before` text, so a patch is never written
over the user's newer edits; after a cancel it writes nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path

from lsp_agent.acp.client_calls import ClientCallError, ClientCalls
from safety.validation import ValidationError, validate_path
from tools.patches import DiskPatchWriter, PatchResult, WriteOutcome
from tools.workspace import DiskWorkspace, NotTextError

log = logging.getLogger(__name__)


class ClientWorkspace:
    """The disk workspace, with file text read through the client when it can."""

    def __init__(self, root: Path, client: ClientCalls) -> None:
        self._disk = DiskWorkspace(root)
        self.client = client

    @property
    def root(self) -> Path:
        return self._disk.root

    def read_text(self, rel_path: str) -> str:
        path = self._disk.resolve(rel_path)  # raises ValidationError for unsafe paths
        if self.client.files.read and path.is_file():
            try:
                text = self.client.read_text(str(path))
            except ClientCallError as exc:
                log.info("acp: reading %s from disk: %s", rel_path, exc)
            else:
                if "\x00" in text:
                    raise NotTextError(rel_path, "it contains NUL bytes, so it looks binary")
                return text
        return self._disk.read_text(rel_path)

    def exists(self, rel_path: str) -> bool:
        return self._disk.exists(rel_path)

    def version(self, rel_path: str) -> int | None:
        return None

    def list_files(self) -> list[str]:
        return self._disk.list_files()

    def open_documents(self) -> Mapping[str, str]:
        return {}


class ClientPatchWriter:
    """Writes approved patches through the client, or to disk when it cannot."""

    def __init__(
        self, workspace: ClientWorkspace, client: ClientCalls, cancel: threading.Event
    ) -> None:
        self.workspace = workspace
        self.client = client
        self.cancel = cancel

    def write(self, result: PatchResult) -> WriteOutcome:
        if self.cancel.is_set():
            return WriteOutcome("rejected", "the prompt was cancelled; nothing was written")
        moves = any(f.after is None or (f.old_path not in (None, f.path)) for f in result.files)
        if not self.client.files.write or moves:
            # The client's fs methods cannot delete or rename: the disk writer does it
            # all, after its own staleness check against the bytes on disk.
            return DiskPatchWriter(self.workspace.root).write(result)
        root = self.workspace.root
        try:
            targets = [(validate_path(root, f.path), f) for f in result.files]
        except ValidationError as exc:
            return WriteOutcome("failed", f"refused: {exc.message}; nothing was written")
        stale = [f.path for _path, f in targets if self._current(f.path) != f.before]
        if stale:
            return WriteOutcome(
                "failed",
                f"stale: {', '.join(stale)} changed since the patch was made; nothing was written",
                stale,
            )
        written: list[tuple[Path, str | None]] = []
        for path, f in targets:
            assert f.after is not None
            try:
                self.client.write_text(str(path), f.after)
            except ClientCallError as exc:
                problems = self._restore(written)
                why = f"could not write {f.path}: {exc}"
                if problems:
                    return WriteOutcome("failed", f"{why}; RESTORE INCOMPLETE: {problems}")
                return WriteOutcome("failed", f"{why}; the files written were restored")
            written.append((path, f.before))
        return WriteOutcome("applied", "", [f.path for f in result.files])

    def _current(self, rel_path: str) -> str | None:
        try:
            return self.workspace.read_text(rel_path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return "\0unreadable"

    def _restore(self, written: list[tuple[Path, str | None]]) -> str:
        problems = []
        for path, before in reversed(written):
            try:
                if before is None:
                    path.unlink(missing_ok=True)
                else:
                    self.client.write_text(str(path), before)
            except (ClientCallError, OSError) as exc:
                problems.append(f"{path}: {exc}")
        return "; ".join(problems)
