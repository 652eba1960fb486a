"""Read-only file tools: repo_info, list_files, read_file, read_file_snippet.

Everything is read through ``context.workspace`` (the editor's unsaved buffers for open
documents, the disk otherwise). Sensitive files are never listed or shown. Outputs are
plain text kept within ``context.limits`` *including* their header and truncation note,
so the wrapper's own truncation never has to cut them again. The helpers at the top
(visible files, glob matching, fitting lines into the output budget) are shared with
``tools.search_tool`` and ``tools.git_tools``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath

from safety.braces import expand_braces
from safety.errors import ErrorType, hint_file_not_found, read_file_call
from safety.input_validation import validate_input_size
from safety.secret_redaction import redact_secrets
from safety.sensitive import DEFAULT_SENSITIVE
from safety.truncation import list_truncation_note, truncate_list
from safety.validation import (
    NotRegularFile,
    ValidationError,
    read_regular,
    validate_glob,
    validate_line_range,
    validate_path,
)
from tools.base import AgentTool, ToolFailure, ToolLimits
from tools.git_repo import repo_head_summary
from tools.workspace import NotTextError, Workspace

NOTE_RESERVE_CHARS = 300
"""Characters kept free in every output for the truncation note."""
NOTE_RESERVE_LINES = 1
MIN_BODY_CHARS = 200
MAX_SHOWN_LINE_CHARS = 300
"""Snippet and search lines longer than this are cut (like ripgrep's --max-columns)."""
DEFAULT_CONTEXT_LINES = 3
MIN_READ_LINES = 20
"""read_file shows at least this many lines (fewer only at the end of the file)."""
MAX_CONTEXT_LINES = 20
WHOLE_FILE_ON_MISS = 40
"""read_file_snippet shows a file this short whole when its pattern matches nothing."""
TOP_LEVEL_SHOWN = 30
EXTENSIONS_SHOWN = 8
_GLOB_CHARS = frozenset("*?[{")

PATH_INPUT = {"type": "string", "description": "Path in the repository."}


# ---- shared helpers --------------------------------------------------------------------
def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file`` / ``2 files`` (``many`` for irregular plurals)."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"


def is_sensitive(path: str) -> bool:
    return DEFAULT_SENSITIVE.match(path) is not None


def visible_files(workspace: Workspace) -> list[str]:
    """The workspace's files, without sensitive ones (sorted)."""
    return [p for p in workspace.list_files() if not is_sensitive(p)]


def canonical_path(workspace: Workspace, path: str) -> str:
    """``path`` validated (ValidationError if unsafe or sensitive), as a relative POSIX path."""
    resolved = validate_path(workspace.root, path)
    return resolved.relative_to(workspace.root).as_posix()


def text_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only (as editors, git and ripgrep count), without ``\\r``."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def clip_line(line: str, max_chars: int = MAX_SHOWN_LINE_CHARS) -> str:
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]} [... {len(line) - max_chars} more characters]"


def body_budget(limits: ToolLimits, header: str = "") -> tuple[int, int]:
    """(chars, lines) left for the body once ``header`` and a note are accounted for."""
    header_lines = header.count("\n") + 1 if header else 0
    chars = max(MIN_BODY_CHARS, limits.max_output_chars - len(header) - NOTE_RESERVE_CHARS)
    lines = max(1, limits.max_output_lines - header_lines - NOTE_RESERVE_LINES)
    return chars, lines


def fit_lines(lines: Sequence[str], max_chars: int, max_lines: int) -> int:
    """How many leading ``lines`` (joined with newlines) fit in the budget."""
    used = 0
    for count, line in enumerate(lines[:max_lines]):
        used += len(line) + 1
        if used > max_chars:
            return count
    return min(len(lines), max_lines)


