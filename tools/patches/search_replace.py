"""``propose_patch(path, old, new)``: one exact search/replace, as a unified diff.

``old`` must occur exactly once. When it does not occur at all, the file's CRLF line
endings and then a whole-line match ignoring whitespace are tried (and reported). The
diff is canonical, so ``apply_diff`` applies it exactly.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace

from safety.errors import ErrorType, read_file_call
from safety.unified_diff import (
    dominant_eol,
    exists_quietly,
    find_block,
    line_ending,
    numbered,
    reindent,
    reindent_rule,
    squash_ws,
    strip_eol,
    workspace_path,
)
from tools.patches.diff_apply import apply_diff, missing_file_error, read_or_raise
from tools.patches.model import PatchError, PatchResult, lines_with_ends, render_unified_diff
from tools.workspace import Workspace

MAX_LISTED_LINES = 10


@dataclass(frozen=True)
class SearchReplace:
    """``propose_patch``'s edit as a unified diff, with notes on any inexact match."""

    path: str
    before: str | None
    after: str
    diff: str
    adjustments: tuple[str, ...] = ()


def search_replace_diff(path: str, old: str, new: str, workspace: Workspace) -> str:
    """The unified diff replacing the single occurrence of ``old`` with ``new``."""
    return search_replace(path, old, new, workspace).diff


def apply_search_replace(path: str, old: str, new: str, workspace: Workspace) -> PatchResult:
    """``search_replace`` applied through ``apply_diff``, notes included."""
    edit = search_replace(path, old, new, workspace)
    result = apply_diff(edit.diff, workspace)
    patched = result.files[0]
    if len(result.files) != 1 or patched.after != edit.after:
        raise RuntimeError(f"search/replace diff for {path} did not round-trip")
    notes = edit.adjustments + patched.adjustments
    return PatchResult((replace(patched, adjustments=notes),))


def apply_whole_file(path: str, content: str, workspace: Workspace, max_lines: int) -> PatchResult:
    """The whole new `content` of an existing file of at most `max_lines` lines (or a new
    file), as a patch through ``apply_diff``."""
    rel = workspace_path(path, workspace)
    assert rel is not None  # a path in, a path out
    before = read_or_raise(workspace, rel) if exists_quietly(workspace, rel) else None
    lines = len(lines_with_ends(before or ""))
    if lines > max_lines:
        raise PatchError(
            f"{rel} has {lines} lines; propose_file rewrites files of at most {max_lines}.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion=(
                "Change the lines you mean with propose_patch(path, old, new), copying 'old' "
                f"from {read_file_call(rel, 1, 50)}."
            ),
            file=rel,
        )
    edit = _edit(rel, before, whole_file_text(before, content), ())
    return apply_diff(edit.diff, workspace)


def whole_file_text(before: str | None, content: str) -> str:
    """The text a whole file written as `content` gets, the file reading `before` (None: a
    new file): the model's text ends where the file's last line does."""
    if before is not None and before.endswith("\n") and not content.endswith("\n"):
        return content + "\n"
    return content


def search_replace(path: str, old: str, new: str, workspace: Workspace) -> SearchReplace:
    """Replace the one occurrence of ``old`` in ``path`` with ``new``, or raise PatchError.

    ``old`` must occur exactly once. If it does not occur, a whole-line match ignoring
    whitespace (and CRLF line endings) is tried. Empty ``old`` on a missing (or empty)
    file creates it with ``new``.
    """
    for name, value in (("old", old), ("new", new)):
        if not isinstance(value, str):
            raise PatchError(
                f"'{name}' must be a string.",
                kind=ErrorType.INVALID_ARGUMENT,
                recovery_suggestion="Pass old and new as strings.",
            )
    rel = workspace_path(path, workspace)
    assert rel is not None  # a path in, a path out
    if not exists_quietly(workspace, rel):
        if old:
            raise missing_file_error(workspace, rel)
        return _edit(rel, None, new, ())
    text = read_or_raise(workspace, rel)
    if not old:
        if text:
            raise PatchError(
                f"'old' is empty but {rel} is not; an empty 'old' only creates a new file.",
                kind=ErrorType.INVALID_ARGUMENT,
                recovery_suggestion=(
                    "Copy the lines to change (and a few around them) from the file into 'old'."
                ),
                file=rel,
            )
        return _edit(rel, text, new, ())
    if old == new:
        # Qwen2.5-Coder-1.5B, having said that total_stock() skips the first item, sent
        # `total += item.count` as both; told only "Put the changed text in 'new'", it gave up.
        raise PatchError(
            "'old' and 'new' are identical, so nothing would change.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion=(
                "Copy the text that must change into old exactly as it is, and write it as it "
                f'must be in new: propose_patch(path="{rel}", old="<the text as it is>", '
                'new="<the text as it must be>"). If the line you copied is right as it is, '
                "the change belongs in another line."
            ),
            file=rel,
        )
    after, notes = _replace_once(rel, text, old, new)
    return _edit(rel, text, after, notes)


