"""The data model of parsed shell commands, and helpers that only need words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from safety.policy.shell.words import Word

EXPANSION = "${"
"""Program word of the pseudo-command standing for variable expansions outside a command's
words (``[[ $X == a* ]]``, ``case $X in``, a ``for`` list, a here-document body): its one
argument is the expansion, so the variables it reads are judged like any word's."""
SHELLS: frozenset[str] = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash"}
)


@dataclass(frozen=True)
class Redirect:
    """A redirection: operator, optional fd, target word and here-doc/here-string text."""

    op: str
    fd: str | None = None
    target: Word | None = None
    text: str | None = None
    source: Word | None = None
    """The word a here-string feeds the command (``<<< "$X"``)."""


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command; ``words[0]`` is the program (absent for bare assignments)."""

    index: int
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    upstream: frozenset[int] = frozenset()
    piped_stdin: bool = False
    origin: str = ""
    function: str | None = None
    inline_parsed: bool = False
    text: str = ""

    def linked(
        self,
        upstream: frozenset[int],
        *,
        piped_stdin: bool | None = None,
        inline_parsed: bool | None = None,
        function: str | bool | None = True,
    ) -> SimpleCommand:
        """A copy with more upstream links (and other flags); ``function=True`` keeps it.
        Much faster than ``dataclasses.replace``, which walks the fields every call."""
        return SimpleCommand(
            self.index,
            self.words,
            self.assignments,
            self.redirects,
            self.upstream | upstream if upstream else self.upstream,
            self.piped_stdin if piped_stdin is None else piped_stdin,
            self.origin,
            self.function if function is True else function or None,
            self.inline_parsed if inline_parsed is None else inline_parsed,
            self.text,
        )

    @property
    def program(self) -> Word | None:
        """The program word, if any."""
        return self.words[0] if self.words else None

    @property
    def args(self) -> tuple[Word, ...]:
        """The argument words."""
        return self.words[1:]


@dataclass(frozen=True)
class ParsedScript:
    """The simple commands of a script, parse errors and defined function names."""

    commands: tuple[SimpleCommand, ...]
    errors: tuple[str, ...]
    functions: frozenset[str]
    too_complex: bool = False
    """More syntax nodes than the parser was allowed to walk (nothing was listed)."""

    @property
    def ok(self) -> bool:
        """True when the whole input parsed (and was not too complex to walk)."""
        return not self.errors and not self.too_complex

    def sources(self, index: int, *, limit: int | None = None) -> frozenset[int]:
        """Every command whose output or value reaches command ``index`` (the transitive
        closure of ``upstream``); at most ``limit`` of them when a limit is given."""
        seen: set[int] = set()
        stack = list(self.commands[index].upstream)
        while stack:
            current = stack.pop()
            if current in seen or not 0 <= current < len(self.commands):
                continue
            seen.add(current)
            if limit is not None and len(seen) > limit:
                break
            stack.extend(self.commands[current].upstream)
        return frozenset(seen)


@dataclass(frozen=True)
class InlineScript:
    """A script passed as text to a shell (``-c``), ``eval`` or ``env -S``."""

    kind: str
    script: str | None


def program_name(word: Word) -> str:
    """The program's base name (``/usr/bin/rm`` -> ``rm``) from its value."""
    return word.value.rstrip("/").rsplit("/", 1)[-1]


def inline_script(words: Sequence[Word], shells: frozenset[str] = SHELLS) -> InlineScript | None:
    """The script text a shell ``-c``/``eval`` runs; ``script`` None when not static."""
    if not words:
        return None
    name = program_name(words[0])
    args = words[1:]
    if name == "eval":
        if all(w.is_static for w in args):
            return InlineScript("eval", " ".join(w.value for w in args))
        return InlineScript("eval", None)
    if name not in shells:
        return None
    want_script = False
    skip_next = False
    for word in args:
        value = word.value
        if skip_next:
            skip_next = False
            continue
        if want_script:
            return InlineScript("shell -c", value if word.is_static else None)
        if value == "--":
            continue
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            skip_next = True
        elif value.startswith("-") and not value.startswith("--") and "c" in value[1:]:
            want_script = True
        elif not value.startswith(("-", "+")):
            return None
    return InlineScript("shell -c", None) if want_script else None
