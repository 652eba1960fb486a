"""Parse unified diffs (with unidiff) after repairing what small models get wrong.

Before unidiff sees the text, :func:`normalise_diff` strips Markdown code fences and
rewrites every hunk header with counts taken from the hunk body: header counts are kept
when the body agrees with them, otherwise the body is read up to the next header and
recounted (unprefixed lines inside a hunk become context; trailing prose is dropped).
Every repair is reported as a note so the tool result can say what was adjusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

from tools.diff_paths import diff_paths
from tools.patch_model import DiffHunk, DiffLine, FileDiff, LineKind, PatchError, split_lines
from tools.workspace import Workspace

FORMAT_HINT = (
    "Send a unified diff: a '--- a/PATH' line, a '+++ b/PATH' line, then hunks that start "
    "with '@@ -START,COUNT +START,COUNT @@' and whose lines start with ' ' (unchanged), "
    "'-' (removed) or '+' (added). Or use propose_patch(path, old, new) for one exact "
    "replacement."
)

_STRICT_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_LOOSE_OLD = re.compile(r"-(\d+)(?:,(\d+))?")
_LOOSE_NEW = re.compile(r"\+(\d+)(?:,(\d+))?")
_FENCE = re.compile(r"^```[\w+.-]*[ \t]*\r?\n?$")  # column 0 only: " ```" is context
_HEADER_PREFIXES = (
    "diff --git ",
    "--- ",
    "+++ ",
    "@@",
    "index ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "similarity index",
    "dissimilarity index",
)
_BODY_PREFIXES = (" ", "-", "+", "\\")


@dataclass(frozen=True)
class HunkFacts:
    """What the normaliser learnt about one hunk header and body."""

    old_start: int
    new_start: int
    located: bool
    stated: tuple[int, int] | None
    counted: tuple[int, int]
    malformed: str | None
    unprefixed: int
    dropped: int


def parse_diff(diff: str, workspace: Workspace | None = None) -> list[FileDiff]:
    """Parse ``diff`` into file sections, or raise PatchError.

    With a ``workspace``, paths are validated with ``validate_path`` (outside the root
    or sensitive: refused) and made workspace-relative; git ``a/``/``b/`` prefixes are
    handled as :func:`tools.diff_paths.diff_paths` describes. Without one, paths are
    checked lexically (absolute, ``..``, sensitive names).
    """
    if not isinstance(diff, str) or not diff.strip():
        raise PatchError("The diff is empty.", recovery_suggestion=FORMAT_HINT)
    text, facts = normalise_diff(diff)
    try:
        patch_set = PatchSet(text)
    except (UnidiffParseError, ValueError) as exc:
        raise PatchError(
            f"The diff could not be parsed: {exc}", recovery_suggestion=FORMAT_HINT
        ) from exc
    if not patch_set:
        raise PatchError(
            "The text is not a unified diff: it has no '--- a/PATH' / '+++ b/PATH' file "
            "headers followed by '@@' hunks.",
            recovery_suggestion=FORMAT_HINT,
        )
    remaining = list(facts)
    files = [_file_diff(patched, remaining, workspace) for patched in patch_set]
    if remaining:
        raise PatchError(
            "The diff has hunks ('@@' lines) outside any file section.",
            recovery_suggestion=FORMAT_HINT,
        )
    return files


def _file_diff(
    patched: PatchedFile, facts: list[HunkFacts], workspace: Workspace | None
) -> FileDiff:
    if patched.is_binary_file:
        raise PatchError(
            f"Binary patches are not supported ({patched.path}).",
            recovery_suggestion="Only text files can be patched; leave binary files alone.",
            file=patched.path,
        )
    if patched.is_symlink or patched.is_submodule:
        raise PatchError(
            f"Changing symlinks or submodules is not supported ({patched.path}).",
            recovery_suggestion="Patch regular text files only.",
            file=patched.path,
        )
    if _is_copy(patched):
        raise PatchError(
            f"Copy patches ('copy from'/'copy to') are not supported ({patched.path}).",
            recovery_suggestion="To add a copy of a file, send a diff that creates the new "
            "file ('--- /dev/null', '+++ b/NEW_PATH') with its whole text as '+' lines; the "
            "source file stays as it is.",
            file=patched.path,
        )
    old_path, new_path = diff_paths(patched.source_file, patched.target_file, workspace)
    if old_path is None and new_path is None:
        raise PatchError(
            "A file section has /dev/null on both sides.", recovery_suggestion=FORMAT_HINT
        )
    shown = new_path or old_path or ""
    hunks: list[DiffHunk] = []
    notes: list[str] = []
    for number, raw in enumerate(patched, 1):
        if not facts:
            raise PatchError(
                "The diff's hunks could not be matched up.", recovery_suggestion=FORMAT_HINT
            )
        fact = facts.pop(0)
        hunks.append(_hunk(raw, fact))
        notes.extend(_notes(fact, number, shown))
    if not hunks and old_path == new_path:
        raise PatchError(
            f"The diff for {shown} has no hunks, so it changes nothing.",
            recovery_suggestion=FORMAT_HINT,
            file=shown,
        )
    return FileDiff(old_path, new_path, tuple(hunks), tuple(notes))


def _is_copy(patched: PatchedFile) -> bool:
    """A git copy section: read as a rename it would delete its source file."""
    info = patched.patch_info or ()
    return any(str(line).startswith(("copy from ", "copy to ")) for line in info)


def _hunk(raw: Hunk, fact: HunkFacts) -> DiffHunk:
    lines: list[DiffLine] = []
    for item in raw:
        kind, value = item.line_type, item.value
        if kind == "\\":
            if lines and lines[-1].text.endswith("\n"):
                last = lines[-1]
                lines[-1] = DiffLine(last.kind, last.text[:-1])
            continue
        if kind in (" ", "-", "+"):
            line_kind: LineKind = " " if kind == " " else ("-" if kind == "-" else "+")
            lines.append(DiffLine(line_kind, value))
    old_len, new_len = fact.counted
    header = f"@@ -{fact.old_start},{old_len} +{fact.new_start},{new_len} @@"
    return DiffHunk(header, fact.old_start, fact.new_start, tuple(lines), fact.located)


def _notes(fact: HunkFacts, number: int, path: str) -> list[str]:
    where = f"hunk {number} of {path}"
    notes: list[str] = []
    if fact.malformed is not None:
        notes.append(f"{where}: rewrote the malformed header {fact.malformed!r}")
    if not fact.located:
        notes.append(f"{where} had no line numbers in its header; it was placed by its content")
    elif fact.stated is not None and fact.stated != fact.counted:
        notes.append(
            f"{where}: the header said {fact.stated[0]} old / {fact.stated[1]} new lines but "
            f"the body has {fact.counted[0]} / {fact.counted[1]}; counts recomputed"
        )
    if fact.unprefixed:
        notes.append(
            f"{where}: {fact.unprefixed} line(s) without a ' ', '-' or '+' prefix were read "
            "as unchanged context"
        )
    if fact.dropped:
        notes.append(f"{where}: ignored {fact.dropped} trailing line(s) that are not diff lines")
    return notes


# --- normalisation -------------------------------------------------------------------


def normalise_diff(diff: str) -> tuple[str, list[HunkFacts]]:
    """The diff with fences removed and hunk headers rewritten; facts per hunk in order."""
    if not diff.endswith("\n"):
        diff += "\n"
    lines = [line for line in split_lines(diff) if not _FENCE.match(line)]
    out: list[str] = []
    facts: list[HunkFacts] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("@@"):
            out.append(_strip_header_cr(line))
            i += 1
            continue
        header, body, fact, i = _read_hunk(lines, i)
        out.append(header)
        out.extend(body)
        facts.append(fact)
    return "".join(out), facts


def _strip_header_cr(line: str) -> str:
    if line.startswith(_HEADER_PREFIXES) and line.endswith("\r\n"):
        return line[:-2] + "\n"
    return line


def _is_blank(line: str) -> bool:
    return line in ("\n", "\r\n")


def _is_boundary(lines: list[str], k: int) -> bool:
    """A hunk header, a git file header, or a '---'/'+++'/'@@' file header triple."""
    line = lines[k]
    if line.startswith(("@@", "diff --git ")):
        return True
    return _is_file_header(lines, k)


def _is_file_header(lines: list[str], k: int) -> bool:
    return (
        lines[k].startswith("--- ")
        and k + 2 < len(lines)
        and lines[k + 1].startswith("+++ ")
        and lines[k + 2].startswith("@@")
    )


def _rest_is_separator(lines: list[str], k: int) -> bool:
    """True when nothing that looks like a hunk line comes before the next boundary."""
    while k < len(lines) and not _is_boundary(lines, k):
        line = lines[k]
        if not _is_blank(line) and line.startswith(_BODY_PREFIXES):
            return False
        k += 1
    return True


def _parse_header(
    line: str,
) -> tuple[int | None, int | None, int | None, int | None, str, bool]:
    """Start and count of each side (None when absent), section text, well-formed?"""
    stripped = line.rstrip("\r\n")
    strict = _STRICT_HEADER.match(stripped)
    if strict:
        a, b, c, d, section = strict.groups()
        return int(a), int(b or 1), int(c), int(d or 1), section, True
    inner = stripped[2:].split("@@", 1)
    section = inner[1].strip() if len(inner) > 1 else ""
    old = _LOOSE_OLD.search(inner[0])
    new = _LOOSE_NEW.search(inner[0])
    if old is None or new is None:
        return None, None, None, None, section, False
    return (
        int(old.group(1)),
        int(old.group(2) or 1),
        int(new.group(1)),
        int(new.group(2) or 1),
        section,
        False,
    )


def _read_hunk(lines: list[str], at: int) -> tuple[str, list[str], HunkFacts, int]:
    old_start, old_len, new_start, new_len, section, well_formed = _parse_header(lines[at])
    start = at + 1
    stated = None if old_len is None or new_len is None else (old_len, new_len)
    body: list[str] | None = None
    unprefixed = dropped = 0
    end = start
    if stated is not None:
        body, end = _read_by_counts(lines, start, stated)
    if body is None:
        body, end, unprefixed, dropped = _read_to_boundary(lines, start)
    counted = (
        sum(1 for line in body if line[0] in " -"),
        sum(1 for line in body if line[0] in " +"),
    )
    if counted == (0, 0):
        raise PatchError(
            f"The hunk header {lines[at].strip()!r} is not followed by any diff lines.",
            recovery_suggestion=FORMAT_HINT,
        )
    located = old_start is not None
    first_old = old_start if old_start is not None else 1
    first_new = new_start if new_start is not None else first_old
    malformed = None if well_formed or not located else lines[at].strip()
    fact = HunkFacts(
        old_start=first_old,
        new_start=first_new,
        located=located,
        stated=stated,
        counted=counted,
        malformed=malformed,
        unprefixed=unprefixed,
        dropped=dropped,
    )
    tail = f" {section}" if section else ""
    header = f"@@ -{first_old},{counted[0]} +{first_new},{counted[1]} @@{tail}\n"
    return header, body, fact, end


def _as_body(line: str) -> str:
    return " " + line if _is_blank(line) else line


def _read_by_counts(
    lines: list[str], start: int, stated: tuple[int, int]
) -> tuple[list[str] | None, int]:
    want_old, want_new = stated
    old = new = 0
    k = start
    body: list[str] = []
    while (old < want_old or new < want_new) and k < len(lines):
        line = lines[k]
        if _is_file_header(lines, k):
            break
        kind = " " if _is_blank(line) else line[0]
        if kind == " ":
            old, new = old + 1, new + 1
        elif kind == "-":
            old += 1
        elif kind == "+":
            new += 1
        elif kind != "\\":
            break
        body.append(_as_body(line))
        k += 1
    while k < len(lines) and lines[k].startswith("\\"):
        body.append(lines[k])
        k += 1
    if (old, new) != stated or not _rest_is_separator(lines, k):
        return None, start
    return body, k


def _read_to_boundary(lines: list[str], start: int) -> tuple[list[str], int, int, int]:
    k = start
    while k < len(lines) and not _is_boundary(lines, k):
        k += 1
    raw = lines[start:k]
    keep = len(raw)
    while keep and (_is_blank(raw[keep - 1]) or not raw[keep - 1].startswith(_BODY_PREFIXES)):
        keep -= 1
    dropped = sum(1 for line in raw[keep:] if not _is_blank(line))
    body: list[str] = []
    unprefixed = 0
    for line in raw[:keep]:
        if _is_blank(line) or line.startswith(_BODY_PREFIXES):
            body.append(_as_body(line))
        else:
            body.append(" " + line)
            unprefixed += 1
    return body, k, unprefixed, dropped
