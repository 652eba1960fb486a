"""Judge parsed shell commands against the policy rules; collects findings."""

from __future__ import annotations

from collections.abc import Sequence

from safety.policy.args import Flag, ParsedArgs, split_args, split_word
from safety.policy.checks import CHECKS
from safety.policy.code_checks import check_code_sources
from safety.policy.rules import ProgramRule, WrapperRule
from safety.policy.shell import ParsedScript, SimpleCommand, Word, expand_argv, parse, program_name
from safety.policy.targets import TargetJudge
from safety.policy.verdict import Verdict
from safety.policy.wrappers import judge_wrapper

MAX_WRAP_DEPTH = 8
_MAX_PROBES = 64


class Evaluator(TargetJudge):
    """Judges the commands of one ``CommandPolicy.evaluate`` call (not shared)."""

    # ---- scripts and simple commands --------------------------------------------
    def script(self, text: str, origin: str) -> None:
        """Judge an inner script (``bash -c`` text found after unwrapping, piped text)."""
        if self.nested >= 4:
            self.hit("parse.unparsable", f"{origin} scripts nested too deeply")
            return
        saved = (self.current, self.index, self.names, self.cwd, self.script_commands, self.command)
        self.nested += 1
        self.names = {}
        try:
            parsed = parse(
                text,
                shells=frozenset(self.rules.groups["shells"].patterns),
                max_nodes=self.rules.max_syntax_nodes,
            )
            self.run(parsed, origin)
        finally:
            self.nested -= 1
            (
                self.current,
                self.index,
                self.names,
                self.cwd,
                self.script_commands,
                self.command,
            ) = saved

    def run(self, parsed: ParsedScript, origin: str = "") -> None:
        """Judge every simple command of ``parsed`` plus the cross-command rules."""
        if parsed.too_complex:
            self.hit("input.too_complex", f"more than {self.rules.max_syntax_nodes} syntax nodes")
            return
        for error in parsed.errors:
            self.hit("parse.unparsable", f"{error}{' in ' + origin if origin else ''}")
        for cmd in parsed.commands:
            self.simple(cmd, parsed)
        self.cross(parsed)

    def simple(self, cmd: SimpleCommand, parsed: ParsedScript) -> None:
        """Judge one simple command."""
        self.current = cmd.text
        self.index = cmd.index
        self.script_commands, self.command = parsed, cmd
        self.names.setdefault(cmd.index, set())
        for redirect in cmd.redirects:
            self.redirect(redirect.op, redirect.target)
            for word in (redirect.target, redirect.source):
                if word is not None:
                    self.secret_variables(word)
        for name, value in cmd.assignments:
            self.assignment(name)
            self.secret_variables(value)
        for word in cmd.words:
            self.secret_variables(word)
        if not cmd.words:
            self.hit("shell.assignment")
            return
        program = cmd.words[0]
        if cmd.function is not None and program.value == cmd.function:
            self.hit("deny.fork_bomb", f"function {cmd.function!r} calls itself")
        if program.is_static and program.value in parsed.functions:
            self.hit("shell.function_call", program.value)
            return
        if program.is_static and not program.is_plain:
            self.hit("program.obfuscated", program.raw)
        self.argv(list(cmd.words), 0, inline_done=cmd.inline_parsed)
        self.brace_expanded(cmd)

    def brace_expanded(self, cmd: SimpleCommand) -> None:
        """Judge the command again as bash runs it after brace expansion (``find .
        {-delete,}`` is ``find . -delete``); too many words need approval."""
        if "{" not in cmd.text:
            return
        expanded = expand_argv(cmd.words)
        if expanded is None:
            self.hit("input.brace_expansion", cmd.text[:80])
        elif expanded and [w.raw for w in expanded] != [w.raw for w in cmd.words]:
            self.argv(expanded, 0)

    def argv(self, words: Sequence[Word], depth: int, *, inline_done: bool = False) -> None:
        """Judge a command given as words (after any wrappers were removed)."""
        if depth > MAX_WRAP_DEPTH:
            self.hit("program.unknown", "too many nested wrappers")
            return
        program = words[0]
        if not program.is_static or not program.value:
            self.hit("program.dynamic", program.raw)
            self.scan_embedded(words)
            return
        name = program_name(program)
        self.names[self.index].add(name)
        if self.rules.in_group("network", name):
            self.network_seen = True
        if "/" in program.value:
            self.program_path(program.value)
        wrapper = self.rules.wrappers.get(name)
        if wrapper is not None:
            self.wrapper(wrapper, words, depth)
            return
        rule = self.rules.program(name)
        if rule is None:
            self.hit("program.unknown", name)
            self.scan_embedded(words)
            return
        self.inline_done = inline_done
        self.program(rule, words, depth)
        self.inline_done = False

    def program_path(self, path: str) -> None:
        """Programs given by path: system bin dirs are fine, workspace bins are project code."""
        head = path.rsplit("/", 1)[0] or "/"
        if head in self.rules.bin_dirs:
            return
        ws = str(self.workspace) if self.workspace is not None else None
        if ws and head.startswith(ws.rstrip("/") + "/"):
            head = head[len(ws.rstrip("/")) + 1 :]
        head = head.removeprefix("./")
        if head in self.rules.workspace_bin_dirs:
            self.hit("program.workspace_bin", path)
        else:
            self.hit("program.path", path)

    def scan_embedded(self, words: Sequence[Word]) -> None:
        """Escalate to DENY when a destructive command hides in an unknown one's arguments.

        Each destructive word is probed with the words up to the next one (for ``find``,
        up to the end of its ``-exec`` command), so the scan stays linear in the number of
        words; at most ``_MAX_PROBES`` distinct probes run (the command needs approval
        anyway, as an unknown program).
        """
        starts = [
            i
            for i in range(1, len(words))
            if words[i].is_static and self.rules.in_group("destructive", program_name(words[i]))
        ]
        if not starts:
            return
        probe = Evaluator(self.rules, context=self.context, workspace=self.workspace)
        probe.current, probe.index = self.current, self.index
        probe.names = {self.index: set()}
        probed: set[tuple[tuple[tuple[str, str], ...], ...]] = set()
        for k, i in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(words)
            if program_name(words[i]) == "find":
                end = max(end, _exec_end(words, i))
            key = tuple(w.segments for w in words[i:end])
            if len(probed) >= _MAX_PROBES or any(f.verdict is Verdict.DENY for f in probe.findings):
                break  # one DENY decides; past _MAX_PROBES the (unknown) command is asked
            if key not in probed:
                probed.add(key)
                probe.cwd = self.cwd
                probe.argv(words[i:end], MAX_WRAP_DEPTH - 1)
        self.findings.extend(f for f in probe.findings if f.verdict is Verdict.DENY)

    # ---- wrappers ------------------------------------------------------------------
    def wrapper(self, spec: WrapperRule, words: Sequence[Word], depth: int) -> None:
        """Judge a wrapper and the command it runs (see :mod:`safety.policy.wrappers`)."""
        judge_wrapper(self, spec, words, depth)

    def inline(self, script: Word | None, origin: str) -> None:
        """Judge the text of an inline script, or flag it when not static."""
        if script is None or not script.is_static:
            self.hit("shell.dynamic_script", origin)
            return
        self.script(script.value, origin)

    # ---- programs ----------------------------------------------------------------
    def program(self, rule: ProgramRule, words: Sequence[Word], depth: int) -> None:
        """Judge a program (or subcommand) rule and its arguments; a directory given to
        ``-C``-like flags holds for this program only."""
        if "chdir" not in rule.value_flags.values():
            self.program_in_cwd(rule, words, depth)
            return
        saved = self.cwd
        try:
            self.program_in_cwd(rule, words, depth)
        finally:
            self.cwd = saved

    def program_in_cwd(self, rule: ProgramRule, words: Sequence[Word], depth: int) -> None:
        """Judge a program (or subcommand) rule and its arguments."""
        args = words[1:]
        if rule.subcommands or rule.wraps:
            parsed = split_args(args, rule, stop_at_positional=True)
            self.flags(rule, parsed)
            for check in rule.checks:
                CHECKS[check](self, rule, words, parsed, depth)
            if not parsed.positionals or rule.wraps:
                self.add(rule.verdict, rule.reason, rule.rule, rule.alternative, specific=False)
            if not parsed.positionals:
                return
            first = parsed.positionals[0]
            if rule.wraps:
                self.argv([first, *parsed.rest], depth + 1)
                return
            sub = rule.subcommand(first.value) if first.is_static else None
            if sub is None:
                self.hit("program.unknown", f"{words[0].value} {first.raw}")
                return
            self.program(sub, [first, *parsed.rest], depth)
            return
        self.add(rule.verdict, rule.reason, rule.rule, rule.alternative, specific=False)
        parsed = split_args(args, rule)
        self.flags(rule, parsed)
        positionals = parsed.positionals
        pattern_given = any(
            rule.value_flags.get(f.name) == "pattern" or f.name in rule.pattern_off
            for f in parsed.flags
        )
        skip = 0 if pattern_given else 1
        judged = positionals[rule.patterns * skip :]
        if 0 <= rule.max_positionals < len(positionals):
            self.hit("program.extra_arguments", f"{words[0].value} {positionals[-1].raw}")
        for check in rule.checks:
            CHECKS[check](self, rule, words, parsed, depth)
        self.positionals(rule.positionals, judged)

    def flags(self, rule: ProgramRule, parsed: ParsedArgs) -> None:
        """Judge flags: specific flag rules, the allow-list, then flag values."""
        for flag in parsed.flags:
            matched = False
            for flag_rule in rule.flag_rules:
                if flag_rule.matches(flag.name):
                    matched = True
                    self.add(
                        flag_rule.verdict, flag_rule.reason, flag_rule.rule, flag_rule.alternative
                    )
            if not matched and not rule.flag_allowed(flag.name):
                self.hit("program.flag_not_allowed", f"{rule.name} {flag.name}")
            elif (
                rule.long_options is not None
                and flag.name.startswith("--")
                and not rule.knows_long(flag.name)
            ):
                self.hit("program.unknown_option", f"{rule.name} {flag.name}")
            self.flag_value(rule, flag)

    def flag_value(self, rule: ProgramRule, flag: Flag) -> None:
        """Judge the value a flag took, by its kind."""
        value = flag.value
        if value is None:
            return
        kind = rule.value_flags.get(flag.name) or rule.pair_flags.get(flag.name)
        if kind == "chdir":
            self.chdir(value)
        elif kind == "operands":
            self.path_read(value)
            self.hit("input.hidden_operands", f"{rule.name} {flag.name} {value.raw}")
        elif kind == "read":
            self.path_read(value)
        elif kind == "write":
            self.path_write(value)
        elif kind == "data":
            if value.value.startswith("@"):
                self.path_read(split_word(value, 1))
        elif kind == "command":
            self.hit("program.runs_command", f"{rule.name} {flag.name} {value.raw}")
        elif kind == "name":
            self.variable_name(value)
        elif kind == "script":
            self.inline(value, f"{rule.name} {flag.name}")
        elif kind is None and flag.attached and _looks_like_path(value.value):
            self.path_read(value)

    # ---- rules across commands -----------------------------------------------------
    def cross(self, parsed: ParsedScript) -> None:
        """Pipelines into shells, and secrets combined with network access."""
        check_code_sources(self, parsed)
        if self.secret_seen and self.network_seen and self.nested == 0:
            self.hit("deny.exfiltration", "secrets and network access in one command")


def _exec_end(words: Sequence[Word], start: int) -> int:
    """The index after the ``;`` or ``+`` that ends find's first ``-exec`` command."""
    in_exec = False
    for i in range(start + 1, len(words)):
        value = words[i].value
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            in_exec = True
        elif in_exec and value in (";", "+"):
            return i + 1
    return len(words)


def _at(words: Sequence[Word], i: int) -> Word | None:
    return words[i] if i < len(words) else None


def _looks_like_path(value: str) -> bool:
    return value.startswith(("/", "~", ".")) or "/" in value
