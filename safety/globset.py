"""Fast matching of a name against many shell-style glob patterns."""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import fnmatchcase, translate


class GlobSet:
    """Patterns compiled into one set lookup plus one regular expression."""

    __slots__ = ("_exact", "_fold", "_regex", "patterns")

    def __init__(self, patterns: Iterable[str], *, fold_case: bool = False) -> None:
        self.patterns = tuple(patterns)
        self._fold = fold_case
        keyed = [p.lower() if fold_case else p for p in self.patterns]
        self._exact = frozenset(p for p in keyed if not any(c in p for c in "*?["))
        globs = [p for p in keyed if p not in self._exact]
        self._regex = re.compile("|".join(translate(p) for p in globs)) if globs else None

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        key = name.lower() if self._fold else name
        return key in self._exact or (self._regex is not None and bool(self._regex.match(key)))

    def first_match(self, name: str) -> str | None:
        """The first pattern (in the given order) that matches ``name``."""
        if name not in self:
            return None
        key = name.lower() if self._fold else name
        for pattern in self.patterns:
            if fnmatchcase(key, pattern.lower() if self._fold else pattern):
                return pattern
        return None
