"""The held-out text the bench types: code lines of `acp` (agent-client-protocol 0.12), a
package released after the Qwen2.5-Coder models, and how a line is typed."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from lsp_agent.benchmarks.runner import BenchError

HELD_OUT_PACKAGE = "acp"
HELD_OUT_FILES = ("helpers.py", "router.py", "connection.py", "stdio.py")
BLOCK_LINES = 3  # consecutive lines typed in one place
WORDS_PER_LINE = 4
_WORD_END = re.compile(r"\w(?=\W)|\W(?=\w)")


@dataclass(frozen=True)
class Target:
    """A line of a held-out file to type (`text` without its line break)."""

    rel: str
    lines: tuple[str, ...]
    line: int

    @property
    def text(self) -> str:
        return self.lines[self.line]

    @property
    def indent(self) -> str:
        return self.text[: len(self.text) - len(self.text.lstrip())]


def _code_line(text: str) -> bool:
    body = text.strip()
    return text.startswith(" ") and 12 <= len(body) <= 90 and not body.startswith(("#", '"'))


def _held_out_starts(size: int) -> list[Target]:
    """Every code line of the held-out files followed by `size - 1` more code lines."""
    package = importlib.import_module(HELD_OUT_PACKAGE)
    root = Path(str(package.__file__)).parent
    eligible: list[Target] = []
    for name in HELD_OUT_FILES:
        lines = tuple((root / name).read_text(encoding="utf-8").splitlines())
        code = [_code_line(text) for text in lines]
        for index in range(len(lines) - size + 1):
            if all(code[index : index + size]):
                eligible.append(Target(f"{HELD_OUT_PACKAGE}/{name}", lines, index))
    if not eligible:
        raise BenchError(f"no held-out lines found in {root}")
    return eligible


def held_out_lines(count: int, offset: int = 0) -> list[Target]:
    """`count` code lines spread over the held-out files (indented, 12-90 characters)."""
    eligible = _held_out_starts(1)
    step = max(1, len(eligible) // max(1, count))
    return [eligible[(offset + i * step) % len(eligible)] for i in range(count)]


def held_out_blocks(count: int, offset: int = 0, size: int = BLOCK_LINES) -> list[list[Target]]:
    """`count` blocks of `size` consecutive code lines, spread over the held-out files."""
    eligible = _held_out_starts(size)
    step = max(1, len(eligible) // max(1, count))
    starts = [eligible[(offset + i * step) % len(eligible)] for i in range(count)]
    return [[replace(s, line=s.line + k) for k in range(size)] for s in starts]


def typing_steps(text: str) -> list[str]:
    """What is typed of `text` before each request: its indentation, then word by word."""
    indent = len(text) - len(text.lstrip())
    ends = [m.end() for m in _WORD_END.finditer(text, indent)]
    cuts = [indent, *ends[: WORDS_PER_LINE - 1]]
    return [text[:cut] for cut in sorted(set(cuts))]


def copy_held_out(root: Path) -> None:
    package = importlib.import_module(HELD_OUT_PACKAGE)
    source = Path(str(package.__file__)).parent
    (root / HELD_OUT_PACKAGE).mkdir()
    for name in HELD_OUT_FILES:
        (root / HELD_OUT_PACKAGE / name).write_bytes((source / name).read_bytes())
