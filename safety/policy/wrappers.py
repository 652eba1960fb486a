"""Judge wrappers (``env``, ``time``, ``xargs``, ``sudo`` ...) and the command they run.

A wrapper's own options can matter as much as the command: ``env -C DIR`` and ``sudo -D``
move the command to another directory, ``time -o FILE`` and ``strace -o FILE`` write a
file, ``env -S`` runs a script, and ``xargs`` gives the command operands that arrive on
its input. GNU long options may be abbreviated (``env --ch=/``), and short options may
carry their value (``env -C/``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from safety.policy.args import resolve_long, split_word
from safety.policy.code_checks import printed_input
from safety.policy.paths import PathKind
from safety.policy.rules import WrapperRule
from safety.policy.shell import DYN, Word

if TYPE_CHECKING:
    from safety.policy.evaluator import Evaluator

INPUT_NAMES = Word("<names read from input>", ((DYN, "<names read from input>"),))
"""Stands for the operands xargs reads from its input when they cannot be seen."""
LISTED_FILE = Word.literal("listed-file")
"""Stands for a name printed by a lister that skips hidden and ignored files (``rg -l``,
``fd``, ``git ls-files``) run on the workspace: a workspace file that is not a secret."""
_MAX_INPUT_NAMES = 64
_LISTERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # program: (flags that make it print file names, flags that widen what it lists)
    "rg": (
        frozenset({"-l", "--files-with-matches", "--files", "--files-without-match"}),
        frozenset({"--hidden", "-.", "-u", "-uu", "-uuu", "--no-ignore", "-L", "--follow"}),
    ),
    "fd": (
        frozenset({""}),
        frozenset({"-H", "--hidden", "-I", "--no-ignore", "-u", "--unrestricted", "-L"}),
    ),
    "git": (frozenset({"ls-files"}), frozenset({"-o", "--others", "-i", "--ignored"})),
}
_SPLIT_FLAGS = frozenset({"-0", "--null", "-d", "--delimiter"})


def judge_wrapper(ev: Evaluator, spec: WrapperRule, words: Sequence[Word], depth: int) -> None:
    """Judge a wrapper and the command it runs (a directory it sets holds for that only)."""
    ev.add(spec.verdict, spec.reason, spec.rule, None, specific=False)
    saved = ev.cwd
    try:
        _judge(ev, spec, words, depth)
    finally:
        ev.cwd = saved


class _Options:
    """What the wrapper's options said about the command's input."""

    def __init__(self) -> None:
        self.replace: str | None = None
        self.names_from_file = False
        self.split_unusual = False


def _judge(ev: Evaluator, spec: WrapperRule, words: Sequence[Word], depth: int) -> None:
    options = _Options()
    i = _read_options(ev, spec, words, options)
    if i is None:
        return
    for skipped in words[i : i + spec.skip]:
        if spec.skipped == "write":
            ev.path_write(skipped)
    inner = list(words[i + spec.skip :])
    if spec.join and inner:
        if all(w.is_static for w in inner):
            ev.inline(Word.literal(" ".join(w.value for w in inner)), spec.name)
        else:
            ev.hit("program.dynamic", f"{spec.name} runs a command built at run time")
        return
    if not inner:
        if spec.default_command:
            inner = [Word.literal(w) for w in spec.default_command]
        elif spec.alone == "env_dump":
            ev.hit("env.dump", spec.name)
            return
        elif spec.alone == "approve":
            ev.hit("program.unknown", f"{spec.name} without a command")
            return
        else:
            return
    if not spec.operands_from_input:
        ev.argv(inner, depth + 1)
        return
    for argv in _with_input(ev, inner, options):
        ev.argv(argv, depth + 1)


def _read_options(
    ev: Evaluator, spec: WrapperRule, words: Sequence[Word], options: _Options
) -> int | None:
    """Judge the wrapper's options; the index of the command, or None when the wrapper
    runs no command of its own (``command -v``) or a script (``env -S``, judged here)."""
    i = 1
    while i < len(words):
        word = words[i]
        value = word.value
        if spec.assignments and not value.startswith("-") and "=" in value[1:]:
            ev.assignment(value.split("=", 1)[0])
            i += 1
            continue
        if not value.startswith("-") or value == "-":
            break
        i += 1
        if value == "--":
            break
        name, eq, _ = value.partition("=")
        attached = split_word(word, len(name) + 1) if eq else None
        if spec.operands_from_input and value.startswith("-i") and not value.startswith("--"):
            options.replace = value[2:] or "{}"
            continue
        if not value.startswith("--") and len(value) > 2 and not eq and _short(spec, value[:2]):
            name, attached = value[:2], split_word(word, 2)
        names = resolve_long(name, spec.known_long) if name.startswith("--") else (name,)
        known = spec.long_options is None or any(n in spec.known_long for n in names)
        if name.startswith("--") and not known:
            ev.hit("program.unknown_option", f"{spec.name} {name}")
        if any(n in spec.lookup_flags for n in names):
            return None
        script_flag = next((n for n in names if n in spec.script_flags), None)
        if script_flag is not None:
            ev.inline(attached if attached is not None else _at(words, i), f"{spec.name} {name}")
            return None
        kinds = [spec.path_flags[n] for n in names if n in spec.path_flags]
        taken = attached
        if taken is None and (kinds or any(n in spec.value_flags for n in names)):
            taken = _at(words, i)
            i += 1
        _options(ev, spec, names, kinds=kinds, taken=taken, options=options)
    return i


def _short(spec: WrapperRule, flag: str) -> bool:
    return flag in spec.path_flags or flag in spec.value_flags or flag in spec.script_flags


def _options(
    ev: Evaluator,
    spec: WrapperRule,
    names: Sequence[str],
    *,
    kinds: Sequence[str],
    taken: Word | None,
    options: _Options,
) -> None:
    if spec.operands_from_input:
        if "-I" in names and taken is not None:
            options.replace = taken.value
        if "--replace" in names:
            options.replace = taken.value if taken is not None else "{}"
        if any(n in _SPLIT_FLAGS for n in names):
            options.split_unusual = True
    if taken is None:
        return
    if spec.assignments and any(n in ("-u", "--unset") for n in names):
        ev.unassignment(taken.value)
    for kind in kinds:
        if kind == "read":
            ev.path_read(taken)
        elif kind == "write":
            ev.path_write(taken)
        elif kind == "chdir":
            ev.chdir(taken)
        else:  # operands: a file names the command's operands
            ev.path_read(taken)
            options.names_from_file = True


def _with_input(ev: Evaluator, inner: list[Word], options: _Options) -> list[list[Word]]:
    """The command lines xargs may run: its input, when printed by static printers in the
    same command, is judged name by name; otherwise an unknown name stands for it. Without
    a replace string the command also runs as given (on empty input)."""
    names: list[Word] = []
    text = None if options.names_from_file else input_text(ev)
    if text is None and not options.names_from_file and _from_workspace_lister(ev):
        text = LISTED_FILE.value
    if text is not None:
        names = [Word.literal(n) for n in text.split()[:_MAX_INPUT_NAMES]]
        if len(text.split()) > _MAX_INPUT_NAMES:
            names.append(INPUT_NAMES)
    if text is None or options.split_unusual or not names:
        names.append(INPUT_NAMES)
    replace = options.replace
    if replace is None:
        # GNU xargs runs the command once even when its input is empty
        return [list(inner), [*inner, *names]]
    out: list[list[Word]] = []
    for name in names:
        out.append([_substitute(w, replace, name) for w in inner])
    return out


def _from_workspace_lister(ev: Evaluator) -> bool:
    """True when every command piped into this one is a lister of workspace files."""
    parsed, command = ev.script_commands, ev.command
    if parsed is None or command is None or not command.piped_stdin or not command.upstream:
        return False
    for index in command.upstream:
        words = parsed.commands[index].words
        if not words or not all(w.is_static for w in words):
            return False
        listing = _LISTERS.get(words[0].value)
        if listing is None:
            return False
        prints, widens = listing
        values = [w.value for w in words[1:]]
        if "" not in prints and not prints & set(values):
            return False
        if widens & set(values) or any(v.startswith("-u") for v in values):
            return False
        for word in words[1:]:
            if not word.value.startswith("-") and any(
                i.kind is PathKind.OUTSIDE for i in ev.classify(word)
            ):
                return False
    return True


def _substitute(word: Word, replace: str, name: Word) -> Word:
    if not replace or replace not in word.value:
        return word
    if not word.is_static or not name.is_static:
        return INPUT_NAMES
    return Word.literal(word.value.replace(replace, name.value))


def _at(words: Sequence[Word], i: int) -> Word | None:
    return words[i] if i < len(words) else None


def input_text(ev: Evaluator) -> str | None:
    """The text static printers pipe into the command being judged, or None."""
    if ev.script_commands is None or ev.command is None or not ev.command.piped_stdin:
        return None
    return printed_input(ev.script_commands, ev.command, ev)
