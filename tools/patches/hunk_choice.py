"""Which hunks of a patch a text holds, when an editor applied only some of them.

VS Code's refactor preview and the Neovim plugin's hunk review let the user keep some
hunks of a patch and drop others; the editor then applies only those. The server sees the
result as the document's new text and tells the model which hunks made it in.
"""

from __future__ import annotations

from functools import cache

from tools.patches.model import FilePatch, lines_with_ends

__all__ = ["hunks_in"]


def hunks_in(file: FilePatch, text: str) -> tuple[int, ...] | None:
    """The numbers (1-based) of `file`'s hunks that `text` holds, when `text` is the
    file's `before` with exactly those hunks applied; None when it is anything else."""
    before = lines_with_ends(file.before or "")
    after = lines_with_ends(file.after or "")
    spans = [
        (max(span.old_start - 1, 0) if span.old_len else span.old_start, span)
        for span in file.hunks
    ]
    pieces: list[tuple[list[str], list[str]]] = []  # (old, new) per hunk
    gaps: list[list[str]] = []
    position = 0
    for start, span in spans:
        gaps.append(before[position:start])
        new_start = max(span.new_start - 1, 0) if span.new_len else span.new_start
        pieces.append(
            (before[start : start + span.old_len], after[new_start : new_start + span.new_len])
        )
        position = start + span.old_len
    gaps.append(before[position:])
    lines = lines_with_ends(text)

    @cache
    def match(index: int, at: int) -> tuple[int, ...] | None:
        """Hunks from `index` on, with `lines[at:]` to account for (gap `index` first)."""
        gap = gaps[index]
        if lines[at : at + len(gap)] != gap:
            return None
        at += len(gap)
        if index == len(pieces):
            return () if at == len(lines) else None
        old, new = pieces[index]
        for chosen, block in ((True, new), (False, old)):
            if lines[at : at + len(block)] == block:
                rest = match(index + 1, at + len(block))
                if rest is not None:
                    return (index + 1, *rest) if chosen else rest
        return None

    return match(0, 0)
