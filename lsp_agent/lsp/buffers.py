"""The editor's open documents, as the agent's tools see them.

pygls keeps the open documents (with `didChange` incremental sync) on the event loop.
The agent runs in a worker thread, so the server copies each document's text and version
into `OpenBuffers` after pygls has applied a change (on the loop thread). Readers get an
immutable snapshot (copy-on-write: a new mapping replaces the old one), so a tool never
sees a half-applied change or a text paired with the wrong version.

`OpenBuffers.workspace(root)` is the `OverlayWorkspace` the tools read through: open
documents (unsaved text) first, the disk otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from tools.workspace import OverlayWorkspace

Document = tuple[str, int]


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
        self._by_uri: dict[str, Document] = {}
        self._by_path: Mapping[str, Document] = MappingProxyType({})
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

    def update(self, uri: str, text: str, version: int | None) -> None:
        """Record the document's current text (call after pygls applied the change)."""
        with self._changed:
            self._by_uri[uri] = (text, version if version is not None else 0)
            self._publish()

    def remove(self, uri: str) -> None:
        with self._changed:
            if self._by_uri.pop(uri, None) is not None:
                self._relative.pop(uri, None)
                self._publish()

    def _publish(self) -> None:
        paths: dict[str, Document] = {}
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
        return self._by_path

    def get(self, rel_path: str) -> Document | None:
        return self._by_path.get(rel_path)

    def wait_for_change(self, rel_path: str, version: int, timeout_s: float) -> bool:
        """Wait until `rel_path` is closed or its version is no longer `version`."""
        with self._changed:
            return self._changed.wait_for(
                lambda: (self._by_path.get(rel_path) or ("", version + 1))[1] != version,
                timeout=timeout_s,
            )

    def workspace(self, root: Path) -> OverlayWorkspace:
        """The tools' workspace: these buffers laid over the files under `root`."""
        from tools.workspace import OverlayWorkspace

        return OverlayWorkspace(root, self.documents)
