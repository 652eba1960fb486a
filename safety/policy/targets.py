"""Findings, and the judgement of paths, redirections and variables of a command."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from safety.policy.args import split_word
from safety.policy.disk import cleared_by_content
from safety.policy.paths import PathContext, PathInfo, PathKind, classify
from safety.policy.rules import PolicyRules
from safety.policy.shell import DYN, ParsedScript, SimpleCommand, Word
from safety.policy.verdict import Finding, VerdictSpec

_CLASSIFY_MEMO_SIZE = 4096
_EXPANSION_ASSIGNS = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^]]*\])?:?=")
"""``${NAME=value}`` and ``${NAME:=value}`` assign NAME when it is unset (or empty)."""
SECRET_RULES = frozenset({"path.sensitive", "env.dump", "env.secret_variable"})
_EXPANDED_NAME = re.compile(r"\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INDEX_STAGE = re.compile(r":(?:[0-3]:)?(?!/)")


def _object_path_colon(value: str) -> int:
    """Where the path of ``REV:PATH`` starts, less one (-1: no path); colons inside
    ``@{...}`` and ``^{...}`` belong to the revision."""
    depth = 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == ":" and depth == 0:
            return i
    return -1


def expanded_names(text: str) -> list[str]:
    """The variables an expansion's text reads: the name after ``$``, ``${``, ``${#`` or
    ``${!`` (and in nested expansions), and every name in arithmetic (``$((X + 1))``),
    where bash reads a bare name's value."""
    if text.startswith(("$((", "$[")):
        return _IDENTIFIER.findall(text)
    return _EXPANDED_NAME.findall(text)


class TargetJudge:
    """Collects findings for one evaluation; judges what a command reads and writes."""

    def __init__(
        self, rules: PolicyRules, *, context: str, workspace: PurePosixPath | None
    ) -> None:
        self.rules = rules
        self.context = context
        self.workspace = workspace
        self.cwd: str | None = "."
        self.findings: list[Finding] = []
        self.current = ""
        self.index = -1
        self.names: dict[int, set[str]] = {}
        self.code_from_upstream: set[int] = set()
        self.stdin_script: set[int] = set()
        # state the evaluator keeps across the commands of one script
        self.secret_seen = False
        self.network_seen = False
        self.nested = 0
        self.inline_done = False
        self._classified: dict[tuple[tuple[tuple[str, str], ...], str | None], list[PathInfo]]
        self._classified = {}
        self.script_commands: ParsedScript | None = None
        self.command: SimpleCommand | None = None

    # ---- findings -------------------------------------------------------------
    def add(
        self,
        spec: VerdictSpec,
        reason: str,
        rule: str,
        alternative: str | None,
        *,
        specific: bool = True,
    ) -> None:
        """Record a finding (``specific`` False for a program's own base verdict)."""
        verdict = spec.for_context(self.context)
        if alternative and "{command}" in alternative:
            alternative = alternative.replace("{command}", self.current.replace('"', '\\"'))
        self.findings.append(
            Finding(verdict, reason, rule, alternative, self.current, specific=specific)
        )

    def hit(self, rule: str, detail: str = "") -> None:
        """Record built-in rule ``rule`` (its verdict and reason come from the policy)."""
        outcome = self.rules.outcome(rule)
        reason = f"{outcome.reason}: {detail}" if detail else outcome.reason
        self.add(outcome.verdict, reason, rule, outcome.alternative)
        if rule in SECRET_RULES:
            self.secret_seen = True

    def positionals(self, kind: str, words: Sequence[Word]) -> None:
        """Judge positional arguments as reads or writes."""
        if kind == "none" or not words:
            return
        if kind in ("names", "subscripts"):
            for word in words:
                self.variable_name(word, assigns=kind == "names", unsets=kind == "subscripts")
            return
        if kind == "objects":
            for word in words:
                self.object_name(word)
            return
        if kind == "read":
            reads, writes = list(words), []
        elif kind == "copy" and len(words) > 1:
            reads, writes = list(words[:-1]), [words[-1]]
        elif kind == "copy":
            reads, writes = list(words), []
        else:
            reads, writes = [], list(words)
        for word in reads:
            self.path_read(word)
        for word in writes:
            self.path_write(word)

    def object_name(self, word: Word) -> None:
        """A git object name or path: ``REV:PATH``, ``:PATH`` and ``:N:PATH`` read PATH from
        the object store (a committed ``.env``), so PATH is judged like a path read;
        ``:/text`` searches commit messages; anything else is a revision or a path."""
        value = word.value
        stage = _INDEX_STAGE.match(value)
        if stage:
            self.path_read(split_word(word, stage.end()))
        elif value.startswith(":/"):
            return
        elif (colon := _object_path_colon(value)) >= 0:
            self.path_read(split_word(word, colon + 1))
        else:
            self.path_read(word)

    def chdir(self, word: Word) -> None:
        """A program runs in directory ``word`` (``cd``, ``env -C``, ``git -C``): later
        relative paths are judged from there. Outside the workspace needs approval and
        leaves the directory unknown, except in a temporary directory, which is tracked."""
        infos = self.classify(word)
        if len(infos) == 1 and infos[0].kind in (PathKind.INSIDE, PathKind.WORKSPACE_ROOT):
            self.cwd = infos[0].shown
            return
        self.hit("cd.outside", word.raw)
        if len(infos) == 1 and (infos[0].temp or infos[0].temp_dir):
            self.cwd = infos[0].shown  # an absolute path: later relative paths are below it
        else:
            self.cwd = None

    def path_context(self) -> PathContext:
        """What path classification needs right now."""
        return PathContext(
            self.workspace,
            self.cwd,
            self.rules.sensitive,
            self.rules.null_devices,
            self.rules.system_paths,
            self.rules.temp_paths,
            self.rules.sensitive_examples,
        )

    def classify(self, word: Word) -> list[PathInfo]:
        """Where ``word`` points as a path, from the current directory (remembered per
        evaluation, so repeated arguments cost one classification)."""
        key = (word.segments, self.cwd)
        known = self._classified.get(key)
        if known is None:
            known = classify(word, self.path_context())
            if len(self._classified) < _CLASSIFY_MEMO_SIZE:
                self._classified[key] = known
        return known

    def path_read(self, word: Word) -> None:
        """Judge a path that is read (a name its content can clear is looked at on disk)."""
        for info in self.classify(word):
            if info.sensitive and not self.cleared_on_disk(info):
                self.hit("path.sensitive", f"{info.shown} ({info.sensitive})")
            elif info.kind is PathKind.OUTSIDE:
                self.hit("path.outside", info.shown)
            elif info.kind is PathKind.DYNAMIC:
                self.hit("path.dynamic", info.shown)

    def cleared_on_disk(self, info: PathInfo) -> bool:
        """True when the workspace's file ``info`` names holds no secret its name suggests
        (a Keynote ``talk.key``, a certificate in ``ca.pem``)."""
        return info.kind is PathKind.INSIDE and cleared_by_content(
            self.workspace, info.shown, self.rules.sensitive
        )

    def path_write(self, word: Word) -> None:
        """Judge a path that is written."""
        for info in self.classify(word):
            if info.kind in (PathKind.NULL, PathKind.REMOTE):
                continue
            if info.shell_rc:
                self.hit("write.shell_rc", info.shown)
            elif info.git_internal:
                self.hit("write.git", info.shown)
            elif info.device:
                self.hit("write.device", info.shown)
            elif info.temp or info.temp_dir:
                self.hit("write.temp", info.shown)
            elif info.kind is PathKind.OUTSIDE:
                self.hit("write.outside", info.shown)
            elif info.sensitive:
                self.hit("write.sensitive", f"{info.shown} ({info.sensitive})")
            elif info.kind is PathKind.DYNAMIC:
                self.hit("write.dynamic", info.shown)
            else:
                self.hit("write.workspace", info.shown)

    def redirect(self, op: str, target: Word | None) -> None:
        """Judge one redirection (fd duplication and /dev/null are not writes)."""
        if target is None:
            return
        if op in (">&", "<&", ">&-", "<&-") and (target.value.isdigit() or target.value == "-"):
            return
        if op in ("<", "<&"):
            self.path_read(target)
        else:
            self.path_write(target)

    def assignment(self, name: str) -> None:
        """Judge ``NAME=value`` (prefix, ``env``, ``export`` or bare)."""
        if name in self.rules.variables_deny:
            self.hit("env.deny", name)
        elif name in self.rules.variables_approve:
            self.hit("env.dangerous_assignment", name)

    def unassignment(self, name: str) -> None:
        """Unsetting a variable the policy watches (``env -u GIT_CONFIG_COUNT``,
        ``unset GIT_PAGER``) can take away hardening the command was given: ask."""
        if name in self.rules.variables_deny or name in self.rules.variables_approve:
            self.hit("env.dangerous_assignment", f"unsets {name}")

    def variable_name(self, word: Word, *, assigns: bool = True, unsets: bool = False) -> None:
        """A builtin's variable-name operand (``read NAME``, ``printf -v NAME``, ``test -v``):
        the name is assigned, and bash evaluates an array subscript in it as arithmetic,
        which runs ``$(...)`` inside it."""
        if not word.is_static:
            self.hit("env.dynamic_name", word.raw)
            return
        name, bracket, subscript = word.value.partition("[")
        if assigns:
            self.assignment(name)
        elif unsets:
            self.unassignment(name)
        if bracket and not subscript.rstrip("]").strip().isdigit():
            self.hit("shell.array_subscript", word.raw)

    def secret_variables(self, word: Word) -> None:
        """Flag expansions of variables that look like secrets (API keys, tokens), however
        they are expanded (``$X``, ``${X:0:9}``, ``${X@Q}``, ``${#X}``, ``$((X))``), and
        expansions that assign (``${NAME:=value}``) or evaluate a name (``${!ref}``)."""
        if word.is_static:
            return
        for var in word.variables:
            if var in self.rules.secret_variables:
                self.hit("env.secret_variable", f"${var}")
        for kind, text in word.segments:
            if kind != DYN:
                continue
            for name in expanded_names(text):
                if name in self.rules.secret_variables:
                    self.hit("env.secret_variable", text)
                    break
            if "${" not in text:
                continue
            for name in _EXPANSION_ASSIGNS.findall(text):
                self.assignment(name)
            if "${!" in text:
                self.hit("shell.indirect_expansion", text)
