"""rg_search: regex search over the workspace, ripgrep when installed, Python otherwise.

The pattern is checked with Python's ``re`` first, so a bad pattern gets one clear error
in both modes. ripgrep runs in the workspace root with ``--no-config`` (no
``RIPGREP_CONFIG_PATH``), a per-file and an overall cap and a timeout; a pattern it
cannot parse (Python-only syntax such as look-arounds) falls back to the Python search.
Open editor documents are always searched from their buffer text, never from the disk.
Sensitive files are excluded from the search and filtered from the results.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from safety import host_process
from safety.errors import ErrorType
from safety.secret_redaction import contains_private_key, redact_secrets
from safety.sensitive import DEFAULT_SENSITIVE
from safety.truncation import list_truncation_note
from safety.validation import ValidationError, file_problem, validate_glob, validate_path
from tools.base import AgentTool, ToolFailure
from tools.files import (
    MAX_SHOWN_LINE_CHARS,
    check_pattern,
    clip_line,
    compile_glob,
    format_list,
    is_sensitive,
    plural,
    text_lines,
    visible_files,
)
from tools.workspace import SKIPPED_DIRS, NotTextError, Workspace

MAX_PER_FILE = 20
"""Matches listed per file (ripgrep's --max-count)."""
MAX_FILE_BYTES = 1_000_000
OVERALL_CAP_FACTOR = 10
"""The search stops after ``max_list_items * OVERALL_CAP_FACTOR`` matches."""
_REGEX_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\])")

Row = tuple[str, int, str]


@dataclass
class Hits:
    rows: list[Row] = field(default_factory=list)
    capped: bool = False
    timed_out: bool = False

    def full_files(self) -> list[str]:
        counts = Counter(path for path, _line, _text in self.rows)
        return sorted(path for path, count in counts.items() if count >= MAX_PER_FILE)


def escape_regex(text: str) -> str:
    """``text`` with regex special characters backslash-escaped (valid for re and ripgrep)."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


def compile_search(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"Invalid regular expression {pattern!r}: {exc}.",
            "To search for the text literally, escape special characters with a backslash: "
            f'rg_search(pattern="{escape_regex(pattern)}")',
            pattern=pattern,
        ) from None


def as_seen(regex: re.Pattern[str], line: str) -> str | None:
    """``line`` as the model may see it (secrets redacted) when ``regex`` matches that, else
    None. A search must not be an oracle: a pattern that matches only inside a redacted
    secret (`ghp_a`, `ghp_ab`, ... one call per character) finds nothing."""
    redacted = redact_secrets(line)
    return redacted if redacted == line or regex.search(redacted) else None


def search_text(regex: re.Pattern[str], path: str, text: str, rows: list[Row]) -> None:
    """Append up to MAX_PER_FILE matching lines of ``text`` to ``rows`` (matched as the
    model would see them: secrets redacted; text holding a private key not at all)."""
    if contains_private_key(text):
        return
    found = 0
    for number, line in enumerate(text_lines(text), 1):
        seen = as_seen(regex, line) if regex.search(line) else None
        if seen is not None:
            rows.append((path, number, clip_line(seen)))
            found += 1
            if found >= MAX_PER_FILE:
                return


def python_search(
    workspace: Workspace,
    regex: re.Pattern[str],
    matcher: Callable[[str], bool] | None,
    *,
    cap: int,
    deadline: float,
) -> Hits:
    """Search the workspace's text files (open documents from their buffers) in Python."""
    hits = Hits()
    open_docs = workspace.open_documents()
    for path in visible_files(workspace):
        if matcher is not None and not matcher(path):
            continue
        if time.monotonic() > deadline:
            hits.timed_out = True
            break
        if path in open_docs:
            text = open_docs[path]
        else:
            try:
                disk = validate_path(workspace.root, path)
                if disk.stat().st_size > MAX_FILE_BYTES:
                    continue
                text = workspace.read_text(path)
            except (ValidationError, NotTextError, OSError):
                continue
        search_text(regex, path, text, hits.rows)
        if len(hits.rows) >= cap:
            del hits.rows[cap:]
            hits.capped = True
            break
    return hits


def ripgrep_program() -> str | None:
    """ripgrep on the user's clean PATH (`safety.host_process`), or None without it."""
    try:
        return host_process.resolve_program("rg", host_process.vetted_environ())
    except host_process.ProgramNotFound:
        return None


def ripgrep_argv(rg: str, pattern: str, glob: str | None) -> list[str]:
    argv = [
        rg,
        "--no-config",
        "--line-number",
        "--no-heading",
        "--color",
        "never",
        "--null",
        "--max-columns",
        str(MAX_SHOWN_LINE_CHARS),
        "--max-columns-preview",
        "--max-count",
        str(MAX_PER_FILE),
        "--max-filesize",
        str(MAX_FILE_BYTES),
        "--hidden",
        "--no-follow",
        "--sort",
        "path",
        "-e",
        pattern,
    ]
    if glob is not None:
        argv += ["-g", glob]
    for name in sorted(SKIPPED_DIRS):
        argv += ["-g", f"!{name}"]
    for name in DEFAULT_SENSITIVE.excluded_by_name():
        argv += ["--iglob", f"!{name}"]
    return [*argv, "--", "."]


def _parse_rg_line(raw: bytes) -> Row | None:
    path_bytes, sep, rest = raw.partition(b"\0")
    number, sep2, text = rest.partition(b":")
    if not sep or not sep2 or not number.isdigit():
        return None
    path = path_bytes.decode("utf-8", errors="replace").removeprefix("./")
    line = text.decode("utf-8", errors="replace").rstrip("\r\n")
    return path, int(number), clip_line(line)


