"""Bounded shell-style brace expansion (``{a,b}`` and ``{1..3}``) for checking words."""

from __future__ import annotations

MAX_EXPANSIONS = 64


def expand_braces(text: str, *, limit: int = MAX_EXPANSIONS) -> list[str] | None:
    """Expand braces in ``text``; None when the result would exceed ``limit`` words."""
    out: list[str] = []
    pending = [text]
    while pending:
        item = pending.pop()
        split = _first_group(item)
        if split is None:
            out.append(item)
        else:
            head, alternatives, tail = split
            pending.extend(head + alt + tail for alt in reversed(alternatives))
        if len(out) + len(pending) > limit:
            return None
    return out


def _first_group(text: str) -> tuple[str, list[str], str] | None:
    """Find the first expandable ``{...}`` group: (before, alternatives, after)."""
    start = 0
    while True:
        open_at = text.find("{", start)
        if open_at < 0:
            return None
        depth = 0
        commas: list[int] = []
        close_at = -1
        for i in range(open_at, len(text)):
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    close_at = i
                    break
            elif ch == "," and depth == 1:
                commas.append(i)
        if close_at < 0:
            return None
        head, body, tail = text[:open_at], text[open_at + 1 : close_at], text[close_at + 1 :]
        if commas:
            cuts = [open_at, *commas, close_at]
            alts = [text[cuts[k] + 1 : cuts[k + 1]] for k in range(len(cuts) - 1)]
            return head, alts, tail
        seq = _sequence(body)
        if seq is not None:
            return head, seq, tail
        start = open_at + 1


def _sequence(body: str) -> list[str] | None:
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    lo, hi = parts[0], parts[1]
    step = 1
    if len(parts) == 3:
        if not parts[2].lstrip("-").isdigit():
            return None
        step = abs(int(parts[2])) or 1
    if lo.lstrip("-").isdigit() and hi.lstrip("-").isdigit():
        a, b = int(lo), int(hi)
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(rng) > MAX_EXPANSIONS:
            return [lo, hi]
        return [str(v) for v in rng]
    if len(lo) == 1 and len(hi) == 1:
        a, b = ord(lo), ord(hi)
        crng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(v) for v in crng][:MAX_EXPANSIONS]
    return None
