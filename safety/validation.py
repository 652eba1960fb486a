"""Input validation: workspace paths (line ranges, sizes and globs are re-exported).

Bad input raises :class:`ValidationError`, which carries an error type, a message and a
recovery suggestion (see :mod:`safety.errors`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from safety.errors import ErrorType, ValidationError
from safety.errors import validation_error as _fail
from safety.input_validation import (
    CONTROL_CHARS,
    DRIVE_LETTER,
    PERCENT_ESCAPE,
    URI_PREFIX,
    validate_glob,
    validate_input_size,
    validate_line_range,
)
from safety.secret_redaction import contains_private_key
from safety.sensitive import DEFAULT_SENSITIVE, SensitiveRules

MAX_PATH_CHARS = 4096
MAX_SYMLINK_HOPS = 40
CONTENT_SNIFF_BYTES = 65536
_SENSITIVE_HINT = (
    "Secrets, keys and .git internals are not readable by tools; "
    "use git_status/git_diff/git_log for repository state and work with source files."
)
_LIST_HINT = 'list_files(pattern="**/*")'


def validate_path(
    root: str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    sensitive: SensitiveRules = DEFAULT_SENSITIVE,
) -> Path:
    """Return ``path`` resolved inside ``root``, or raise ValidationError.

    Refuses traversal that leaves the root at any point, ``~``, URL encoding,
    backslashes, control characters, URIs, symlink chains that leave the root,
    sensitive files (``sensitive``), regular files with several hard links (one could
    be a key elsewhere on the machine) and files holding a private key, whatever their
    name. ``root`` must be an existing directory.
    """
    root_given = Path(root)
    real_root = root_given.resolve()
    if not real_root.is_dir():
        raise ValueError(f"workspace root is not a directory: {root_given}")
    text = _check_text(path)
    rel_parts = _relative_parts(text, root_given, real_root)
    resolved = _walk(real_root, rel_parts, root_given, text)
    relative = resolved.relative_to(real_root).as_posix()
    lexical = os.path.normpath("/".join(rel_parts) or ".")
    problem = file_problem(resolved)
    for candidate in (lexical, relative):
        hit = sensitive.match(candidate)
        if hit and problem is None and _cleared_by_content(sensitive, candidate, resolved):
            continue  # a certificate or a Keynote document, not a key
        if hit:
            raise _fail(
                ErrorType.SENSITIVE_PATH,
                f"Refused: {text!r} is a sensitive file ({hit}).",
                _SENSITIVE_HINT,
                path=text,
            )
    if problem:
        raise _fail(
            ErrorType.SENSITIVE_PATH,
            f"Refused: {text!r} is a sensitive file ({problem}).",
            _SENSITIVE_HINT,
            path=text,
        )
    return resolved


def _cleared_by_content(sensitive: SensitiveRules, candidate: str, resolved: Path) -> bool:
    """True when ``candidate`` is sensitive only by a name its content can clear, and the
    existing regular file ``resolved`` clears it."""
    if not sensitive.content_decides(candidate) or not resolved.is_file():
        return False
    try:
        with open(resolved, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return False
    return sensitive.content_clears(candidate, head)


class NotRegularFile(OSError):
    """A named pipe, socket or device where a file was expected: never read (a pipe with no
    writer would block the reader for ever, beyond any cancel)."""


def read_regular(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """The bytes of the regular file at `path` (at most `limit`), or `NotRegularFile`.

    Opened without blocking and checked on the open descriptor, so a file swapped for a
    named pipe after a check cannot block the read either."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a named pipe" if stat.S_ISFIFO(mode) else "not a regular file"
            raise NotRegularFile(f"{os.fspath(path)} is {kind}")
        return handle.read(limit)


def file_problem(resolved: Path) -> str | None:
    """Why an existing regular file must not be touched, judged by the file itself."""
    try:
        info = resolved.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_nlink > 1:
        return f"it has {info.st_nlink} hard links, so it may be a file outside the workspace"
    try:
        head = read_regular(resolved, CONTENT_SNIFF_BYTES)
    except OSError:
        return None
    if contains_private_key(head.decode("latin-1")):
        return "it holds a private key"
    return None


