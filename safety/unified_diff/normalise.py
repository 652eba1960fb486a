"""Repair what small models get wrong in a unified diff, before it is parsed.

:func:`normalise_diff` strips Markdown code fences and rewrites every hunk header with
counts taken from the hunk body: header counts are kept when the body agrees with them,
otherwise the body is read up to the next header and recounted (unprefixed lines inside a
hunk become context; trailing prose is dropped). What it learnt about each hunk comes
back as `HunkFacts`, so the parser can say what was adjusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from safety.unified_diff.model import PatchError, lines_with_ends

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


def normalise_diff(diff: str) -> tuple[str, list[HunkFacts]]:
    """The diff with fences removed and hunk headers rewritten; facts per hunk in order."""
    if not diff.endswith("\n"):
        diff += "\n"
    lines = [line for line in lines_with_ends(diff) if not _FENCE.match(line)]
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
