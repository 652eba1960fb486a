"""Parse and apply patches in memory, against a Workspace; never touches the disk.

- :func:`apply_diff` — a unified diff (``propose_patch_unified``) -> :class:`PatchResult`.
- :func:`apply_search_replace` / :func:`search_replace_diff` — ``propose_patch(path, old,
  new)``: one exact replacement, turned into a unified diff that ``apply_diff`` applies
  exactly.
- :func:`render_unified_diff` — the canonical diff between two texts.

Bad model input raises :class:`PatchError` (message, error type, recovery suggestion,
and for a hunk that does not apply: file, hunk number, expected and current text).

The work is done in :mod:`safety.unified_diff` (repair + unidiff parsing and placing
hunks, the tolerant tier shared with the sandbox), :mod:`tools.diff_apply` (files
against the workspace) and :mod:`tools.search_replace`; this module is the public surface.
"""

from __future__ import annotations

from safety.unified_diff import parse_diff
from tools.diff_apply import apply_diff
from tools.patch_model import (
    DiffHunk,
    DiffLine,
    FileDiff,
    FilePatch,
    HunkSpan,
    PatchError,
    PatchResult,
    render_unified_diff,
)
from tools.search_replace import (
    SearchReplace,
    apply_search_replace,
    search_replace,
    search_replace_diff,
)

__all__ = [
    "DiffHunk",
    "DiffLine",
    "FileDiff",
    "FilePatch",
    "HunkSpan",
    "PatchError",
    "PatchResult",
    "SearchReplace",
    "apply_diff",
    "apply_search_replace",
    "parse_diff",
    "render_unified_diff",
    "search_replace",
    "search_replace_diff",
]