def format_list(
    header: str,
    items: Sequence[str],
    limits: ToolLimits,
    *,
    what: str,
    note: Callable[[int, int], str] | None = None,
    footer: str = "",
) -> str:
    """``header``, then as many ``items`` as the limits allow, then a note if any were cut."""
    kept, _cut = truncate_list(items, limits.max_list_items)
    chars, lines = body_budget(limits, header + ("\n" + footer if footer else ""))
    shown = max(1, fit_lines(kept, chars, lines)) if kept else 0
    parts = [header, *(clip_line(item, chars) for item in kept[:shown])]
    if shown < len(items):
        make_note = note or (lambda total, n: list_truncation_note(total, n, what=what))
        parts.append(make_note(len(items), shown))
    if footer:
        parts.append(footer)
    return "\n".join(parts)


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A matcher for a validated glob: without '/' it matches the file name at any depth.

    ``**`` matches any number of directories, ``*`` and ``?`` stay within one path
    component, ``{a,b}`` alternatives are expanded, and a leading ``!`` negates.
    """
    negate = pattern.startswith("!")
    body = pattern[1:] if negate else pattern
    variants = expand_braces(body) or [body]
    regexes: list[tuple[bool, re.Pattern[str]]] = []
    for variant in variants:
        text = variant
        while text.startswith("./"):
            text = text[2:]
        if text in ("", "."):
            text = "**"
        if text.endswith("/"):
            text += "**"
        regexes.append(("/" not in text, re.compile(_glob_regex(text))))

    def match(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        hit = any(rx.fullmatch(name if by_name else path) for by_name, rx in regexes)
        return hit != negate

    return match


def _glob_regex(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/"):
            if i + 2 == n:
                out.append(".*")
                i += 2
                continue
            if glob[i + 2] == "/":
                out.append("(?:.*/)?")
                i += 3
                continue
        if ch == "*":
            while i + 1 < n and glob[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            close = glob.find("]", i + 2)
            if close < 0:
                out.append(re.escape(ch))
            else:
                inner = glob[i + 1 : close]
                if inner[0] in "!^":
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


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


def check_int(name: str, value: object, hint: str) -> int | None:
    """``value`` if it is an int or None; a ToolFailure otherwise (bool is not an int)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ToolFailure(
        ErrorType.INVALID_ARGUMENT,
        f"{name} must be an integer, got {value!r}.",
        hint,
        argument=name,
    )


def bounded_int(
    name: str, value: object, *, default: int, minimum: int, maximum: int, hint: str
) -> tuple[int, str]:
    """(number, note) for an optional int argument: `default` when None; a ToolFailure when
    it is not an int or below `minimum`; above `maximum` it is clamped and the note says so."""
    number = check_int(name, value, hint)
    if number is None:
        return default, ""
    if number < minimum:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"{name} must be {minimum} or more, got {number}.",
            hint,
            argument=name,
        )
    if number > maximum:
        return maximum, f"({name}={number} is above the maximum {maximum}; using {maximum}.)"
    return number, ""


def check_pattern(value: object, limits: ToolLimits, hint: str) -> str:
    """A non-empty search pattern within the input limits."""
    if not isinstance(value, str) or not value:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT, "The pattern is empty.", hint, argument="pattern"
        )
    return validate_input_size(
        value, max_chars=limits.max_input_chars, max_lines=limits.max_input_lines, what="pattern"
    )


# ---- repo_info ---------------------------------------------------------------------------
class RepoInfo(AgentTool):
    name = "repo_info"
    read_only = True
    description = "Overview of the repository: branch, files, file types, test command."
    inputs: dict[str, dict[str, object]] = {}

    def forward(self) -> str:
        workspace = self.context.workspace
        files = visible_files(workspace)
        lines = [f"Workspace: {workspace.root.name}", repo_head_summary(workspace.root)]
        lines.append(f"Files: {len(files)}")
        lines.append("Top level: " + (_top_level(files) or "(empty)"))
        if files:
            lines.append("File types: " + _extensions(files))
        lines.append("Test command: " + self.context.project.describe_check())
        unsaved = unsaved_documents(workspace)
        shown = f": {', '.join(unsaved[:10])}" if unsaved else ""
        lines.append(f"Open editor documents with unsaved changes: {len(unsaved)}{shown}")
        text = "\n".join(lines)
        chars, max_lines = body_budget(self.context.limits)
        kept = fit_lines(lines, chars, max_lines)
        if kept < len(lines):
            text = "\n".join(lines[:kept]) + "\n[truncated]"
        return text


