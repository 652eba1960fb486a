"""What the tools may read of the workspace: its files without sensitive ones, paths made
canonical, a file's text (or a ToolFailure with a concrete recovery hint), its lines and
definitions, and the open documents the editor has not saved.
"""

from __future__ import annotations

from safety.errors import ErrorType, hint_file_not_found
from safety.sensitive import DEFAULT_SENSITIVE
from safety.validation import (
    NotRegularFile,
    ValidationError,
    read_regular,
    validate_path,
)
from tools.base import ToolFailure
from tools.files.output import (
    text_lines,
)
from tools.workspace import NotTextError, Workspace


def is_sensitive(path: str) -> bool:
    return DEFAULT_SENSITIVE.match(path) is not None


def visible_files(workspace: Workspace) -> list[str]:
    """The workspace's files, without sensitive ones (sorted)."""
    return [p for p in workspace.list_files() if not is_sensitive(p)]


def canonical_path(workspace: Workspace, path: str) -> str:
    """``path`` validated (ValidationError if unsafe or sensitive), as a relative POSIX path."""
    resolved = validate_path(workspace.root, path)
    return resolved.relative_to(workspace.root).as_posix()


def file_lines(workspace: Workspace, path: str, limit: int = 300) -> list[str]:
    """The distinct non-blank lines of a file the tools may read (none when it cannot be
    read or has more than `limit` of them): the values `old` may take for a model that
    chooses among them."""
    try:
        _canon, text = read_workspace_text(workspace, path)
    except (ToolFailure, ValidationError, NotTextError, OSError):
        return []
    lines = list(dict.fromkeys(line for line in text_lines(text) if line.strip()))
    return lines if len(lines) <= limit else []


def file_definitions(workspace: Workspace, path: str) -> list[str]:
    """The functions and classes of a Python file the tools may read (none when it cannot be
    read or parsed): the values `propose_function`'s `name` may take."""
    from tools.patches import definitions

    try:
        _canon, text = read_workspace_text(workspace, path)
    except (ToolFailure, ValidationError, NotTextError, OSError):
        return []
    return list(definitions(text))


def read_workspace_text(workspace: Workspace, path: str) -> tuple[str, str]:
    """(canonical path, text) of a file, or a ToolFailure with a concrete recovery hint."""
    canon = canonical_path(workspace, path)
    try:
        return canon, workspace.read_text(canon)
    except FileNotFoundError:
        raise ToolFailure(
            ErrorType.FILE_NOT_FOUND,
            f"File not found: {path}",
            hint_file_not_found(canon, visible_files(workspace)),
            path=path,
        ) from None
    except IsADirectoryError:
        raise ToolFailure(
            ErrorType.INVALID_PATH,
            f"{canon} is a directory, not a file.",
            f'List its files with list_files(pattern="{canon}/**").',
            path=path,
        ) from None
    except NotTextError as exc:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            str(exc),
            "Only UTF-8 text files can be read; pick a source or text file instead.",
            path=path,
        ) from None
    except PermissionError:
        raise ToolFailure(
            ErrorType.INVALID_PATH,
            f"{canon} cannot be read (permission denied).",
            "Work with other files; this one is not readable.",
            path=path,
        ) from None
    except NotRegularFile as exc:
        raise ToolFailure(
            ErrorType.INVALID_PATH,
            f"{canon} cannot be read: {str(exc).rsplit(' is ', 1)[-1]}, not a file.",
            "Work with the repository's regular files instead.",
            path=path,
        ) from None


def unsaved_documents(workspace: Workspace) -> list[str]:
    """Open documents whose editor text differs from the disk (or that are not on disk)."""
    changed = []
    for path, text in sorted(workspace.open_documents().items()):
        if is_sensitive(path):
            continue
        try:
            on_disk = read_regular(validate_path(workspace.root, path))
        except (ValidationError, OSError):
            changed.append(path)
            continue
        if on_disk != text.encode("utf-8", errors="surrogatepass"):
            changed.append(path)
    return changed
