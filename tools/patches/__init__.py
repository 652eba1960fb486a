"""Patches: parsed and applied in memory against a Workspace, kept per run, written on approval.

- `apply_diff` — a unified diff (``propose_patch_unified``) -> `PatchResult`
  (`diff_apply`, over the tolerant tier of `safety.unified_diff`);
- `apply_search_replace` / `search_replace_diff` — ``propose_patch(path, old, new)``: one
  exact replacement, turned into a unified diff that `apply_diff` applies exactly
  (`search_replace`); `apply_whole_file` — ``propose_file(path, content)``, the same way;
  `apply_whole_function` — ``propose_function(path, name, code)``: one Python definition
  written anew (`whole_function`);
- `model`: what a patch is (`PatchResult`, `FilePatch`, hunks) and `render_unified_diff`,
  the canonical diff between two texts;
- `store`: the run's patches (`p1`, `p2`, …), their status and staleness;
- `writer`: the `PatchWriter` Protocol hosts implement, and `DiskPatchWriter` (all files or
  none);
- `hunk_choice`: which hunks of a patch an editor kept (`hunks_in`);
- `same_code`: `same_code_note`, for a patch that leaves a Python file's code as it was
  (only docstrings, comments or spaces left out), and `idle_patch`, such a patch that fixes
  none of the failing tests (never applied);
- `aimed_at_tests`: `missed_tests`, the failing tests a no-fix patch was aimed at (they
  call a definition it changes, or one the task names), and `never_applied`, what
  `apply_patch` refuses every time: an idle patch or one that missed its tests;
- `other_files`: `text_elsewhere`, which other known file holds a search/replace `old`
  that its own file lacks;
- `undo`: what a job wrote (`WriteJournal`, filled by `RecordingWriter`) and `plan_undo`,
  its reverse against the files as they are now (like `git apply -R`).

Bad model input raises `PatchError` (message, error type, recovery suggestion, and for a
hunk that does not apply: file, hunk number, expected and current text). Nothing here
touches the disk except `DiskPatchWriter`. Outside this folder, import from
`tools.patches` only; the agent tools that use it are in `tools/patch_tools.py`.
"""

from __future__ import annotations

from safety.unified_diff import parse_diff
from tools.patches.aimed_at_tests import Miss, missed_tests, never_applied
from tools.patches.diff_apply import apply_diff
from tools.patches.hunk_choice import hunks_in
from tools.patches.model import (
    CONTEXT_LINES,
    DiffHunk,
    DiffLine,
    FileDiff,
    FilePatch,
    HunkSpan,
    PatchError,
    PatchResult,
    lines_with_ends,
    render_unified_diff,
    unified_hunks,
)
from tools.patches.one_line import one_line_reading
from tools.patches.other_files import text_elsewhere
from tools.patches.python_syntax import refuse_broken_python
from tools.patches.same_code import idle_patch, same_code_note
from tools.patches.search_replace import (
    SearchReplace,
    apply_search_replace,
    apply_whole_file,
    search_replace,
    search_replace_diff,
    whole_file_text,
)
from tools.patches.store import (
    PatchStore,
    StoredPatch,
    code_files,
    fixes_every_failure,
    fixes_none,
    is_stale,
    leaves_failures,
    next_step,
    not_a_fix,
    rebase,
    still_failing,
)
from tools.patches.undo import (
    RecordingWriter,
    UndoPlan,
    WriteJournal,
    Written,
    plan_undo,
    workspace_reader,
)
from tools.patches.whole_function import (
    apply_whole_function,
    definitions,
    whole_definition_reading,
)
from tools.patches.writer import DiskPatchWriter, PatchWriter, WriteOutcome

__all__ = [
    "CONTEXT_LINES",
    "DiffHunk",
    "DiffLine",
    "DiskPatchWriter",
    "FileDiff",
    "FilePatch",
    "HunkSpan",
    "Miss",
    "PatchError",
    "PatchResult",
    "PatchStore",
    "PatchWriter",
    "RecordingWriter",
    "SearchReplace",
    "StoredPatch",
    "UndoPlan",
    "WriteJournal",
    "WriteOutcome",
    "Written",
    "apply_diff",
    "apply_search_replace",
    "apply_whole_file",
    "apply_whole_function",
    "code_files",
    "definitions",
    "fixes_every_failure",
    "fixes_none",
    "hunks_in",
    "idle_patch",
    "is_stale",
    "leaves_failures",
    "lines_with_ends",
    "missed_tests",
    "never_applied",
    "next_step",
    "not_a_fix",
    "one_line_reading",
    "parse_diff",
    "plan_undo",
    "rebase",
    "refuse_broken_python",
    "render_unified_diff",
    "same_code_note",
    "search_replace",
    "search_replace_diff",
    "still_failing",
    "text_elsewhere",
    "unified_hunks",
    "whole_definition_reading",
    "whole_file_text",
    "workspace_reader",
]
