"""The editor's open documents, as the agent's tools see them.

pygls keeps the open documents (with `didChange` incremental sync) on the event loop.
The agent runs in a worker thread, so the server records each document's lines and version
in `OpenBuffers` after pygls has applied a change (on the loop thread). Readers get an
immutable mapping (copy-on-write: a new mapping replaces the old one). Recording costs no
copy of the text: for a `LineDocument` the buffers keep its `text_snapshot` reader, and
the text is joined only when a tool asks for it. Between pygls applying an edit and the
server recording the new version, a reader may get the newer text with the older version;
that errs the safe way: the patch writer then sees a version change and re-checks.

`OpenBuffers.workspace(root)` is the `OverlayWorkspace` the tools read through: open
documents (unsaved text) first, the disk otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from tools.workspace import OverlayWorkspace

Document = tuple[str, int]


class _Snapshot:
    """One recorded version of a document: its text, or the reader that gives it."""

    __slots__ = ("_content", "version")

    def __init__(self, content: str | Callable[[], str], version: int) -> None:
        self._content = content
        self.version = version

    @property
    def document(self) -> Document:
        content = self._content
        return (content if isinstance(content, str) else content()), self.version


class _Documents(Mapping[str, Document]):
    """Path -> (text, version), each text joined on first read."""

    def __init__(self, snapshots: Mapping[str, _Snapshot]) -> None:
        self._snapshots = snapshots

    def __getitem__(self, rel_path: str) -> Document:
        return self._snapshots[rel_path].document

    def __iter__(self) -> Iterator[str]:
        return iter(self._snapshots)

    def __len__(self) -> int:
        return len(self._snapshots)


def uri_to_path(uri: str) -> Path | None:
    """The local path of a `file:` URI, or None for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return Path(path)


def relative_path(root: Path | None, uri: str) -> str | None:
    """The workspace-relative POSIX path of `uri`, or None when it lies outside `root`."""
    path = uri_to_path(uri)
    if path is None or root is None:
        return None
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


class OpenBuffers:
    """Thread-safe snapshots of the open documents under a workspace root."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root.resolve() if root is not None else None
        self._by_uri: dict[str, _Snapshot] = {}
        self._by_path: Mapping[str, _Snapshot] = MappingProxyType({})
        self._relative: dict[str, str | None] = {}
        self._changed = threading.Condition()

    @property
    def root(self) -> Path | None:
        return self._root

    def set_root(self, root: Path | None) -> None:
        with self._changed:
            self._root = root.resolve() if root is not None else None
            self._relative.clear()
            self._publish()

    def update(self, uri: str, content: str | Callable[[], str], version: int | None) -> None:
        """Record the document's text, or a thread-safe reader of it (after pygls applied
        the change)."""
        with self._changed:
            self._by_uri[uri] = _Snapshot(content, version if version is not None else 0)
            self._publish()

    def remove(self, uri: str) -> None:
        with self._changed:
            if self._by_uri.pop(uri, None) is not None:
                self._relative.pop(uri, None)
                self._publish()

    def _publish(self) -> None:
        paths: dict[str, _Snapshot] = {}
        for uri, document in self._by_uri.items():
            if uri not in self._relative:
                self._relative[uri] = relative_path(self._root, uri)
            rel = self._relative[uri]
            if rel is not None:
                paths[rel] = document
        self._by_path = MappingProxyType(paths)
        self._changed.notify_all()

    def documents(self) -> Mapping[str, Document]:
        """Workspace-relative path -> (unsaved text, document version)."""
        return _Documents(self._by_path)

    def get(self, rel_path: str) -> Document | None:
        snapshot = self._by_path.get(rel_path)
        return None if snapshot is None else snapshot.document

    def wait_for_change(self, rel_path: str, version: int, timeout_s: float) -> bool:
        """Wait until `rel_path` is closed or its version is no longer `version`."""
        with self._changed:
            return self._changed.wait_for(
                lambda: getattr(self._by_path.get(rel_path), "version", version + 1) != version,
                timeout=timeout_s,
            )

    def workspace(self, root: Path) -> OverlayWorkspace:
        """The tools' workspace: these buffers laid over the files under `root`."""
        from tools.workspace import OverlayWorkspace

        return OverlayWorkspace(root, self.documents)
