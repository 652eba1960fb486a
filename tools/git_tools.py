"""Read-only git tools: git_status, git_diff, git_log (git runs in tools/git_repo.py).

Git runs through ``tools.workspace.git_command`` / ``git_env(root)`` (no pager, no system
config, ``core.fsmonitor=false``, no hooks, every configured clean/smudge filter driver
blanked through ``GIT_CONFIG_COUNT``, which, unlike ``-c``, takes any driver name). On top
of that every call here disables what else a repository's config could make git execute:
external diff and textconv (``--no-ext-diff --no-textconv``), signature checks
(``--no-show-signature``) and submodule recursion (``--ignore-submodules=dirty``). Git sees
the disk, not the editor's unsaved buffers; outputs say so when open documents differ
from the disk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from safety.errors import ErrorType, hint_file_not_found, read_file_call
from tools.base import AgentTool, ToolFailure
from tools.files import (
    body_budget,
    bounded_int,
    canonical_path,
    clip_line,
    fit_lines,
    format_list,
    is_sensitive,
    plural,
    unsaved_documents,
    visible_files,
)
from tools.git_repo import git_failed, open_repo
from tools.workspace import GIT_TIMEOUT_S, Workspace

DEFAULT_LOG_COUNT = 10
MAX_LOG_COUNT = 50
MAX_DIFF_FILES = 200
FILES_NAMED_IN_HEADER = 20
_NO_HELPERS = ("--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty")


def _unsaved_note(workspace: Workspace) -> str:
    unsaved = unsaved_documents(workspace)
    if not unsaved:
        return ""
    named = ", ".join(unsaved[:5]) + (", ..." if len(unsaved) > 5 else "")
    return (
        f"Note: {plural(len(unsaved), 'open editor document')} with unsaved changes "
        f"not on disk (git does not see them): {named}"
    )


def _timeout(tool: AgentTool) -> float:
    return min(GIT_TIMEOUT_S, tool.context.limits.command_timeout_s)


# ---- git_status -----------------------------------------------------------------------------
class GitStatus(AgentTool):
    name = "git_status"
    read_only = True
    description = "Show the git branch and changed files."
    inputs: dict[str, dict[str, object]] = {}

    def forward(self) -> str:
        workspace = self.context.workspace
        repo = open_repo(workspace.root, _timeout(self))
        proc = repo.run(
            "status",
            "--porcelain=v1",
            "--branch",
            "-z",
            "--untracked-files=normal",
            "--ignore-submodules=dirty",
            "--",
            ".",
        )
        if proc.returncode != 0:
            raise git_failed(proc, "status")
        tokens = proc.stdout.decode("utf-8", errors="replace").split("\0")
        branch = "unknown"
        entries: list[str] = []
        hidden = 0
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if not token:
                continue
            if token.startswith("## "):
                branch = token[3:]
                continue
            code, path = token[:2], repo.relative(token[3:])
            shown = path
            if code[0] in "RC" and i < len(tokens):
                origin = repo.relative(tokens[i])
                i += 1
                if is_sensitive(origin):
                    hidden += 1
                    continue
                shown = f"{origin} -> {path}"
            if is_sensitive(path):
                hidden += 1
                continue
            entries.append(f"{code} {shown}")
        header = f"Branch: {branch}"
        footer_parts = []
        if hidden:
            footer_parts.append(f"({plural(hidden, 'sensitive path')} not shown.)")
        note = _unsaved_note(workspace)
        if note:
            footer_parts.append(note)
        footer = "\n".join(footer_parts)
        if not entries:
            text = f"{header}\nWorking tree clean: no changed or untracked files."
            return f"{text}\n{footer}" if footer else text
        header += (
            f"\n{plural(len(entries), 'entry', 'entries')} (XY: X staged, Y unstaged; "
            "M modified, A added, D deleted, R renamed, ?? untracked):"
        )
        return format_list(header, entries, self.context.limits, what="entries", footer=footer)


# ---- git_diff -------------------------------------------------------------------------------
class GitDiff(AgentTool):
    name = "git_diff"
    read_only = True
    description = "Show the git diff of files on disk against HEAD."
    inputs = {
        "path": {
            "type": "string",
            "description": "Limit to this path.",
            "nullable": True,
        },
    }
    path_inputs = ("path",)

    def forward(self, path: str | None = None) -> str:
        workspace = self.context.workspace
        spec = "."
        if path is not None and path.strip() not in ("", "."):
            spec = canonical_path(workspace, path)
        repo = open_repo(workspace.root, _timeout(self))
        if not repo.has_head():
            return (
                "The repository has no commits yet, so there is nothing to diff against. "
                "git_status lists its files."
            )
        base = ("--literal-pathspecs", "diff", *_NO_HELPERS, "--no-renames", "--relative")
        names_proc = repo.run(*base, "--name-only", "-z", "HEAD", "--", spec)
        if names_proc.returncode != 0:
            raise git_failed(names_proc, "diff")
        names = [n for n in names_proc.stdout.decode("utf-8", "replace").split("\0") if n]
        changed = [n for n in names if not is_sensitive(n)]
        hidden = len(names) - len(changed)
        notes = [f"({plural(hidden, 'sensitive file')} not shown.)"] if hidden else []
        unsaved = _unsaved_note(workspace)
        if unsaved:
            notes.append(unsaved)
        where = "" if spec == "." else f" under {spec!r}"
        if not changed:
            if spec != "." and not (workspace.root / spec).exists():
                raise ToolFailure(
                    ErrorType.FILE_NOT_FOUND,
                    f"No file or folder {spec!r} on disk and no change to it since HEAD.",
                    hint_file_not_found(spec, visible_files(workspace)),
                    path=spec,
                )
            text = (
                f"No changes to tracked files{where} compared to HEAD. "
                "(Untracked files are not diffed; git_status lists them.)"
            )
            return "\n".join([text, *notes])
        named = ", ".join(changed[:FILES_NAMED_IN_HEADER])
        if len(changed) > FILES_NAMED_IN_HEADER:
            named += f", ... {len(changed) - FILES_NAMED_IN_HEADER} more"
        header = f"{plural(len(changed), 'file')} changed vs HEAD{where} (disk state): {named}"
        header = "\n".join([header, *notes])
        diff_proc = repo.run(*base, "HEAD", "--", *changed[:MAX_DIFF_FILES])
        if diff_proc.returncode != 0:
            raise git_failed(diff_proc, "diff")
        body = diff_proc.stdout.decode("utf-8", errors="replace")
        chars, lines = body_budget(self.context.limits, header)
        body = cut_diff(body, changed[:MAX_DIFF_FILES], chars, lines)
        if len(changed) > MAX_DIFF_FILES:
            body += f"\n[only the first {MAX_DIFF_FILES} files are diffed]"
        return f"{header}\n{body}"


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def cut_diff(diff: str, files: Sequence[str], max_chars: int, max_lines: int) -> str:
    """``diff`` cut at a line boundary to the budget, with a note naming what is left and
    the exact call that shows it (``files`` are the diffed paths, in git's order)."""
    lines = diff.rstrip("\n").split("\n")
    count = fit_lines(lines, max_chars, max_lines)
    if count == len(lines):
        return "\n".join(lines)
    shown = [*lines[:count]] if count else [clip_line(lines[0], max_chars)]
    rest = lines[len(shown) :]
    started = sum(1 for line in shown if line.startswith("diff --git "))
    current = files[started - 1] if 0 < started <= len(files) else None
    later = list(files[started:])
    where = f"rest of {current}" if current else "the rest"
    if later:
        where += f" and {plural(len(later), 'more file')}"
    note = f"[truncated: {plural(len(rest), 'more diff line')} not shown ({where})."
    next_hunk = None
    for line in rest:
        if line.startswith("diff --git "):
            break
        next_hunk = _HUNK.match(line)
        if next_hunk:
            break
    if current and next_hunk:
        start = max(int(next_hunk.group(1)), 1)
        end = start + max(int(next_hunk.group(2) or 1), 1) - 1
        note += f" Current text of the next change: {read_file_call(current, start, end)}."
    if later:
        note += f' Next file: git_diff(path="{later[0]}").'
    return "\n".join([*shown, note + "]"])


# ---- git_log --------------------------------------------------------------------------------
class GitLog(AgentTool):
    name = "git_log"
    read_only = True
    description = "List recent commits."
    inputs = {
        "n": {
            "type": "integer",
            "description": f"How many (default {DEFAULT_LOG_COUNT}).",
            "nullable": True,
        },
    }

    def forward(self, n: int | None = None) -> str:
        count, clamped = bounded_int(
            "n",
            n,
            default=DEFAULT_LOG_COUNT,
            minimum=1,
            maximum=MAX_LOG_COUNT,
            hint=f"Use a number from 1 to {MAX_LOG_COUNT}: git_log(n={DEFAULT_LOG_COUNT}).",
        )
        notes = [clamped] if clamped else []
        repo = open_repo(self.context.workspace.root, _timeout(self))
        if not repo.has_head():
            return "No commits yet."
        proc = repo.run(
            "log",
            f"-n{count}",
            "--no-show-signature",
            "--no-color",
            "--date=short",
            "--format=%h%x00%ad%x00%an%x00%s",
        )
        if proc.returncode != 0:
            raise git_failed(proc, "log")
        commits = []
        for line in proc.stdout.decode("utf-8", errors="replace").splitlines():
            sha, date, author, subject = [*line.split("\0"), "", "", ""][:4]
            commits.append(f"{sha} {date} {author}: {subject}")
        header = f"{plural(len(commits), 'commit')} (newest first):"

        def note(total: int, shown: int) -> str:
            return f"[truncated: showing {shown} of {total} commits; ask for fewer with n.]"

        return format_list(
            header, commits, self.context.limits, what="commits", note=note, footer=" ".join(notes)
        )