def _top_level(files: Sequence[str]) -> str:
    counts: Counter[str] = Counter()
    for path in files:
        head, sep, _rest = path.partition("/")
        counts[head + "/" if sep else head] += 1
    names = sorted(counts, key=lambda n: (not n.endswith("/"), n))
    shown = [f"{n} ({counts[n]})" if n.endswith("/") else n for n in names[:TOP_LEVEL_SHOWN]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f", ... {more} more" if more > 0 else "")


def _extensions(files: Sequence[str]) -> str:
    counts = Counter(PurePosixPath(p).suffix.lower() or "(none)" for p in files)
    top = counts.most_common(EXTENSIONS_SHOWN)
    return ", ".join(f"{ext} {count}" for ext, count in top)


# ---- list_files ----------------------------------------------------------------------------
class ListFiles(AgentTool):
    name = "list_files"
    read_only = True
    description = "List files matching a glob pattern ('*.py' matches at any depth)."
    inputs = {
        "pattern": {"type": "string", "description": "Glob pattern."},
    }

    def forward(self, pattern: str) -> str:
        pattern = validate_glob(pattern)
        files = visible_files(self.context.workspace)
        hits = [p for p in files if compile_glob(pattern)(p)]
        if not hits and not (_GLOB_CHARS & set(pattern)):
            folder = pattern.strip("/")
            hits = [p for p in files if p.startswith(folder + "/")]
        if not hits:
            return (
                f"No files match {pattern!r} ({plural(len(files), 'file')} in the workspace). "
                'To see all files: list_files(pattern="**/*")'
            )
        header = f"{plural(len(hits), 'file')} match {pattern!r}:"
        return format_list(header, hits, self.context.limits, what="files")


