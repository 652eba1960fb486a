"""Split a program's argument words into flags (with values) and positionals."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from safety.policy.rules import ProgramRule
from safety.policy.shell import LIT, UNKNOWN, Word

_NUMBER_FLAG = re.compile(r"-\d+")


@dataclass(frozen=True)
class Flag:
    """A flag name (``-r``, ``--output``) and the value word it took, if any."""

    name: str
    value: Word | None = None
    attached: bool = False


@dataclass(frozen=True)
class ParsedArgs:
    """Flags and positionals; ``rest`` holds the words after the stop positional."""

    flags: tuple[Flag, ...]
    positionals: tuple[Word, ...]
    rest: tuple[Word, ...] = field(default=())

    def has(self, *names: str) -> bool:
        """True when any flag named in ``names`` was given."""
        return any(f.name in names for f in self.flags)

    def values(self, *names: str) -> list[Word]:
        """The value words of flags named in ``names``."""
        return [f.value for f in self.flags if f.name in names and f.value is not None]


def split_word(word: Word, offset: int) -> Word:
    """The part of ``word`` after the first ``offset`` characters of its value."""
    segments: list[tuple[str, str]] = []
    skip = offset
    for kind, text in word.segments:
        width = len(text) if kind == LIT else 1
        if skip >= width:
            skip -= width
            continue
        if kind == LIT:
            segments.append((LIT, text[skip:]))
        else:
            segments.append((kind, text))
        skip = 0
    raw = word.raw[offset:] if word.is_plain else word.raw
    return Word(raw, tuple(segments) or ((LIT, ""),), word.quoted, word.escaped, word.ansi_c)


def split_args(
    args: Sequence[Word], rule: ProgramRule, *, stop_at_positional: bool = False
) -> ParsedArgs:
    """Split ``args`` by ``rule`` (value flags, clustering of short flags)."""
    flags: list[Flag] = []
    positionals: list[Word] = []
    ended = False
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        if ended or not value.startswith("-") or value == "-" or value[1:2] == UNKNOWN:
            positionals.append(word)
            if stop_at_positional:
                return ParsedArgs(tuple(flags), tuple(positionals), tuple(args[i + 1 :]))
            i += 1
            continue
        if value == "--":
            ended = True
            i += 1
            continue
        if value.startswith("--") or not rule.clusters:
            name, eq, _ = value.partition("=") if value.startswith("--") else (value, "", "")
            names = resolve_long(name, rule.known_long) if name.startswith("--") else (name,)
            pair = next((n for n in names if n in rule.pair_flags), None)
            if pair is not None and not eq:
                flags.append(Flag(pair, _at(args, i + 2)))
                i += 3
                continue
            taken: Word | None = None
            if eq:
                taken = split_word(word, len(name) + 1)
            elif any(n in rule.value_flags for n in names) and i + 1 < len(args):
                taken = args[i + 1]
                i += 1
            flags.extend(Flag(n, taken, attached=bool(eq)) for n in names)
            i += 1
            continue
        if _NUMBER_FLAG.fullmatch(value):
            flags.append(Flag("-NUM", split_word(word, 1), attached=True))
            i += 1
            continue
        i = _cluster(args, i, rule, flags)
    return ParsedArgs(tuple(flags), tuple(positionals))


def resolve_long(name: str, known: Sequence[str]) -> tuple[str, ...]:
    """The long option(s) ``name`` stands for: itself when known or unknown, else every
    known option it abbreviates (GNU getopt accepts any unambiguous prefix, and git's
    parser does too)."""
    if name in known or len(name) < 3:
        return (name,)
    matches = tuple(k for k in known if k.startswith(name))
    return matches or (name,)


def _at(args: Sequence[Word], i: int) -> Word | None:
    return args[i] if i < len(args) else None


def _cluster(args: Sequence[Word], i: int, rule: ProgramRule, flags: list[Flag]) -> int:
    word = args[i]
    body = word.value[1:]
    for j, ch in enumerate(body):
        name = "-" + ch
        if ch == UNKNOWN:
            flags.append(Flag("-" + UNKNOWN))
            break
        if name in rule.value_flags:
            if j + 1 < len(body):
                flags.append(Flag(name, split_word(word, j + 2), attached=True))
            elif i + 1 < len(args):
                flags.append(Flag(name, args[i + 1]))
                i += 1
            else:
                flags.append(Flag(name))
            break
        flags.append(Flag(name))
    return i + 1
