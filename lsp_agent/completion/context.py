"""The text around the cursor that a fill-in-the-middle prompt is made of.

The layout is llama.vim's, with one change that keeps keystrokes cheap:

    <|fim_prefix|>PREFIX<|fim_suffix|>SUFFIX<|fim_middle|>MIDDLE   (the model writes on)

- PREFIX: whole lines before the *anchor* line (at most `prefix_lines` lines and
  `prefix_chars` characters, cut at a line start);
- MIDDLE: the lines from the anchor to the cursor's line, then the cursor line up to the cursor;
- SUFFIX: the rest of the cursor line, a line break, and up to `suffix_lines` lines after it.

llama.vim puts only the cursor line in MIDDLE, so pressing Enter changes the end of PREFIX and
the server re-reads SUFFIX. Here the anchor stays where it was while the cursor is at most
`middle_lines` lines below it and the lines before it are unchanged (`choose_anchor`): typing,
Enter included, then only appends to MIDDLE, the end of the prompt, and a model that keeps its
KV cache reads only the new tokens.

A cursor line that holds only whitespace is left out of MIDDLE (the model writes the
indentation itself, as llama.vim does; `postprocess.finish` removes what is already typed).
The block rule's indent (`indent`, llama.vim's `n_indent`) is the cursor line's; on a blank
line, the nearest non-blank line's above (llama.vim uses 0 there and lets the model run on
into the next function).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from lsp_agent.completion.config import CompletionConfig

NEXT_LINES = 8  # lines after the cursor line kept for the re-typing checks


@dataclass(frozen=True)
class Anchor:
    """Where MIDDLE starts in one document, and a digest of the PREFIX lines before it."""

    uri: str
    line: int
    digest: str


@dataclass(frozen=True)
class FimContext:
    """One request's local context (see the module doc)."""

    path: str
    prefix: str
    middle: str
    suffix: str
    line_prefix: str
    line_suffix: str
    indent: int
    next_lines: tuple[str, ...]
    line: int
    anchor: int

    @property
    def blank_line(self) -> bool:
        """The cursor line holds only whitespace (left out of MIDDLE)."""
        return not (self.line_prefix + self.line_suffix).strip()

    @property
    def single_line(self) -> bool:
        """Text after the cursor on its line: the completion ends with the line."""
        return bool(self.line_suffix.strip())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _block_indent(lines: Sequence[str], line: int) -> int:
    """On a blank line: the indentation of the nearest non-blank line above (0 at the top)."""
    for row in range(min(line, len(lines)) - 1, -1, -1):
        if lines[row].strip():
            return _indent(lines[row])
    return 0


def prefix_window(lines: Sequence[str], anchor: int, config: CompletionConfig) -> list[str]:
    """The PREFIX lines before `anchor` (bounded in lines, then in characters)."""
    window = list(lines[max(0, anchor - config.prefix_lines) : anchor])
    size = sum(len(line) + 1 for line in window)
    while window and size > config.prefix_chars:
        size -= len(window.pop(0)) + 1
    return window


def _digest(window: Sequence[str]) -> str:
    return hashlib.blake2b("\n".join(window).encode(), digest_size=16).hexdigest()


def choose_anchor(
    previous: Anchor | None,
    uri: str,
    lines: Sequence[str],
    line: int,
    config: CompletionConfig,
) -> Anchor:
    """Keep the previous anchor of `uri` while the cursor is within `middle_lines` below it
    and the PREFIX lines before it are unchanged; otherwise anchor at the cursor line."""
    if (
        previous is not None
        and previous.uri == uri
        and previous.line <= line <= previous.line + config.middle_lines
        and _digest(prefix_window(lines, previous.line, config)) == previous.digest
    ):
        return previous
    return Anchor(uri, line, _digest(prefix_window(lines, line, config)))


def build_context(
    path: str,
    lines: Sequence[str],
    *,
    line: int,
    character: int,
    anchor: Anchor,
    config: CompletionConfig,
) -> FimContext:
    """The FIM context at (`line`, `character`) of `lines` (no line breaks; `character` is an
    index into the Python string, already clamped to the line)."""
    current = lines[line] if line < len(lines) else ""
    line_prefix, line_suffix = current[:character], current[character:]
    start = min(anchor.line, line)
    prefix_lines = prefix_window(lines, start, config)
    prefix = "".join(text + "\n" for text in prefix_lines)
    middle = "".join(text + "\n" for text in lines[start:line])
    blank = not current.strip()
    if not blank:
        middle += line_prefix
    following = list(lines[line + 1 : line + 1 + config.suffix_lines])
    suffix = ("" if blank else line_suffix) + "\n" + "".join(text + "\n" for text in following)
    if len(suffix) > config.suffix_chars:
        cut = suffix.rfind("\n", 0, config.suffix_chars)
        suffix = suffix[: cut + 1] if cut >= 0 else suffix[: config.suffix_chars]
    return FimContext(
        path=path,
        prefix=prefix,
        middle=middle,
        suffix=suffix,
        line_prefix=line_prefix,
        line_suffix=line_suffix,
        indent=_block_indent(lines, line) if blank else _indent(current),
        next_lines=tuple(lines[line + 1 : line + 1 + NEXT_LINES]),
        line=line,
        anchor=start,
    )
