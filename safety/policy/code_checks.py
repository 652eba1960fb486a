"""Named checks for programs that run code: shells, eval, interpreters, make, sed, awk, jq.

Also the cross-command rule that code must not come from the network or a decoder
(``curl … | sh``, ``bash <(curl …)``, ``base64 -d | sh``). Checks only add findings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from safety.policy.args import ParsedArgs
from safety.policy.rules import ProgramRule
from safety.policy.shell import ParsedScript, SimpleCommand, Word, inline_script, program_name

if TYPE_CHECKING:
    from safety.policy.evaluator import Evaluator

INFO_FLAGS = frozenset({"--version", "-V", "-VV", "--help", "-h", "-v", "-version"})
_AWK_UNSAFE = re.compile(
    r"\b(system|getline|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|close|fflush|ARGV|ARGC)\b|@\w"
    r"|\||print[f]?\b[^;}]*>"
)
"""What an awk program may not do unasked: run commands (system, pipes), read files the
command line does not name (getline, ARGV/ARGC rewritten, gawk's @include/@load), call a
function by name (gawk's ``@f()``, ``SYMTAB``), write files, read the environment."""
_AWK_INFO_OPTIONS = frozenset({"version", "v", "usage", "help", "dump"})
_AWK_INFO_FLAGS = frozenset({"--version", "-V", "--help", "-h", "--copyright", "-C", "--usage"})
_JQ_ENVIRONMENT = re.compile(r"\$env\b|(?<![.\w$])env\b|\$__loc__|\$__prog")
_JQ_MODULES = re.compile(r"(?<![.\w$])(import|include)\b")
_SED_ADDR = re.compile(r"\s*(\d+(~\d+)?|\$|/(\\.|[^/\\])*/[IM]*|\\(.)(?:(?!\4).)*\4)?")
_SED_SIMPLE = frozenset("pdDnNPgGhHxlz=")
_SED_FLAGS = re.compile(r"[gpiImM0-9]*")


def check_sed(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """sed: only scripts built from print/delete/substitute commands are safe; -i writes."""
    scripts = args.values("-e", "--expression")
    files = list(args.positionals)
    if args.has("-f", "--file"):
        ev.hit("sed.script", "script read from a file")
    elif not scripts and files:
        scripts, files = [files[0]], files[1:]
    for script in scripts:
        if not script.is_static or not sed_script_safe(script.value):
            ev.hit("sed.script", script.raw)
    if args.has("-i", "--in-place") or any(f.name.startswith("--in-place") for f in args.flags):
        for target in files:
            ev.path_write(target)


def sed_script_safe(script: str) -> bool:
    """True when a sed script only prints, deletes, substitutes or transliterates."""
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            return True
        for _ in range(2):
            match = _SED_ADDR.match(script, i)
            i = match.end() if match else i
            if i < n and script[i] == ",":
                i += 1
                continue
            break
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return False
        cmd = script[i]
        i += 1
        if cmd == "{":
            continue
        if cmd in _SED_SIMPLE or cmd == "}":
            pass
        elif cmd in "qQ":
            while i < n and script[i].isdigit():
                i += 1
        elif cmd in "sy":
            i = _sed_delimited(script, i, with_flags=cmd == "s")
            if i < 0:
                return False
        elif cmd in ":bt":
            while i < n and script[i] not in ";\n":
                i += 1
        else:
            return False
        while i < n and script[i] in " \t":
            i += 1
        if i < n and script[i] not in ";\n}":
            return False
    return True


def _sed_delimited(script: str, i: int, *, with_flags: bool) -> int:
    if i >= len(script) or script[i] in "\n\\":
        return -1
    delim = script[i]
    i += 1
    for _ in range(2):
        while i < len(script) and script[i] != delim:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return -1
        i += 1
    if with_flags:
        match = _SED_FLAGS.match(script, i)
        i = match.end() if match else i
    return i


def check_awk(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """awk: programs that run commands, write files or read the environment need approval."""
    info = [w.value for w in args.values("-W")]
    if not args.positionals and info and all(v in _AWK_INFO_OPTIONS for v in info):
        return
    if not args.positionals and args.flags and all(f.name in _AWK_INFO_FLAGS for f in args.flags):
        return
    if args.has("-f", "--file", "-E", "--exec", "-i", "--include") or not args.positionals:
        ev.hit("awk.script", "program read from a file")
        return
    if args.has("-l", "--load"):
        ev.hit("awk.script", "loads an extension library")
    for option in args.values("-W"):
        if option.value not in _AWK_INFO_OPTIONS:
            ev.hit("awk.script", f"-W {option.raw}")
    program = args.positionals[0]
    for text in (program, *args.values("-e", "--source")):
        if not text.is_static or _AWK_UNSAFE.search(text.value):
            ev.hit("awk.script", text.raw)


def check_jq(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """jq: a program read from a file cannot be judged; one that reads the environment
    (``$ENV``, ``env``, ``$__loc__``) counts as an environment dump; ``import`` and
    ``include`` read modules and data files from the library path."""
    if args.has("-f", "--from-file"):
        ev.hit("jq.program_reads", "the program is read from a file")
        return
    program = args.positionals[0] if args.positionals else None
    if program is None:
        return
    if not program.is_static:
        ev.hit("jq.program_reads", f"a program only known at run time: {program.raw}")
    elif _JQ_ENVIRONMENT.search(program.value.lower()):
        ev.hit("env.dump", f"jq {program.raw}")
    elif _JQ_MODULES.search(program.value):
        ev.hit("jq.program_reads", f"imports modules: {program.raw}")


def check_shell(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """Shells: ``-c`` scripts are parsed and judged; scripts and stdin need approval."""
    name = words[0].value
    rest = [w.value for w in words[1:]]
    if rest and all(v in ("--version", "--help") for v in rest):
        return
    ev.code_from_upstream.add(ev.index)
    found = inline_script(words, frozenset(ev.rules.groups["shells"].patterns))
    if found is not None:
        ev.hit("interpreter.inline_code", f"{name} -c")
        if found.script is None:
            ev.hit("shell.dynamic_script", f"{name} -c")
        elif not ev.inline_done:
            ev.script(found.script, f"{name} -c")
        return
    script = next((w for w in words[1:] if not w.value.startswith(("-", "+"))), None)
    if script is None:
        ev.stdin_script.add(ev.index)
        ev.hit("shell.script", f"{name} reads commands from its input")
    else:
        ev.hit("shell.script", script.raw)


def check_eval(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """eval: the joined arguments are parsed and judged as a script."""
    ev.code_from_upstream.add(ev.index)
    found = inline_script(words)
    if found is None or found.script is None:
        ev.hit("shell.dynamic_script", "eval")
    elif not ev.inline_done:
        ev.script(found.script, "eval")


def check_source(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """source/.: the file runs in this shell."""
    ev.code_from_upstream.add(ev.index)


def check_interpreter(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, depth: int
) -> None:
    """Interpreters: --version is fine, ``-m`` maps to a program rule, code needs approval."""
    name = words[0].value
    rest = list(words[1:])
    if rest and all(w.value in INFO_FLAGS for w in rest):
        return
    i = 0
    while i < len(rest):
        word = rest[i]
        value = word.value
        if _is_inline(value, rule.inline_flags):
            ev.hit("interpreter.inline_code", f"{name} {value}")
            code = rest[i + 1] if i + 1 < len(rest) else None
            if code is None or not code.is_static:
                ev.code_from_upstream.add(ev.index)
            return
        if rule.modules and value.startswith("-m"):
            module_word = Word.literal(value[2:]) if len(value) > 2 else _at(rest, i + 1)
            after = rest[i + 1 :] if len(value) > 2 else rest[i + 2 :]
            target = rule.modules.get(module_word.value) if module_word else None
            ev.hit(
                "interpreter.module_from_cwd", f"{name} -m {module_word.raw if module_word else ''}"
            )
            if target is None:
                ev.hit("interpreter.script", f"{name} -m {module_word.raw if module_word else ''}")
            else:
                ev.argv([Word.literal(target), *after], depth + 1)
            return
        if value in ("-X", "-W", "-Q"):
            i += 2
            continue
        if value.startswith("-") and value != "-":
            i += 1
            continue
        if value == "-" or word.has_substitution:
            ev.code_from_upstream.add(ev.index)
        else:
            ev.path_read(word)
        ev.hit("interpreter.script", f"{name} {word.raw}")
        return
    ev.code_from_upstream.add(ev.index)
    ev.hit("interpreter.script", f"{name} reads code from its input")


def _is_inline(value: str, inline_flags: Sequence[str]) -> bool:
    for flag in inline_flags:
        if value == flag or (flag.startswith("--") and value.startswith(flag + "=")):
            return True
        short = len(flag) == 2 and flag[0] == "-"
        if short and value.startswith("-") and not value.startswith("--") and flag[1] in value[1:]:
            return True
    return False


def _at(words: Sequence[Word], i: int) -> Word | None:
    return words[i] if i < len(words) else None


def check_make(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """make: only the configured test/lint targets are runner-like; other recipes need approval."""
    plain_flags = {"-j", "-k", "-s", "--silent", "-C", "--directory", "-NUM", "--keep-going"}
    odd = [f.name for f in args.flags if f.name not in plain_flags and not f.name.startswith("-j")]
    targets = [w for w in args.positionals if "=" not in w.value]
    overrides = [w for w in args.positionals if "=" in w.value]
    known = ev.rules.make_test_targets
    if targets and not odd and not overrides and all(t.value in known for t in targets):
        ev.hit("runner.test_target", " ".join(t.value for t in targets))
    else:
        ev.hit("runner.other_target", " ".join(w.raw for w in words[1:]) or "default target")


def check_code_sources(ev: Evaluator, parsed: ParsedScript) -> None:
    """Code run by a shell/interpreter must not come from the network or a decoder.

    Linear in the number of commands and links: which network programs and decoders
    reach each command is computed once, in index order, from its direct ``upstream``.
    """
    if not ev.code_from_upstream:
        return
    reach = _reaching_sources(ev, parsed)
    for cmd in parsed.commands:
        if cmd.index not in ev.code_from_upstream:
            continue
        network, decoders = reach[cmd.index]
        ev.current = cmd.text
        if network:
            ev.hit("deny.pipe_to_shell", ", ".join(sorted(network)))
        elif decoders:
            ev.hit("deny.decode_to_shell", ", ".join(sorted(decoders)))
        elif cmd.index in ev.stdin_script and cmd.piped_stdin:
            text = printed_input(parsed, cmd, ev)
            if text is None:
                ev.hit("shell.stdin_script")
            else:
                ev.script(text, "piped")


_NONE: frozenset[str] = frozenset()


def _reaching_sources(
    ev: Evaluator, parsed: ParsedScript
) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Per command: the network programs and decoders whose output reaches it."""
    own: list[tuple[frozenset[str], frozenset[str]]] = []
    for cmd in parsed.commands:
        names = ev.names.get(cmd.index, ())
        own.append(
            (
                frozenset(n for n in names if ev.rules.in_group("network", n)),
                frozenset(n for n in names if ev.rules.in_group("decoders", n)),
            )
        )
    reach: list[tuple[frozenset[str], frozenset[str]] | None] = [None] * len(own)
    for index in _topological(parsed):
        network: frozenset[str] = _NONE
        decoders: frozenset[str] = _NONE
        for up in parsed.commands[index].upstream:
            if not 0 <= up < len(own):
                continue
            up_reach = reach[up] or (_NONE, _NONE)
            network = network | own[up][0] | up_reach[0]
            decoders = decoders | own[up][1] | up_reach[1]
        reach[index] = (network, decoders)
    return [r or (_NONE, _NONE) for r in reach]


def _topological(parsed: ParsedScript) -> list[int]:
    """Command indices, every command after the commands upstream of it."""
    order: list[int] = []
    state = [0] * len(parsed.commands)  # 0 new, 1 on the stack, 2 done
    for root in range(len(parsed.commands)):
        if state[root]:
            continue
        stack = [(root, False)]
        while stack:
            index, expanded = stack.pop()
            if expanded:
                state[index] = 2
                order.append(index)
                continue
            if state[index]:
                continue
            state[index] = 1
            stack.append((index, True))
            for up in parsed.commands[index].upstream:
                if 0 <= up < len(state) and state[up] == 0:
                    stack.append((up, False))
    return order


_MAX_PRINTED_SOURCES = 256


def printed_input(parsed: ParsedScript, cmd: SimpleCommand, ev: Evaluator) -> str | None:
    """The text static printers feed a shell's input, or None when it is not known.

    The walk upstream stops at the first command that is not a static printer, and after
    ``_MAX_PRINTED_SOURCES`` commands, so a long pipeline costs little per shell in it.
    """
    pieces: dict[int, list[str]] = {}
    stack = list(cmd.upstream)
    while stack:
        index = stack.pop()
        if index in pieces or not 0 <= index < len(parsed.commands):
            continue
        if len(pieces) >= _MAX_PRINTED_SOURCES:
            return None
        printed = _printed_by(parsed.commands[index], ev)
        if printed is None:
            return None
        pieces[index] = printed
        stack.extend(parsed.commands[index].upstream)
    return "\n".join(text for index in sorted(pieces) for text in pieces[index])


def _printed_by(up: SimpleCommand, ev: Evaluator) -> list[str] | None:
    if not up.words or not all(w.is_static for w in up.words):
        return None
    name = program_name(up.words[0])
    if not ev.rules.in_group("printers", name):
        return None
    values = [w.value for w in up.words[1:]]
    if name == "cat" and values:
        return None
    while values and values[0] in ("-n", "-e", "-E", "-ne", "-en"):
        values.pop(0)
    texts = [r.text or "" for r in up.redirects if r.op in ("<<", "<<-", "<<<")]
    texts.append(" ".join(values))
    return texts
