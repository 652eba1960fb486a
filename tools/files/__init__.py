"""Read-only file tools: repo_info, list_files, read_file, read_file_snippet.

Everything is read through ``context.workspace`` (the editor's unsaved buffers for open
documents, the disk otherwise). Sensitive files are never listed or shown. Outputs are
plain text kept within ``context.limits`` *including* their header and truncation note,
so the wrapper's own truncation never has to cut them again. The helpers
(`workspace_text`: visible files and a file's text; `globs`; `output`: fitting lines into the
output budget; `arguments`) are shared with ``tools.search_tool`` and ``tools.git_tools``.
"""

from tools.files.arguments import PATH_INPUT, bounded_int, check_int, check_pattern
from tools.files.globs import compile_glob
from tools.files.listing import ListFiles, RepoInfo
from tools.files.output import (
    MAX_SHOWN_LINE_CHARS,
    body_budget,
    clip_line,
    fit_lines,
    format_list,
    plural,
    text_lines,
)
from tools.files.reading import ReadFile, render_lines
from tools.files.snippets import ReadFileSnippet, merge_blocks
from tools.files.workspace_text import (
    canonical_path,
    file_definitions,
    file_lines,
    is_sensitive,
    read_workspace_text,
    unsaved_documents,
    visible_files,
)

__all__ = [
    "MAX_SHOWN_LINE_CHARS",
    "PATH_INPUT",
    "ListFiles",
    "ReadFile",
    "ReadFileSnippet",
    "RepoInfo",
    "body_budget",
    "bounded_int",
    "canonical_path",
    "check_int",
    "check_pattern",
    "clip_line",
    "compile_glob",
    "file_definitions",
    "file_lines",
    "fit_lines",
    "format_list",
    "is_sensitive",
    "merge_blocks",
    "plural",
    "read_workspace_text",
    "render_lines",
    "text_lines",
    "unsaved_documents",
    "visible_files",
]
