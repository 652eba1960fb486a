"""What a file name says beyond the sensitive-name patterns: backups, templates, source code.

A secret keeps its content under the names editors and people give its copies: ``.env~``,
``#.env#``, ``.env.swp``, ``.npmrc.bak``, ``id_rsa.old`` (``original_names`` lists the
names a name may be a copy of). A template of a secret holds none: ``.env.local.example``,
``.env.production.template``, ``config/database.yml.sample`` (``is_template``). And a
source file named like a configuration file is code: ``kubeconfig.go``, ``id_rsa_test.go``
(``is_source_code``; only patterns with a wildcard give way to it, an exact name such as
``wp-config.php`` does not).
"""

from __future__ import annotations

import re

BACKUP_SUFFIXES: tuple[str, ...] = (
    ".bak",
    ".backup",
    ".old",
    ".orig",
    ".save",
    ".sav",
    ".swp",
    ".swo",
    ".swn",
    ".swx",
    ".tmp",
    ".temp",
    ".copy",
    ".prev",
    ".un",
    ".kate-swp",
    ".dpkg-old",
    ".rpmsave",
)
"""Suffixes of backups and editor files (``.un`` is what is left of vim's ``.un~``)."""

BACKUP_HINTS: tuple[str, ...] = ("*~", "#*#", ".#*", *("*" + s for s in BACKUP_SUFFIXES))
"""Globs matching every name that may be a backup (for a fast first look)."""

TEMPLATE_MARKERS = frozenset(
    {
        "example",
        "examples",
        "sample",
        "samples",
        "template",
        "templates",
        "tmpl",
        "tpl",
        "dist",
        "defaults",
        "skel",
        "stub",
    }
)
"""The last extension (``.env.local.example``) or first word (``example.env``) of a
template's name."""

SOURCE_EXTENSIONS = frozenset(
    {
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "mts",
        "cts",
        "tsx",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "scala",
        "groovy",
        "rb",
        "php",
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "cs",
        "fs",
        "swift",
        "m",
        "mm",
        "lua",
        "pl",
        "pm",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "clj",
        "dart",
        "vue",
        "svelte",
        "zig",
        "nim",
        "jl",
        "r",
        "md",
        "rst",
        "adoc",
    }
)
_MAX_STRIPS = 3


_MAYBE_COPY = re.compile(
    "|".join([r"~$", r"^#.*#$", r"^\.#", *(re.escape(s) + "$" for s in BACKUP_SUFFIXES)]),
    re.IGNORECASE,
)


def original_names(name: str) -> list[str]:
    """``name`` and the names it may be a backup or editor file of, nearest first:
    ``.env.swp`` -> ``.env``; ``#.env#`` -> ``.env``; ``..env.swp`` (vim) -> ``.env``."""
    if not _MAYBE_COPY.search(name):
        return [name]
    out = [name]
    frontier = [name]
    for _ in range(_MAX_STRIPS):
        found = [c for n in frontier for c in _stripped(n) if c and c not in out]
        out.extend(dict.fromkeys(found))
        frontier = found
        if not frontier:
            break
    return out


def _stripped(name: str) -> list[str]:
    lower = name.lower()
    out: list[str] = []
    if name.endswith("~"):
        out.append(name[:-1])
    if len(name) > 2 and name.startswith("#") and name.endswith("#"):
        out.append(name[1:-1])
    if name.startswith(".#"):
        out.append(name[2:])
    for suffix in BACKUP_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            base = name[: -len(suffix)]
            out.append(base)
            if base.startswith(".."):
                out.append(base[1:])  # vim names the swap file of ".env" "..env.swp"
    return out


def is_template(name: str) -> bool:
    """True for a template's name: ``.env.example``, ``database.yml.sample``,
    ``example.env``."""
    parts = name.lower().split(".")
    if len(parts) < 2:
        return False
    return parts[-1] in TEMPLATE_MARKERS or parts[0] in TEMPLATE_MARKERS


def is_source_code(name: str) -> bool:
    """True when the name's extension is a programming language's (or documentation's)."""
    stem, dot, extension = name.lower().rpartition(".")
    return bool(dot and stem.strip(".")) and extension in SOURCE_EXTENSIONS