def _check_text(path: str | os.PathLike[str]) -> str:
    if not isinstance(path, str | os.PathLike):
        raise _fail(
            ErrorType.INVALID_PATH,
            f"A path must be a string, not {type(path).__name__}.",
            f"Pass a workspace-relative path string, e.g. {_LIST_HINT} to see them.",
        )
    text = os.fspath(path)
    if not text.strip():
        raise _fail(
            ErrorType.INVALID_PATH,
            "The path is empty.",
            f"Pass a workspace-relative path; {_LIST_HINT} lists them.",
        )
    if "\x00" in text or CONTROL_CHARS.search(text):
        raise _fail(
            ErrorType.INVALID_PATH,
            "The path contains a NUL byte or control character.",
            "Pass a plain workspace-relative path without control characters.",
            path=repr(text),
        )
    if len(text) > MAX_PATH_CHARS:
        raise _fail(
            ErrorType.INVALID_PATH,
            f"The path is longer than {MAX_PATH_CHARS} characters.",
            "Pass a shorter workspace-relative path.",
        )
    checks = (
        (URI_PREFIX.match(text), "a URI", "Pass a workspace-relative path, not a file:// URI."),
        (PERCENT_ESCAPE.search(text), "URL-encoded", "Pass the plain path; do not URL-encode it."),
        ("\\" in text, "backslashes", "Use forward slashes: dir/file, relative to the root."),
        (text.startswith("~"), "'~'", "Paths are relative to the workspace root; '~' is refused."),
        (DRIVE_LETTER.match(text), "a drive letter", "Pass a workspace-relative path."),
    )
    for bad, what, suggestion in checks:
        if bad:
            raise _fail(
                ErrorType.INVALID_PATH,
                f"Refused path {text!r}: it contains {what}.",
                suggestion,
                path=text,
            )
    return text


def _relative_parts(text: str, root_given: Path, real_root: Path) -> list[str]:
    pure = PurePosixPath(text)
    if pure.is_absolute():
        for base in (real_root, root_given.absolute()):
            try:
                return list(pure.relative_to(base.as_posix()).parts)
            except ValueError:
                continue
        raise _fail(
            ErrorType.PATH_OUTSIDE_WORKSPACE,
            f"Refused: {text!r} is outside the workspace.",
            f"Use a path relative to the workspace root; {_LIST_HINT} lists them.",
            path=text,
        )
    parts = [p for p in text.split("/") if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 1
        if depth < 0:
            raise _fail(
                ErrorType.PATH_OUTSIDE_WORKSPACE,
                f"Refused: {text!r} uses '..' to leave the workspace.",
                f"Use a path inside the workspace; {_LIST_HINT} lists them.",
                path=text,
            )
    return parts


def _walk(real_root: Path, parts: list[str], root_given: Path, text: str) -> Path:
    """Resolve ``parts`` under ``real_root`` following symlinks; every hop must stay inside."""
    current = real_root
    pending = list(parts)
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if current == real_root:
                raise _escape(text, "'..' leaves the workspace after resolving symlinks")
            current = current.parent
            continue
        candidate = current / part
        if not candidate.is_symlink():
            current = candidate
            continue
        hops += 1
        if hops > MAX_SYMLINK_HOPS:
            raise _fail(
                ErrorType.INVALID_PATH,
                f"Refused: {text!r} has too many levels of symbolic links.",
                "The path is a symlink loop; pick another file.",
                path=text,
            )
        target = os.readlink(candidate)
        target_path = PurePosixPath(target)
        if target_path.is_absolute():
            inner = _under_root(target_path, real_root, root_given)
            if inner is None:
                raise _escape(text, f"symlink {candidate.name!r} points outside to {target!r}")
            current = real_root
            pending = inner + pending
        else:
            pending = [p for p in target.split("/") if p not in ("", ".")] + pending
    if not current.is_relative_to(real_root):
        raise _escape(text, "it resolves outside the workspace")
    return current


def _under_root(target: PurePosixPath, real_root: Path, root_given: Path) -> list[str] | None:
    for base in (real_root, root_given.absolute()):
        try:
            rest = target.relative_to(base.as_posix())
        except ValueError:
            continue
        return [p for p in rest.parts if p not in ("", ".")]
    return None


def _escape(text: str, why: str) -> ValidationError:
    return _fail(
        ErrorType.PATH_OUTSIDE_WORKSPACE,
        f"Refused: {text!r} escapes the workspace ({why}).",
        f"Use a regular file inside the workspace; {_LIST_HINT} lists them.",
        path=text,
    )


__all__ = [
    "ValidationError",
    "validate_glob",
    "validate_input_size",
    "validate_line_range",
    "validate_path",
]
