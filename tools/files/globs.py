"""Glob patterns as the file tools match them (`*.py` at any depth, `**`, braces)."""

from __future__ import annotations

import re
from collections.abc import Callable

from safety.braces import expand_braces

GLOB_CHARS = frozenset("*?[{")


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A matcher for a validated glob: without '/' it matches the file name at any depth.

    ``**`` matches any number of directories, ``*`` and ``?`` stay within one path
    component, ``{a,b}`` alternatives are expanded, and a leading ``!`` negates.
    """
    negate = pattern.startswith("!")
    body = pattern[1:] if negate else pattern
    variants = expand_braces(body) or [body]
    regexes: list[tuple[bool, re.Pattern[str]]] = []
    for variant in variants:
        text = variant
        while text.startswith("./"):
            text = text[2:]
        if text in ("", "."):
            text = "**"
        if text.endswith("/"):
            text += "**"
        regexes.append(("/" not in text, re.compile(_glob_regex(text))))

    def match(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        hit = any(rx.fullmatch(name if by_name else path) for by_name, rx in regexes)
        return hit != negate

    return match


def _glob_regex(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/"):
            if i + 2 == n:
                out.append(".*")
                i += 2
                continue
            if glob[i + 2] == "/":
                out.append("(?:.*/)?")
                i += 3
                continue
        if ch == "*":
            while i + 1 < n and glob[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            close = glob.find("]", i + 2)
            if close < 0:
                out.append(re.escape(ch))
            else:
                inner = glob[i + 1 : close]
                if inner[0] in "!^":
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)