def _edit(path: str, before: str | None, after: str, notes: tuple[str, ...]) -> SearchReplace:
    if before == after:
        raise PatchError(
            f"The replacement leaves {path} unchanged.",
            kind=ErrorType.INVALID_ARGUMENT,
            recovery_suggestion="Put the changed text in 'new'.",
            file=path,
        )
    return SearchReplace(path, before, after, render_unified_diff(path, before, after), notes)


def _occurrences(text: str, old: str) -> list[int]:
    found: list[int] = []
    at = text.find(old)
    while at >= 0:
        found.append(at)
        at = text.find(old, at + 1)
    return found


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _replace_once(path: str, text: str, old: str, new: str) -> tuple[str, tuple[str, ...]]:
    crlf = dominant_eol(lines_with_ends(text)) == "\r\n"
    found = _occurrences(text, old)
    converted = False
    if not found and crlf and "\n" in old and "\r" not in old:
        found = _occurrences(text, old.replace("\n", "\r\n"))
        old, converted = old.replace("\n", "\r\n"), bool(found)
    if len(found) > 1:
        raise _ambiguous(path, [_line_of(text, i) for i in found], "")
    if not found:
        return _replace_lines_ignoring_ws(path, text, old, new)
    if crlf and "\n" in new and "\r" not in new:
        new, converted = new.replace("\n", "\r\n"), True
    notes = (f"{path}: used the file's CRLF line endings for 'old' and 'new'",) if converted else ()
    at = found[0]
    return text[:at] + new + text[at + len(old) :], notes


def _ambiguous(path: str, lines: list[int], how: str) -> PatchError:
    shown = ", ".join(str(n) for n in lines[:MAX_LISTED_LINES])
    more = ", …" if len(lines) > MAX_LISTED_LINES else ""
    return PatchError(
        f"'old' occurs {len(lines)} times in {path}{how} (at lines {shown}{more}); "
        "it must occur exactly once.",
        kind=ErrorType.PATCH_DOES_NOT_APPLY,
        recovery_suggestion=(
            "Add more surrounding lines to 'old' (and the same lines to 'new') so that it "
            "matches only the place you mean."
        ),
        file=path,
    )


def _old_lines(old: str) -> list[str]:
    parts = old.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [part.rstrip("\r") for part in parts]


def _replace_lines_ignoring_ws(
    path: str, text: str, old: str, new: str
) -> tuple[str, tuple[str, ...]]:
    lines = lines_with_ends(text)
    wanted = _old_lines(old)
    if not any(line.strip() for line in wanted):
        raise _not_found(path, lines, wanted)
    found = find_block(lines, wanted, "ws")
    if len(found) > 1:
        raise _ambiguous(path, [p + 1 for p in found], " (ignoring whitespace)")
    if not found:
        raise _not_found(path, lines, wanted)
    pos = found[0]
    matched = lines[pos : pos + len(wanted)]
    rule = reindent_rule(list(zip(matched, wanted, strict=True)))
    eol = dominant_eol(lines)
    replacement = [reindent(line, rule) + eol for line in _old_lines(new)] if new else []
    if replacement:
        replacement[-1] = strip_eol(replacement[-1]) + line_ending(matched[-1])
    after = "".join(lines[:pos] + replacement + lines[pos + len(wanted) :])
    note = f"{path}: 'old' matched lines {pos + 1}-{pos + len(wanted)} ignoring whitespace"
    if rule is not None:
        note += "; re-indented 'new' to the file's indentation"
    return after, (note,)


def _not_found(path: str, lines: list[str], wanted: list[str]) -> PatchError:
    anchor = next((w for w in wanted if w.strip()), "")
    keys = [squash_ws(line) for line in lines]
    ranked = difflib.get_close_matches(squash_ws(anchor), keys, n=3, cutoff=0.4)
    starts = list(dict.fromkeys(keys.index(match) for match in ranked))
    excerpts = [numbered(lines, max(p - 1, 0), p + max(len(wanted), 1) + 1) for p in starts]
    current = "...\n".join(excerpts)
    listed = ", ".join(str(p + 1) for p in starts)
    where = f" The closest lines start at line(s) {listed}." if starts else ""
    first = starts[0] + 1 if starts else 1
    return PatchError(
        f"'old' was not found in {path}, not even ignoring whitespace.{where}",
        kind=ErrorType.PATCH_DOES_NOT_APPLY,
        recovery_suggestion=(
            f"Read the current text, e.g. {read_file_call(path, max(first - 5, 1), first + 20)}, "
            "and copy 'old' from it exactly (including indentation)."
        ),
        file=path,
        expected=[w + "\n" for w in wanted],
        current=current,
        current_start=max(first - 1, 1) if starts else None,
    )
