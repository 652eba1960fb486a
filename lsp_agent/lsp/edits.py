"""Patches as LSP workspace edits: a `PatchResult` (or a unified diff) -> `WorkspaceEdit`.

The patch tools already hold every file's full text before and after the change, so no
diff is re-parsed here: each file's line diff is recomputed with the same matcher and
grouping as the canonical unified diff (`tools.patches.model.unified_hunks`), and every
change block of a hunk becomes the smallest text edit (common prefix and suffix trimmed).

Positions follow LSP: lines end at ``\\r\\n``, ``\\r`` or ``\\n``; characters count in the
negotiated position encoding (UTF-16 code units by default, or UTF-8 bytes / UTF-32 code
points). Versioned ``documentChanges`` name the document version the patch was made
against; files that are created, deleted or renamed become resource operations when the
client supports them. With ``changeAnnotationSupport`` every hunk gets its own
`ChangeAnnotation` (``needsConfirmation``), so the editor can preview it hunk by hunk.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from lsp_agent.lsp.client_setup import EditOptions
from tools.patches import CONTEXT_LINES, FilePatch, PatchResult, lines_with_ends, unified_hunks
from tools.workspace import Workspace

__all__ = [
    "EditError",
    "EditOptions",
    "HunkEdits",
    "LineIndex",
    "diff_to_workspace_edit",
    "edited_uris",
    "hunk_edits",
    "units",
    "workspace_edit",
]

ResourceOperation = types.CreateFile | types.RenameFile | types.DeleteFile
DocumentChange = types.TextDocumentEdit | ResourceOperation
Edit = types.TextEdit | types.AnnotatedTextEdit

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class EditError(ValueError):
    """The patch cannot be expressed as a workspace edit this client accepts."""


def units(text: str, encoding: str) -> int:
    """The length of `text` in the encoding's code units."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class LineIndex:
    """Offsets (code points) <-> LSP positions for one text."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def position(self, offset: int) -> types.Position:
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} outside the text (length {len(self.text)})")
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return types.Position(line, units(self.text[start:offset], self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))


@dataclass(frozen=True)
class HunkEdits:
    """The text edits of one hunk of the canonical diff, with its header."""

    header: str
    edits: tuple[tuple[types.Range, str], ...]


def _trim(old: str, new: str) -> tuple[int, int]:
    """Lengths of the common prefix and suffix, never splitting a ``\\r\\n``."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    if 0 < suffix < len(old) - prefix and old[-suffix] == "\n" and old[-suffix - 1] == "\r":
        suffix -= 1
    return prefix, suffix


def hunk_edits(before: str, after: str, encoding: str = "utf-16") -> list[HunkEdits]:
    """The edits turning `before` into `after`, grouped like the canonical diff's hunks."""
    old_lines, new_lines = lines_with_ends(before), lines_with_ends(after)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    index = LineIndex(before, encoding)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    groups = matcher.get_grouped_opcodes(CONTEXT_LINES)
    result: list[HunkEdits] = []
    for (span, _body), group in zip(unified_hunks(old_lines, new_lines), groups, strict=True):
        edits: list[tuple[types.Range, str]] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                continue
            old = before[offsets[a1] : offsets[a2]]
            new = "".join(new_lines[b1:b2])
            prefix, suffix = _trim(old, new)
            start, end = offsets[a1] + prefix, offsets[a2] - suffix
            edits.append((index.range(start, end), new[prefix : len(new) - suffix]))
        result.append(HunkEdits(span.header, tuple(edits)))
    return result


def path_uri(root: Path, rel_path: str) -> str:
    return (root / rel_path).resolve().as_uri()