def ripgrep_search(
    rg: str,
    root: Path,
    pattern: str,
    glob: str | None,
    *,
    skip: Iterable[str],
    cap: int,
    timeout_s: float,
    regex: re.Pattern[str] | None = None,
) -> Hits | None:
    """ripgrep's matches (without ``skip`` paths), or None when ripgrep reports an error
    and found nothing (for example a pattern only Python's ``re`` understands)."""
    skipped = set(skip)
    refused: dict[str, bool] = {}  # path -> holds a private key or has several hard links
    hits = Hits()
    timed_out = threading.Event()
    with tempfile.TemporaryFile() as errors:
        proc = host_process.popen(
            ripgrep_argv(rg, pattern, glob),
            cwd=root,
            untrusted=[root],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        )

        def on_timeout() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout_s, on_timeout)
        timer.daemon = True
        timer.start()
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                row = _parse_rg_line(raw)
                if row is None or row[0] in skipped or is_sensitive(row[0]):
                    continue
                if row[0] not in refused:
                    refused[row[0]] = file_problem(root / row[0]) is not None
                seen = row[2] if regex is None else as_seen(regex, row[2])
                if refused[row[0]] or seen is None:
                    continue
                hits.rows.append((row[0], row[1], seen))
                if len(hits.rows) >= cap:
                    hits.capped = True
                    break
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()
    hits.timed_out = timed_out.is_set()
    if proc.returncode == 2 and not hits.rows and not hits.timed_out:
        return None
    return hits


class RgSearch(AgentTool):
    name = "rg_search"
    read_only = True
    description = "Search file contents with a regex. Returns path:line: text."
    inputs = {
        "pattern": {"type": "string", "description": "Regex."},
        "glob": {
            "type": "string",
            "description": "Only files matching this glob.",
            "nullable": True,
        },
    }

    def forward(self, pattern: str, glob: str | None = None) -> str:
        limits = self.context.limits
        pattern = check_pattern(
            pattern, limits, 'Pass the text to search for: rg_search(pattern="<text>").'
        )
        if glob is not None and not glob.strip():
            glob = None
        hits = self._search(pattern, glob)
        if not hits.rows and not hits.timed_out and glob is not None:
            # Small models pass a file name or a wrong glob: say so, and show where it is.
            everywhere = self._search(pattern, None)
            if everywhere.rows:
                nowhere = f"No matches for {pattern!r} in files matching {glob!r}; in all files:"
                return self._render(pattern, None, everywhere, limits.command_timeout_s, nowhere)
        return self._render(pattern, glob, hits, limits.command_timeout_s)

    def _search(self, pattern: str, glob: str | None) -> Hits:
        limits = self.context.limits
        workspace = self.context.workspace
        regex = compile_search(pattern)
        matcher = compile_glob(validate_glob(glob)) if glob is not None else None
        cap = max(1, limits.max_list_items) * OVERALL_CAP_FACTOR
        timeout_s = limits.command_timeout_s
        started = time.monotonic()
        rg = ripgrep_program()
        hits = None
        if rg is not None:
            buffers = _open_buffers(workspace, matcher)
            hits = ripgrep_search(
                rg,
                workspace.root,
                pattern,
                glob,
                skip=workspace.open_documents(),
                cap=cap,
                timeout_s=timeout_s,
                regex=regex,
            )
            if hits is not None:
                for path, text in buffers.items():
                    search_text(regex, path, text, hits.rows)
                hits.rows.sort(key=lambda row: (row[0], row[1]))
        if hits is None:
            hits = python_search(workspace, regex, matcher, cap=cap, deadline=started + timeout_s)
        return hits

    def _render(
        self, pattern: str, glob: str | None, hits: Hits, timeout_s: float, lead: str = ""
    ) -> str:
        where = f" in files matching {glob!r}" if glob else ""
        if not hits.rows:
            if hits.timed_out:
                raise ToolFailure(
                    ErrorType.TIMEOUT,
                    f"The search for {pattern!r} timed out after {timeout_s:g}s with no match.",
                    "Narrow the search with a glob or a more specific pattern.",
                    pattern=pattern,
                )
            return f"No matches for {pattern!r}{where}."
        files = len({path for path, _line, _text in hits.rows})
        counted = plural(len(hits.rows), "match", "matches")
        if hits.capped or hits.timed_out:
            counted = "at least " + counted
        header = f"{counted} in {plural(files, 'file')} for {pattern!r}{where}:"
        if lead:
            header = f"{lead} {header}"
        footer: list[str] = []
        full = hits.full_files()
        if full:
            named = ", ".join(full[:5]) + (", ..." if len(full) > 5 else "")
            footer.append(f"(At most {MAX_PER_FILE} matches per file are listed: {named}.)")
        if hits.capped:
            footer.append(f"(The search stopped after {len(hits.rows)} matches.)")
        if hits.timed_out:
            footer.append(f"(The search timed out after {timeout_s:g}s; results are incomplete.)")
        items = [f"{path}:{line}: {text}" for path, line, text in hits.rows]

        def note(total: int, shown: int) -> str:
            return list_truncation_note(total, shown, what="matches")

        return format_list(
            header,
            items,
            self.context.limits,
            what="matches",
            note=note,
            footer="\n".join(footer),
        )


def _open_buffers(workspace: Workspace, matcher: Callable[[str], bool] | None) -> Mapping[str, str]:
    """Open documents to search from their buffer text (ripgrep only sees the disk)."""
    return {
        path: text
        for path, text in workspace.open_documents().items()
        if not is_sensitive(path) and (matcher is None or matcher(path))
    }