# ---- read_file -----------------------------------------------------------------------------
class ReadFile(AgentTool):
    name = "read_file"
    read_only = True
    description = "Read a file, or only lines start_line to end_line."
    inputs = {
        "path": PATH_INPUT,
        "start_line": {
            "type": "integer",
            "description": "First line (1-based).",
            "nullable": True,
        },
        "end_line": {
            "type": "integer",
            "description": "Last line.",
            "nullable": True,
        },
    }
    path_inputs = ("path",)

    def forward(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        # Line numbers start at 1: a 0 can only mean "not given" (small models fill optional
        # arguments with 0); negative numbers are still refused with a hint.
        start_line, end_line = (None if n == 0 else n for n in (start_line, end_line))
        limits = self.context.limits
        canon, text = read_workspace_text(self.context.workspace, path)
        lines = text_lines(text)
        total = len(lines)
        if total == 0:
            return f"{canon} (empty file, 0 lines)"
        first, last = validate_line_range(
            start_line, end_line, total_lines=total, max_range=limits.max_line_range, path=canon
        )
        # A few lines are shown with what follows them, up to MIN_READ_LINES, and near the
        # end of the file with what comes before them: small models ask for
        # read_file(path, 1, 1) meaning the file, and for the one line a search named
        # (`inventory.py` line 12 of 12, `def restock`, whose constant RESTOCK_AMOUNT is on
        # line 3: Qwen2.5-Coder-1.5B answered with the constant's name). The output budget
        # still applies.
        last = max(last, min(total, first + MIN_READ_LINES - 1))
        first = min(first, max(1, last - MIN_READ_LINES + 1))
        until = total if end_line is None else last
        return render_lines(canon, lines, first, last, limits, until=until)


def render_lines(
    canon: str,
    lines: Sequence[str],
    first: int,
    last: int,
    limits: ToolLimits,
    *,
    until: int | None = None,
) -> str:
    """The header and lines ``first``..``last``, cut to the limits with the next exact call.

    ``until`` is the last line the caller wants in all (the end of the file when no end
    was asked for); the note points at the next part up to it.
    """
    total = len(lines)
    until = last if until is None else until
    header_guess = f"{canon} (lines {first}-{last} of {total})"
    chars, max_lines = body_budget(limits, header_guess)
    chunk = lines[first - 1 : last]
    count = fit_lines(chunk, chars, max_lines)
    if count == 0:
        line = chunk[0]
        note = (
            f"[truncated: line {first} is {len(line)} characters long; only the first {chars} "
            f'are shown. Search inside it with read_file_snippet(path="{canon}", pattern="...").'
        )
        if first < total:
            note += f" Next lines: {read_file_call(canon, first + 1, min(total, first + 50))}"
        header = f"{canon} (line {first} of {total}, cut)"
        return f"{header}\n{line[:chars]}\n{note}]"
    shown_last = first + count - 1
    header = f"{canon} (lines {first}-{shown_last} of {total})"
    body = "\n".join(chunk[:count])
    if shown_last >= until:
        return f"{header}\n{body}"
    # The next part runs to `until`, not to a chunk that fits: told "Next part: lines
    # 142-150" (a chunk), Qwen2.5-Coder-1.5B read 142-150, and no note then said where lines
    # 151-178 were: it read 142-150 again until the loop guard stopped it (grade-school,
    # react). A part that does not fit is cut again, with the part after it.
    next_end = min(until, shown_last + limits.max_line_range)
    note = (
        f"[truncated: lines {shown_last + 1}-{until} not shown. "
        f"Next part: {read_file_call(canon, shown_last + 1, next_end)}]"
    )
    return f"{header}\n{body}\n{note}"


# ---- read_file_snippet -----------------------------------------------------------------------
class ReadFileSnippet(AgentTool):
    name = "read_file_snippet"
    read_only = True
    description = "Show the lines of a file matching a regex, with context."
    inputs = {
        "path": PATH_INPUT,
        "pattern": {"type": "string", "description": "Regex."},
        "context_lines": {
            "type": "integer",
            "description": f"Context lines (default {DEFAULT_CONTEXT_LINES}).",
            "nullable": True,
        },
    }
    path_inputs = ("path",)

    def forward(self, path: str, pattern: str, context_lines: int | None = None) -> str:
        limits = self.context.limits
        canon = canonical_path(self.context.workspace, path)
        hint = f'Pass the text to find: read_file_snippet(path="{canon}", pattern="<text>").'
        pattern = check_pattern(pattern, limits, hint)
        context, note = bounded_int(
            "context_lines",
            context_lines,
            default=DEFAULT_CONTEXT_LINES,
            minimum=0,
            maximum=MAX_CONTEXT_LINES,
            hint=(
                f"Use a number from 0 to {MAX_CONTEXT_LINES}: "
                f'read_file_snippet(path="{canon}", pattern=..., context_lines=3).'
            ),
        )
        notes = [note] if note else []
        regex, regex_note = compile_or_literal(pattern)
        if regex_note:
            notes.append(regex_note)
        canon, text = read_workspace_text(self.context.workspace, canon)
        # matched as the model will see it: a pattern matching only inside a redacted
        # secret finds nothing (no oracle for the secret, one character a call)
        lines = text_lines(redact_secrets(text))
        hits = [i for i, line in enumerate(lines) if regex.search(line)]
        for text, how in _text_readings(pattern):
            if hits or re.escape(text) == regex.pattern:
                break
            found = re.compile(re.escape(text))
            hits = [i for i, line in enumerate(lines) if found.search(line)]
            if hits:
                notes.append(f"(No line matches the pattern as a regex; matched {how}.)")
        if not hits:
            notes.insert(0, f"No lines in {canon} match {pattern!r} ({len(lines)} lines).")
            return " ".join(notes) + _whole_short_file(lines, limits)
        blocks = merge_blocks(hits, context, len(lines), ends=definition_ends(lines, hits))
        header = (
            f"{canon}: {plural(len(hits), 'matching line')} in {plural(len(blocks), 'block')} "
            f"({len(lines)} lines in file)"
        )
        if notes:
            header += "\n" + " ".join(notes)
        return (
            header
            + "\n"
            + render_blocks(canon, lines, blocks, hits=hits, limits=limits, header=header)
        )


def _whole_short_file(lines: Sequence[str], limits: ToolLimits) -> str:
    """A file of at most `WHOLE_FILE_ON_MISS` lines, shown whole after a pattern that matched
    nothing in it (or "" when it is longer or does not fit). Told only that no line of a
    three-line data file matched `DATA_FILE`, Qwen2.5-Coder-1.5B answered with a name the file
    does not hold (L4); the file it asked about answers the question a pattern guessed at."""
    if not lines or len(lines) > WHOLE_FILE_ON_MISS:
        return ""
    header = f"The whole file:\n-- lines 1-{len(lines)} --"
    chars, max_lines = body_budget(limits, header)
    shown = [clip_line(line) for line in lines]
    if fit_lines(shown, chars, max_lines - 2) < len(shown):
        return ""
    return "\n" + header + "\n" + "\n".join(shown)


def _text_readings(pattern: str) -> list[tuple[str, str]]:
    """What a pattern that matches nothing as a regex may mean, as text: itself (`say(987654321123)`
    is a regex group, and matched nothing nine steps in a row), or a test id's last part
    (`say_test.py::SayTest::test_a_big_number`, copied from a check's list of failing tests,
    three patterns in a loop until the loop guard stopped the run: Qwen2.5-Coder-1.5B, say)."""
    readings = [(pattern, "it as text")]
    if "::" in pattern:
        name = pattern.rsplit("::", 1)[-1].strip()
        if name:
            readings.append((name, f"{name!r}, the test id's last part"))
    return readings


def compile_or_literal(pattern: str) -> tuple[re.Pattern[str], str]:
    """The compiled regex, or a literal match of ``pattern`` with a note when it is invalid."""
    try:
        return re.compile(pattern), ""
    except re.error as exc:
        note = f"(The pattern is not a valid regular expression ({exc}); matched it literally.)"
        return re.compile(re.escape(pattern)), note


def merge_blocks(
    hits: Sequence[int], context: int, total: int, ends: Mapping[int, int] | None = None
) -> list[tuple[int, int]]:
    """0-based inclusive line blocks around ``hits``, merged when they overlap or touch; a hit
    in ``ends`` (a definition's line) reaches at least to its end."""
    blocks: list[tuple[int, int]] = []
    for index in hits:
        start, end = max(0, index - context), min(total - 1, index + context)
        end = max(end, (ends or {}).get(index, end))
        if blocks and start <= blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], max(blocks[-1][1], end))
        else:
            blocks.append((start, end))
    return blocks


