"""What an approval question must point out: hidden characters and configuration files.

Approval text is data. A patch or command may hold characters that change how it looks
(bidirectional overrides that reorder a line, terminal escape sequences that erase lines,
a carriage return that overwrites one): :func:`visible` shows each as an escape
(``\\u202e``, ``\\x1b``) and :func:`hidden_characters` names them so the question can flag
them. A patch to the agent's or the editor's own configuration (``.lsp-agent/``, ``.env*``,
``.vscode/``, ``.gitattributes``, editor plugin files, ``AGENTS.md``) can change what runs
or what is allowed later; :func:`configuration_paths` picks those out.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

# Bidirectional formatting characters (Trojan Source, CVE-2021-42574) and invisible marks.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
_KEEP = frozenset("\n\t")

# Relative paths (POSIX, case-insensitive) of files that configure the agent or an editor.
CONFIG_PATTERNS: tuple[str, ...] = (
    ".lsp-agent/*",
    ".env",
    ".env.*",
    "*/.env",
    "*/.env.*",
    ".envrc",
    ".vscode/*",
    ".idea/*",
    ".zed/*",
    ".helix/*",
    ".nvim.lua",
    ".nvimrc",
    ".exrc",
    ".lazy.lua",
    ".editorconfig",
    ".gitattributes",
    "*/.gitattributes",
    ".gitmodules",
    ".pre-commit-config.yaml",
    "agents.md",
    "*/agents.md",
)


def _hidden(char: str) -> bool:
    if char in _KEEP:
        return False
    if char in BIDI or char in _ZERO_WIDTH:
        return True
    return unicodedata.category(char) == "Cc"  # C0, DEL, C1 (incl. ESC, CR, 0x9b CSI)


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control, bidi and zero-width character shown as an escape."""
    if not any(_hidden(c) for c in text):
        return text
    return "".join(_escaped(c) if _hidden(c) else c for c in text)


def hidden_characters(text: str) -> list[str]:
    """Names of the hidden characters in ``text`` (each once, in order of appearance)."""
    seen: dict[str, None] = {}
    for char in text:
        if _hidden(char):
            name = unicodedata.name(char, "CONTROL CHARACTER")
            seen.setdefault(f"{_escaped(char)} {name}", None)
    return list(seen)


def configuration_paths(paths: Iterable[str]) -> list[str]:
    """The paths among ``paths`` that configure the agent or an editor."""
    found: list[str] = []
    for path in paths:
        rel = PurePosixPath(path.replace("\\", "/")).as_posix().lower().lstrip("/")
        if any(fnmatchcase(rel, pattern) for pattern in CONFIG_PATTERNS):
            found.append(path)
    return found


def patch_flags(diff: str, paths: Iterable[str]) -> list[str]:
    """Warnings for a patch's approval question (empty when there is nothing to point out)."""
    flags: list[str] = []
    config = configuration_paths(paths)
    if config:
        flags.append(
            "CHANGES AGENT/EDITOR CONFIGURATION: "
            + ", ".join(config)
            + " (this can change what runs or what is allowed later)"
        )
    hidden = hidden_characters(diff)
    if hidden:
        shown = ", ".join(hidden[:5]) + (" …" if len(hidden) > 5 else "")
        flags.append(f"HIDDEN CHARACTERS (shown escaped): {shown}")
    return flags
