"""Validation of tool inputs other than paths: line ranges, sizes and glob patterns."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from safety.braces import expand_braces
from safety.errors import ErrorType, read_file_call
from safety.errors import validation_error as _fail
from safety.sensitive import DEFAULT_SENSITIVE, SensitiveRules

MAX_GLOB_CHARS = 500
URI_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(//|/)")
PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
DRIVE_LETTER = re.compile(r"^[A-Za-z]:")
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def validate_line_range(
    start: int | None,
    end: int | None = None,
    *,
    total_lines: int | None = None,
    max_range: int = 1000,
    path: str | None = None,
) -> tuple[int, int]:
    """Return a valid ``(start, end)`` (1-based, inclusive) or raise ValidationError.

    ``end`` defaults to ``start + max_range - 1``; with ``total_lines`` it is clamped to
    the file's length, and a start beyond the end is refused with the real length.
    """
    shown = path or "<path>"
    first = 1 if start is None else start
    for name, value in (("start_line", first), ("end_line", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise _fail(
                ErrorType.INVALID_LINE_RANGE,
                f"{name} must be an integer, got {value!r}.",
                f"Use integers: {read_file_call(shown, 1, min(50, max_range))}.",
            )
    if first < 1:
        raise _fail(
            ErrorType.INVALID_LINE_RANGE,
            f"start_line must be 1 or more, got {first}.",
            f"Lines are numbered from 1: {read_file_call(shown, 1, min(50, max_range))}.",
        )
    last = first + max_range - 1 if end is None else end
    if last < first:
        raise _fail(
            ErrorType.INVALID_LINE_RANGE,
            f"end_line ({last}) is before start_line ({first}).",
            f"Use end_line >= start_line: {read_file_call(shown, first, first + 49)}.",
        )
    if total_lines is not None:
        if first > max(total_lines, 1) or total_lines == 0:
            raise _fail(
                ErrorType.INVALID_LINE_RANGE,
                f"start_line {first} is past the end of the file ({total_lines} lines).",
                _length_hint(shown, total_lines, max_range),
                total_lines=total_lines,
            )
        last = min(last, total_lines)
    if last - first + 1 > max_range:
        raise _fail(
            ErrorType.INVALID_LINE_RANGE,
            f"The range {first}-{last} is {last - first + 1} lines; the limit is {max_range}.",
            f"Read it in parts: {read_file_call(shown, first, first + max_range - 1)}.",
        )
    return first, last


def _length_hint(path: str, total_lines: int, max_range: int) -> str:
    if total_lines == 0:
        return f"{path!r} is empty; there is nothing to read."
    return (
        f"{path!r} has {total_lines} lines. "
        f"Try {read_file_call(path, 1, min(total_lines, max_range))}."
    )


def validate_input_size(
    text: str, *, max_chars: int = 5000, max_lines: int = 200, what: str = "input"
) -> str:
    """Return ``text`` if it is within ``max_chars`` and ``max_lines``, else raise."""
    if not isinstance(text, str):
        raise _fail(
            ErrorType.INVALID_ARGUMENT,
            f"The {what} must be a string, not {type(text).__name__}.",
            f"Pass the {what} as a string.",
        )
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if len(text) > max_chars or lines > max_lines:
        raise _fail(
            ErrorType.INPUT_TOO_LARGE,
            f"The {what} is {len(text)} characters / {lines} lines; "
            f"the limit is {max_chars} characters / {max_lines} lines.",
            f"Split the {what} into smaller pieces (for a patch: one hunk or file per call).",
            chars=len(text),
            lines=lines,
        )
    return text


def validate_glob(
    pattern: str, *, sensitive: SensitiveRules = DEFAULT_SENSITIVE, max_chars: int = MAX_GLOB_CHARS
) -> str:
    """Return ``pattern`` if it only matches inside the workspace, else raise."""
    good = 'Use a workspace-relative pattern such as list_files(pattern="**/*.py").'
    if not isinstance(pattern, str) or not pattern.strip():
        raise _fail(ErrorType.INVALID_GLOB, "The glob pattern is empty.", good)
    if len(pattern) > max_chars or CONTROL_CHARS.search(pattern):
        raise _fail(
            ErrorType.INVALID_GLOB,
            "The glob pattern is too long or contains control characters.",
            good,
            pattern=pattern[:100],
        )
    variants = expand_braces(pattern)
    if variants is None:
        raise _fail(ErrorType.INVALID_GLOB, "The glob has too many {…} alternatives.", good)
    for variant in variants:
        reason = _glob_escape_reason(variant)
        if reason:
            raise _fail(
                ErrorType.INVALID_GLOB,
                f"Refused glob {pattern!r}: {reason}.",
                good,
                pattern=pattern,
            )
        hit = sensitive.match(variant.rstrip("/*") or variant)
        if hit:
            raise _fail(
                ErrorType.INVALID_GLOB,
                f"Refused glob {pattern!r}: it targets sensitive files ({hit}).",
                good,
                pattern=pattern,
            )
    return pattern


def _glob_escape_reason(variant: str) -> str | None:
    if variant.startswith(("/", "~")) or DRIVE_LETTER.match(variant):
        return "it is absolute or starts with '~'"
    if "\\" in variant:
        return "it contains backslashes"
    if URI_PREFIX.match(variant) or PERCENT_ESCAPE.search(variant):
        return "it is a URI or URL-encoded"
    for part in variant.split("/"):
        if part == ".." or (part.startswith(".") and _matches_dotdot(part)):
            return "it contains '..'"
    return None


def _matches_dotdot(part: str) -> bool:
    return any(ch in part for ch in "*?[") and fnmatchcase("..", part)
