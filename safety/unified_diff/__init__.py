"""One pipeline for unified diffs a model supplies: parse, vet, apply (untrusted input).

Parsing and vetting (no absolute paths, no `..`, nothing in `.git`, no binary patches,
symlinks or submodules) is validation, so it lives in `safety/`, where both `tools/` and
`sandbox/` may import it. Two tiers:

- tolerant, for the tools: `parse_diff` repairs what small models get wrong (fences,
  wrong hunk counts, unprefixed context) and `tolerant_apply.apply_hunks` places hunks
  despite line drift, line-ending and whitespace differences; every repair is a note.
- strict, for the sandbox, like `git apply` without fuzz: `parse_strict` and
  `strict_apply.apply_to_texts`.

Modules: `model` (types, `PatchError`), `paths`, `normalise`, `parse`, `tolerant_apply`,
`strict_apply`. Outside this folder, import from `safety.unified_diff` only.
"""

from safety.unified_diff.model import (
    NO_NEWLINE_MARKER,
    DiffHunk,
    DiffLine,
    FileChange,
    FileDiff,
    ParsedDiff,
    PatchError,
    lines_with_ends,
)
from safety.unified_diff.normalise import FORMAT_HINT
from safety.unified_diff.parse import parse_diff, parse_strict
from safety.unified_diff.paths import (
    exists_quietly,
    safe_relative_path,
    vet_overlay,
    workspace_path,
)
from safety.unified_diff.strict_apply import apply_to_texts, does_not_apply
from safety.unified_diff.tolerant_apply import (
    apply_hunks,
    dominant_eol,
    find_block,
    line_ending,
    numbered,
    reindent,
    reindent_rule,
    squash_ws,
    strip_eol,
)

__all__ = [
    "FORMAT_HINT",
    "NO_NEWLINE_MARKER",
    "DiffHunk",
    "DiffLine",
    "FileChange",
    "FileDiff",
    "ParsedDiff",
    "PatchError",
    "apply_hunks",
    "apply_to_texts",
    "does_not_apply",
    "dominant_eol",
    "exists_quietly",
    "find_block",
    "line_ending",
    "lines_with_ends",
    "numbered",
    "parse_diff",
    "parse_strict",
    "reindent",
    "reindent_rule",
    "safe_relative_path",
    "squash_ws",
    "strip_eol",
    "vet_overlay",
    "workspace_path",
]
