"""Parse unified diffs (with unidiff) into `FileDiff`s, vetting every file section.

Two tiers, one parser. `parse_diff` (tolerant, for the tools) first repairs what small
models get wrong (`normalise.normalise_diff`: fences, wrong hunk counts, unprefixed
context) and reports every repair as a note; paths are validated against the workspace.
`parse_strict` (for the sandbox, like `git apply`) takes the text as it is. Both refuse
binary patches, symlinks, submodules and paths outside the repository or in `.git`.
"""

from __future__ import annotations

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

from safety.unified_diff.model import DiffHunk, DiffLine, FileDiff, LineKind, ParsedDiff, PatchError
from safety.unified_diff.normalise import FORMAT_HINT, HunkFacts, normalise_diff
from safety.unified_diff.paths import PathLookup, diff_paths, invalid, strict_side, strip_level


def parse_diff(diff: str, workspace: PathLookup | None = None) -> list[FileDiff]:
    """Parse ``diff`` into file sections, or raise PatchError.

    With a ``workspace``, paths are validated with ``validate_path`` (outside the root
    or sensitive: refused) and made workspace-relative; git ``a/``/``b/`` prefixes are
    handled as :func:`safety.unified_diff.paths.diff_paths` describes. Without one, paths are
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


def parse_strict(diff: str) -> ParsedDiff:
    """Parse ``diff`` as it is (no repairs, like ``git apply``) or raise PatchError.

    Paths must be repo-relative (`safe_relative_path`); git's a/ b/ prefixes are
    stripped when every header has them (`ParsedDiff.strip`).
    """
    if not isinstance(diff, str):
        raise TypeError(f"diff must be a str, not {type(diff).__name__}")
    if not diff.strip():
        raise invalid("the diff is empty")
    text = diff if diff.endswith("\n") else diff + "\n"
    try:
        patch_set = PatchSet(text)
    except UnidiffParseError as exc:
        raise invalid(f"the diff does not parse as a unified diff: {exc}") from None
    if len(patch_set) == 0:
        raise invalid(
            "no file changes found: expected a unified diff with `--- a/PATH`, "
            "`+++ b/PATH` headers and `@@ -l,n +l,n @@` hunks"
        )
    strip = strip_level([(patched.source_file, patched.target_file) for patched in patch_set])
    files = tuple(_strict_file_diff(patched, strip) for patched in patch_set)
    return ParsedDiff(text=text, files=files, strip=strip)


def _strict_file_diff(patched: PatchedFile, strip: int) -> FileDiff:
    _refuse_special(patched)
    label = patched.path
    old_path = strict_side(patched.source_file, strip)
    new_path = strict_side(patched.target_file, strip)
    if old_path is None and new_path is None:
        raise invalid(f"a file entry has neither a source nor a target path ({label!r})")
    changes_text = new_path is not None and old_path in (None, new_path)
    if len(patched) == 0 and changes_text and not patched.patch_info:
        raise invalid(f"no hunks for {label!r}: each changed file needs `@@ ... @@` hunks")
    hunks = tuple(
        _diff_hunk(raw, raw.source_start, raw.target_start, (raw.source_length, raw.target_length))
        for raw in patched
    )
    return FileDiff(old_path, new_path, hunks)


def _refuse_special(patched: PatchedFile) -> None:
    """Binary patches, symlinks, submodules and copies are refused by both tiers."""
    if any(str(line).startswith(("copy from ", "copy to ")) for line in patched.patch_info or ()):
        # read as a rename (unidiff has no copies) it would delete its source file
        raise PatchError(
            f"Copy patches ('copy from'/'copy to') are not supported ({patched.path}).",
            recovery_suggestion="To add a copy of a file, send a diff that creates the new "
            "file ('--- /dev/null', '+++ b/NEW_PATH') with its whole text as '+' lines; the "
            "source file stays as it is.",
            file=patched.path,
        )
    if patched.is_binary_file:
        raise PatchError(
            f"Binary patches are not supported ({patched.path}): binary files cannot be "
            "checked or applied, only text changes.",
            recovery_suggestion="Only text files can be patched; leave binary files alone.",
            file=patched.path,
        )
    if patched.is_symlink or patched.is_submodule:
        raise PatchError(
            f"Changing symlinks or submodules is not supported ({patched.path}): only "
            "regular files can be patched.",
            recovery_suggestion="Patch regular text files only.",
            file=patched.path,
        )


def _file_diff(
    patched: PatchedFile, facts: list[HunkFacts], workspace: PathLookup | None
) -> FileDiff:
    _refuse_special(patched)
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
        hunks.append(_diff_hunk(raw, fact.old_start, fact.new_start, fact.counted, fact.located))
        notes.extend(_notes(fact, number, shown))
    if not hunks and old_path == new_path:
        raise PatchError(
            f"The diff for {shown} has no hunks, so it changes nothing.",
            recovery_suggestion=FORMAT_HINT,
            file=shown,
        )
    return FileDiff(old_path, new_path, tuple(hunks), tuple(notes))


def _diff_hunk(
    raw: Hunk, old_start: int, new_start: int, counts: tuple[int, int], located: bool = True
) -> DiffHunk:
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
    header = f"@@ -{old_start},{counts[0]} +{new_start},{counts[1]} @@"
    return DiffHunk(header, old_start, new_start, tuple(lines), located)


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