_PY_DEFINITION = re.compile(r"^(\s*)(?:async\s+def|def|class)\s")
DEFINITION_LINES = 60


def definition_ends(lines: Sequence[str], hits: Sequence[int]) -> dict[int, int]:
    """For each hit on a Python `def`/`class` line, the last line of its body (at most
    `DEFINITION_LINES` on): a snippet of a function shows all of it. Qwen2.5-Coder-1.5B, shown
    `def total_stock(items):` and three lines of it, answered that the snippet "does not show
    the implementation" and read the file again."""
    ends: dict[int, int] = {}
    for index in hits:
        match = _PY_DEFINITION.match(lines[index])
        if match is None:
            continue
        indent, last = len(match.group(1)), index
        for row in range(index + 1, min(len(lines), index + 1 + DEFINITION_LINES)):
            text = lines[row]
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            if text.strip():
                last = row
        ends[index] = last
    return ends


def render_blocks(
    canon: str,
    lines: Sequence[str],
    blocks: Sequence[tuple[int, int]],
    *,
    hits: Sequence[int],
    limits: ToolLimits,
    header: str,
) -> str:
    chars, max_lines = body_budget(limits, header)
    out: list[str] = []
    used_chars = used_lines = 0
    for start, end in blocks:
        shown = [clip_line(line) for line in lines[start : end + 1]]
        room_chars = chars - used_chars - 30
        room_lines = max_lines - used_lines - 1
        count = fit_lines(shown, room_chars, room_lines) if room_lines > 0 else 0
        first_hit = next(h for h in hits if h >= start)
        if count == 0 or start + count - 1 < first_hit:
            cut_at = start
        else:
            out.append(f"-- lines {start + 1}-{start + count} --")
            out.extend(shown[:count])
            used_chars += sum(len(s) + 1 for s in out[-count - 1 :])
            used_lines += count + 1
            if count == len(shown):
                continue
            cut_at = start + count
        left = sum(1 for h in hits if h >= cut_at)
        end_line = min(len(lines), cut_at + 50)
        out.append(
            f"[truncated: {plural(left, 'matching line')} from line {cut_at + 1} on not shown. "
            f"Read on with {read_file_call(canon, cut_at + 1, end_line)} "
            "or use a more specific pattern.]"
        )
        break
    return "\n".join(out)