class _Builder:
    def __init__(self, root: Path, options: EditOptions) -> None:
        self.root = root
        self.options = options
        self.changes: list[DocumentChange] = []
        self.plain: dict[str, list[types.TextEdit]] = {}
        self.annotations: dict[str, types.ChangeAnnotation] = {}

    def annotate(self, key: str, label: str, description: str) -> str | None:
        if not (self.options.change_annotations and self.options.document_changes):
            return None
        self.annotations[key] = types.ChangeAnnotation(
            label=label, needs_confirmation=True, description=description
        )
        return key

    def text_edits(self, path: str, before: str, after: str, version: int | None) -> None:
        uri = path_uri(self.root, path)
        edits: list[Edit] = []
        for number, hunk in enumerate(hunk_edits(before, after, self.options.encoding), 1):
            key = self.annotate(f"{path}#{number}", f"{path} {hunk.header}", _describe(hunk))
            for rng, text in hunk.edits:
                if key is None:
                    edits.append(types.TextEdit(range=rng, new_text=text))
                else:
                    edits.append(
                        types.AnnotatedTextEdit(annotation_id=key, range=rng, new_text=text)
                    )
        if not edits:
            return
        if not self.options.document_changes:
            self.plain.setdefault(uri, []).extend(e for e in edits if isinstance(e, types.TextEdit))
            return
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        self.changes.append(types.TextDocumentEdit(text_document=identifier, edits=edits))

    def resource(self, operation: str, file: FilePatch) -> None:
        if operation not in self.options.resource_operations or not self.options.document_changes:
            raise EditError(
                f"{file.path}: the editor cannot {operation} files through workspace edits "
                "(its workspace.workspaceEdit.resourceOperations capability lacks "
                f"{operation!r})"
            )
        key = self.annotate(f"{file.path}#{operation}", f"{operation.capitalize()} {file.path}", "")
        uri = path_uri(self.root, file.path)
        if operation == "create":
            options = types.CreateFileOptions(overwrite=False, ignore_if_exists=False)
            self.changes.append(types.CreateFile(uri=uri, options=options, annotation_id=key))
        elif operation == "delete":
            self.changes.append(types.DeleteFile(uri=uri, annotation_id=key))
        else:
            assert file.old_path is not None
            old_uri = path_uri(self.root, file.old_path)
            options_r = types.RenameFileOptions(overwrite=False, ignore_if_exists=False)
            self.changes.append(
                types.RenameFile(old_uri=old_uri, new_uri=uri, options=options_r, annotation_id=key)
            )

    def build(self) -> types.WorkspaceEdit:
        return types.WorkspaceEdit(
            changes=self.plain or None,
            document_changes=self.changes if self.options.document_changes else None,
            change_annotations=self.annotations or None,
        )


def _describe(hunk: HunkEdits) -> str:
    count = len(hunk.edits)
    return f"{count} change{'s' if count != 1 else ''} in this hunk"


def workspace_edit(
    result: PatchResult,
    root: Path,
    options: EditOptions | None = None,
    versions: Mapping[str, int | None] | None = None,
) -> types.WorkspaceEdit:
    """The workspace edit applying `result` under `root`.

    `versions` maps a path to the document version to name (None: not open in the
    editor); without it each file's `base_version` is used. Raises `EditError` when the
    client cannot express a file operation the patch needs.
    """
    builder = _Builder(root, options or EditOptions())
    for file in result.files:
        version = versions.get(file.path) if versions is not None else file.base_version
        change = file.change
        if change == "create":
            builder.resource("create", file)
            builder.text_edits(file.path, "", file.after or "", None)
        elif change == "delete":
            builder.resource("delete", file)
        elif change == "rename":
            builder.resource("rename", file)
            builder.text_edits(file.path, file.before or "", file.after or "", None)
        else:
            builder.text_edits(file.path, file.before or "", file.after or "", version)
    return builder.build()


def diff_to_workspace_edit(
    diff: str, workspace: Workspace, options: EditOptions | None = None
) -> types.WorkspaceEdit:
    """A unified diff (validated and applied in memory by the patch tools) as an edit.

    Raises `tools.patches.model.PatchError` when the diff does not apply to the workspace.
    """
    from tools.patches import apply_diff

    return workspace_edit(apply_diff(diff, workspace), workspace.root, options)


def edited_uris(edit: types.WorkspaceEdit) -> Sequence[str]:
    """Every document URI a workspace edit touches."""
    uris: list[str] = list(edit.changes or {})
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit):
            uris.append(change.text_document.uri)
        elif isinstance(change, types.RenameFile):
            uris += [change.old_uri, change.new_uri]
        else:
            uris.append(change.uri)
    return list(dict.fromkeys(uris))
