"""The tool error schema and recovery-hint builders.

Every tool error is ``{"error", "message", "tool", "context", "recovery_suggestion"}``.
Hints show exact, neutral call syntax built from real values (small models copy
examples literally, so no invented file names). Hints are text; nothing here runs them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any


class ErrorType(StrEnum):
    """Error types carried in the ``error`` field."""

    INVALID_ARGUMENT = "invalid_argument"
    INVALID_PATH = "invalid_path"
    PATH_OUTSIDE_WORKSPACE = "path_outside_workspace"
    SENSITIVE_PATH = "sensitive_path"
    FILE_NOT_FOUND = "file_not_found"
    INVALID_LINE_RANGE = "invalid_line_range"
    INPUT_TOO_LARGE = "input_too_large"
    INVALID_GLOB = "invalid_glob"
    PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
    PATCH_INVALID = "patch_invalid"
    PATCH_STALE = "patch_stale"
    COMMAND_DENIED = "command_denied"
    APPROVAL_REQUIRED = "approval_required"
    APPROVAL_REJECTED = "approval_rejected"
    TIMEOUT = "timeout"
    LOOP_DETECTED = "loop_detected"
    SANDBOX_ERROR = "sandbox_error"
    EXTERNAL_TOOL_ERROR = "external_tool_error"  # an MCP server failed, hung or refused
    INTERNAL_ERROR = "internal_error"


class ToolError(Exception):
    """A problem the model caused, told back to it as a tool error (never a crash).

    The one error family of the tools: `ValidationError` (bad input), `tools.base.ToolFailure`
    (a tool's own refusal) and `tools.patches.model.PatchError` (a patch that does not parse
    or apply) subclass it, and the tool wrapper turns any of them into
    ``{"error", "message", "tool", "context", "recovery_suggestion"}`` with `to_error`.
    """

    def __init__(
        self,
        error_type: ErrorType,
        message: str,
        recovery_suggestion: str = "",
        context: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.recovery_suggestion = recovery_suggestion
        self._context = dict(context or {})

    @property
    def context(self) -> dict[str, Any]:
        """What the recovery needs to know (the schema's ``context``)."""
        return self._context

    def to_error(self, tool: str) -> dict[str, Any]:
        """The tool error dict for this failure."""
        return tool_error(
            self.error_type,
            self.message,
            tool=tool,
            context=self.context,
            recovery_suggestion=self.recovery_suggestion,
        )


class ValidationError(ToolError):
    """Input that a tool must refuse; carries a recovery suggestion for the model."""


def validation_error(
    kind: ErrorType, message: str, suggestion: str, **context: Any
) -> ValidationError:
    """Build a ValidationError (callers ``raise`` it)."""
    return ValidationError(kind, message, suggestion, context)


ERROR_KEYS: tuple[str, ...] = ("error", "message", "tool", "context", "recovery_suggestion")


def tool_error(
    error: ErrorType | str,
    message: str,
    *,
    tool: str,
    recovery_suggestion: str,
    context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build the tool error dict (exactly the five contract keys)."""
    return {
        "error": str(error),
        "message": message,
        "tool": tool,
        "context": dict(context or {}),
        "recovery_suggestion": recovery_suggestion,
    }


def is_tool_error(value: object) -> bool:
    """True when ``value`` is a dict in the tool error shape."""
    return isinstance(value, dict) and all(k in value for k in ERROR_KEYS)


def read_file_call(path: str, start_line: int, end_line: int) -> str:
    """The exact ``read_file`` call syntax for ``path``."""
    return f'read_file(path="{path}", start_line={start_line}, end_line={end_line})'


def propose_patch_call(path: str) -> str:
    """The ``propose_patch`` call for ``path``, its text to write in place."""
    return (
        f'propose_patch(path="{path}", old="<the exact text to change>", '
        'new="<the text as it should be>")'
    )


def closest_paths(path: str, candidates: Iterable[str], *, n: int = 3) -> list[str]:
    """The existing paths most similar to ``path`` (whole path, then file name; any case)."""
    by_lower: dict[str, list[str]] = {}
    by_name: dict[str, list[str]] = {}
    for cand in dict.fromkeys(candidates):
        by_lower.setdefault(cand.lower(), []).append(cand)
        by_name.setdefault(cand.rsplit("/", 1)[-1].lower(), []).append(cand)
    found: list[str] = []
    for match in difflib.get_close_matches(path.lower(), list(by_lower), n=n, cutoff=0.5):
        found.extend(c for c in by_lower[match] if c not in found)
    if len(found) < n:
        name = path.rstrip("/").rsplit("/", 1)[-1].lower()
        for match in difflib.get_close_matches(name, list(by_name), n=n, cutoff=0.6):
            found.extend(c for c in by_name[match] if c not in found)
    return found[:n]


def hint_file_not_found(path: str, candidates: Iterable[str]) -> str:
    """Suggest the closest existing paths, or how to list files."""
    close = closest_paths(path, candidates)
    if close:
        listed = ", ".join(f'"{c}"' for c in close)
        return (
            f"No file at {path!r}. Closest existing paths: {listed}. "
            f"Try {read_file_call(close[0], 1, 50)}."
        )
    return (
        f'No file at {path!r} and nothing similar. List files with list_files(pattern="**/*") '
        'or search with rg_search(pattern="<text>").'
    )


def hint_line_range(path: str, total_lines: int, *, max_range: int = 1000) -> str:
    """Tell the model the file's real length and a valid call."""
    if total_lines <= 0:
        return f"{path!r} is empty (0 lines); there is nothing to read."
    end = min(total_lines, max_range)
    return (
        f"{path!r} has {total_lines} lines (valid start_line is 1..{total_lines}, "
        f"at most {max_range} lines per call). Try {read_file_call(path, 1, end)}."
    )


def hint_patch_does_not_apply(
    path: str,
    hunk_index: int,
    hunk_header: str,
    current_lines: Sequence[str],
    near_line: int,
    *,
    context_lines: int = 3,
) -> str:
    """Name the failing hunk and show the file's current text around it (1-based lines)."""
    total = len(current_lines)
    line = min(max(near_line, 1), max(total, 1))
    start = max(1, line - context_lines)
    end = min(total, line + context_lines)
    shown = "\n".join(f"{i:>5}| {current_lines[i - 1]}" for i in range(start, end + 1))
    return (
        f"Hunk {hunk_index} ({hunk_header.strip()}) does not match {path!r}. "
        f"Current text at lines {start}-{end}:\n{shown}\n"
        f"Re-read the file with {read_file_call(path, start, end)} and rebuild the hunk "
        "from the exact current lines."
    )


def hint_command_denied(reason: str, alternative: str | None) -> str:
    """Why a command was refused, and a safe alternative when one exists."""
    text = f"The command was refused: {reason}."
    if alternative:
        return f"{text} Safe alternative: {alternative}"
    return f"{text} Do not retry it in another form; continue without it or ask the user."


def file_not_found_error(tool: str, path: str, candidates: Iterable[str]) -> dict[str, Any]:
    """A FILE_NOT_FOUND tool error with closest-path hints."""
    return tool_error(
        ErrorType.FILE_NOT_FOUND,
        f"File not found: {path}",
        tool=tool,
        context={"path": path},
        recovery_suggestion=hint_file_not_found(path, candidates),
    )


def line_range_error(
    tool: str, path: str, start: int, end: int | None, total_lines: int, *, max_range: int = 1000
) -> dict[str, Any]:
    """An INVALID_LINE_RANGE tool error carrying the file's real length."""
    return tool_error(
        ErrorType.INVALID_LINE_RANGE,
        f"Invalid line range {start}-{end if end is not None else ''} for {path}",
        tool=tool,
        context={"path": path, "start_line": start, "end_line": end, "total_lines": total_lines},
        recovery_suggestion=hint_line_range(path, total_lines, max_range=max_range),
    )


def command_denied_error(
    tool: str, command: str, reason: str, rule: str, alternative: str | None
) -> dict[str, Any]:
    """A COMMAND_DENIED tool error naming the rule that fired."""
    return tool_error(
        ErrorType.COMMAND_DENIED,
        f"Command denied: {reason}",
        tool=tool,
        context={"command": command, "rule": rule},
        recovery_suggestion=hint_command_denied(reason, alternative),
    )


def patch_does_not_apply_error(
    tool: str,
    path: str,
    *,
    hunk_index: int,
    hunk_header: str,
    current_lines: Sequence[str],
    near_line: int,
) -> dict[str, Any]:
    """A PATCH_DOES_NOT_APPLY tool error naming the hunk and showing the current text."""
    return tool_error(
        ErrorType.PATCH_DOES_NOT_APPLY,
        f"Hunk {hunk_index} of the patch does not apply to {path}",
        tool=tool,
        context={"path": path, "hunk": hunk_index, "hunk_header": hunk_header.strip()},
        recovery_suggestion=hint_patch_does_not_apply(
            path, hunk_index, hunk_header, current_lines, near_line
        ),
    )
