"""`repo_info` and `list_files`: what the repository holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath

from safety.validation import (
    validate_glob,
)
from tools.base import AgentTool
from tools.files.globs import (
    GLOB_CHARS,
    compile_glob,
)
from tools.files.output import (
    body_budget,
    fit_lines,
    format_list,
    plural,
)
from tools.files.workspace_text import (
    unsaved_documents,
    visible_files,
)
from tools.git_repo import repo_head_summary

TOP_LEVEL_SHOWN = 30
EXTENSIONS_SHOWN = 8


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
        if not hits and not (GLOB_CHARS & set(pattern)):
            folder = pattern.strip("/")
            hits = [p for p in files if p.startswith(folder + "/")]
        if not hits:
            return (
                f"No files match {pattern!r} ({plural(len(files), 'file')} in the workspace). "
                'To see all files: list_files(pattern="**/*")'
            )
        header = f"{plural(len(hits), 'file')} match {pattern!r}:"
        return format_list(header, hits, self.context.limits, what="files")
