"""A little context from other files: the open documents edited or opened most recently.

Each gives one chunk of lines around the place it was last edited (its top when it was only
opened), at most `extra_chars` characters, for the model's repo-level format
(`<|file_sep|>path` + text). Files outside the workspace and sensitive files (`.env`, keys,
credentials: `safety.sensitive`) are never sent.

The chunks of a document are chosen once, when completions move to it, and kept while the
user types there: they open the prompt, so changing them would make the model read the whole
prompt again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lsp_agent.completion.config import CompletionConfig
from safety.sensitive import SensitiveRules

_SENSITIVE = SensitiveRules()
MAX_TRACKED = 32


@dataclass(frozen=True)
class ExtraChunk:
    """Some lines of another file, with its workspace-relative path."""

    path: str
    text: str


@dataclass(frozen=True)
class OpenDocument:
    """What completions need of an open document."""

    path: str | None  # workspace-relative; None outside the workspace
    lines: Sequence[str]


def is_sensitive(path: str) -> bool:
    return _SENSITIVE.match(path) is not None


class RecentFiles:
    """Documents by the time they were last edited or opened, and the line last edited."""

    def __init__(self) -> None:
        self._lines: OrderedDict[str, int] = OrderedDict()

    def touch(self, uri: str, line: int) -> None:
        self._lines.pop(uri, None)
        self._lines[uri] = max(0, line)
        while len(self._lines) > MAX_TRACKED:
            self._lines.popitem(last=False)

    def forget(self, uri: str) -> None:
        self._lines.pop(uri, None)

    def chunks(
        self,
        current_uri: str,
        documents: Mapping[str, OpenDocument],
        config: CompletionConfig,
    ) -> tuple[ExtraChunk, ...]:
        """Chunks of the most recent other documents, oldest first (nearest the cursor last)."""
        found: list[ExtraChunk] = []
        for uri in reversed(self._lines):
            if len(found) >= config.extra_files:
                break
            document = documents.get(uri)
            if uri == current_uri or document is None or document.path is None:
                continue
            if is_sensitive(document.path):
                continue
            text = _around(document.lines, self._lines[uri], config.extra_chars)
            if text.strip():
                found.append(ExtraChunk(document.path, text))
        return tuple(reversed(found))


def _around(lines: Sequence[str], line: int, limit: int) -> str:
    """Whole lines around `line`, growing both ways until `limit` characters."""
    if not lines:
        return ""
    centre = min(line, len(lines) - 1)
    first, last = centre, centre + 1
    size = len(lines[centre]) + 1
    while True:
        grown = False
        if last < len(lines) and size + len(lines[last]) + 1 <= limit:
            size += len(lines[last]) + 1
            last += 1
            grown = True
        if first > 0 and size + len(lines[first - 1]) + 1 <= limit:
            first -= 1
            size += len(lines[first]) + 1
            grown = True
        if not grown:
            break
    text = "".join(text + "\n" for text in lines[first:last])
    return text[:limit]
