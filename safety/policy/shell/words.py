"""Shell words after quote and escape removal, the decoders that produce them, and brace
expansion of a whole command line (``find . {-delete,}`` runs as ``find . -delete``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from safety.braces import expand_braces

LIT = "lit"
VAR = "var"
SUB = "sub"
DYN = "dyn"
UNKNOWN = "\x00"
"""Stands for a part of a word whose value is only known at run time."""
MAX_ARGV_WORDS = 256


@dataclass(frozen=True)
class Word:
    """One shell word: literal pieces and run-time pieces (variables, substitutions)."""

    raw: str
    segments: tuple[tuple[str, str], ...]
    quoted: bool = False
    escaped: bool = False
    ansi_c: bool = False
    value: str = field(init=False, repr=False, compare=False)
    """The text with each run-time piece replaced by ``UNKNOWN``."""
    is_static: bool = field(init=False, repr=False, compare=False)
    """True when the value is fully known before running."""

    def __post_init__(self) -> None:
        # computed once: words are read many times per evaluation
        segments = self.segments
        if len(segments) == 1 and segments[0][0] == LIT:
            value, static = segments[0][1], True
        else:
            value = "".join(text if kind == LIT else UNKNOWN for kind, text in segments)
            static = all(kind == LIT for kind, _ in segments)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "is_static", static)

    @classmethod
    def literal(cls, text: str) -> Word:
        """A plain word with a fixed value."""
        return cls(raw=text, segments=((LIT, text),))

    @property
    def is_plain(self) -> bool:
        """Static and written without quotes, escapes or ANSI-C quoting."""
        return self.is_static and not (self.quoted or self.escaped or self.ansi_c)

    @property
    def variables(self) -> tuple[str, ...]:
        """Names of variables expanded in this word."""
        return tuple(text for kind, text in self.segments if kind == VAR)

    @property
    def has_substitution(self) -> bool:
        """True when a command or process substitution is part of this word."""
        return any(kind == SUB for kind, _ in self.segments)

    def with_variables(self, known: Mapping[str, str]) -> str:
        """The value with variables from ``known`` filled in (others stay UNKNOWN)."""
        return "".join(
            text if kind == LIT else known.get(text, UNKNOWN) if kind == VAR else UNKNOWN
            for kind, text in self.segments
        )


def unescape_unquoted(text: str) -> str:
    """Remove backslash escapes from an unquoted word (``\\<newline>`` disappears)."""
    return _unescape(text, None)


def unescape_double_quoted(text: str) -> str:
    """Remove the backslash escapes that bash honours inside double quotes."""
    return _unescape(text, '$`"\\\n')


def _unescape(text: str, honoured: str | None) -> str:
    """Drop each backslash before a character of ``honoured`` (None: before any character);
    an escaped newline disappears with its backslash."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and (honoured is None or text[i + 1] in honoured):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_SIMPLE_ESCAPES: Mapping[str, str] = MappingProxyType(
    {
        "a": "\a",
        "b": "\b",
        "e": "\x1b",
        "E": "\x1b",
        "f": "\f",
        "n": "\n",
        "r": "\r",
        "t": "\t",
        "v": "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
    }
)
_HEX = "0123456789abcdefABCDEF"


def decode_ansi_c(body: str) -> str:
    """Decode the inside of a ``$'...'`` string the way bash does."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        i += 2
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
        elif esc in "01234567":
            digits = esc
            while i < n and len(digits) < 3 and body[i] in "01234567":
                digits += body[i]
                i += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = ""
            while i < n and len(digits) < width and body[i] in _HEX:
                digits += body[i]
                i += 1
            out.append(_safe_chr(int(digits, 16)) if digits else "\\" + esc)
        elif esc == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + esc)
    return "".join(out)


def _safe_chr(code: int) -> str:
    try:
        return chr(code)
    except (ValueError, OverflowError):
        return "\ufffd"


def expand_argv(words: Sequence[Word], *, limit: int = MAX_ARGV_WORDS) -> list[Word] | None:
    """The words bash runs after brace expansion of the unquoted words in ``words``:
    ``words`` itself when nothing expands, None when there would be more than ``limit``."""
    if not any("{" in w.raw and ("," in w.raw or ".." in w.raw) for w in words):
        return list(words)
    out: list[Word] = []
    for word in words:
        if not word.is_static or word.quoted or word.ansi_c or "{" not in word.raw:
            out.append(word)
            continue
        # braces expand before quote removal: an escaped word expands from its raw text
        variants = expand_braces(word.raw if word.escaped else word.value, limit=limit)
        if variants is None:
            return None
        if word.escaped:
            variants = [unescape_unquoted(v) for v in variants]
        # like bash, an empty result of an unquoted expansion is no word at all
        out.extend(Word.literal(v) for v in variants if v or len(variants) == 1)
        if len(out) > limit:
            return None
    return out
