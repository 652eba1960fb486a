"""The typed form of the command-policy data (``default_policy.toml``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path

from safety.globset import GlobSet
from safety.policy.verdict import VerdictSpec
from safety.sensitive import SensitiveRules

VALUE_KINDS = frozenset(
    {"value", "pattern", "read", "write", "data", "command", "script", "name", "chdir", "operands"}
)
WRAPPER_PATH_KINDS = frozenset({"read", "write", "chdir", "operands"})
POSITIONAL_KINDS = frozenset(
    {"read", "write", "none", "copy", "move", "names", "subscripts", "objects"}
)
GROUPS = ("shells", "interpreters", "network", "decoders", "destructive", "printers")
WORKSPACE_POLICY = Path(".lsp-agent") / "policy.toml"
ANY = "any"
_GLOB_MEMO_SIZE = 4096


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


class PolicyFileError(ValueError):
    """A policy file that cannot be read or does not follow the schema."""


@dataclass(frozen=True)
class FlagRule:
    """Flags (glob patterns) that make a program stricter."""

    rule: str
    flags: tuple[str, ...]
    verdict: VerdictSpec
    reason: str
    alternative: str | None = None

    def matches(self, flag: str) -> bool:
        """True when ``flag`` matches one of the patterns."""
        return any(fnmatchcase(flag, pat) for pat in self.flags)


@dataclass(frozen=True)
class ProgramRule:
    """How one program (or subcommand) is judged."""

    name: str
    rule: str
    verdict: VerdictSpec
    reason: str
    alternative: str | None = None
    flags: tuple[str, ...] | None = None
    clusters: bool = True
    value_flags: Mapping[str, str] = field(default_factory=dict)
    patterns: int = 0
    pattern_off: tuple[str, ...] = ()
    positionals: str = "read"
    max_positionals: int = -1
    flag_rules: tuple[FlagRule, ...] = ()
    checks: tuple[str, ...] = ()
    subcommands: Mapping[str, ProgramRule] = field(default_factory=dict)
    wraps: bool = False
    inline_flags: tuple[str, ...] = ()
    modules: Mapping[str, str] = field(default_factory=dict)
    pair_flags: Mapping[str, str] = field(default_factory=dict)
    """Flags that take two words (``jq --rawfile NAME FILE``): flag -> kind of the second."""
    long_options: tuple[str, ...] | None = None
    """Every long option the program has, when listed: any other needs approval."""
    known_options: tuple[str, ...] = ()
    """Harmless long options that a dangerous one starts with (git diff --text is not an
    abbreviation of --textconv)."""

    @cached_property
    def known_long(self) -> tuple[str, ...]:
        """The long options this rule names (for resolving GNU abbreviations)."""
        names = [*self.value_flags, *self.pair_flags, *(self.long_options or ())]
        names += self.known_options
        names += [f for fr in self.flag_rules for f in fr.flags if not _is_glob(f)]
        names += [f for f in self.flags or () if not _is_glob(f)]
        return tuple(dict.fromkeys(n for n in names if n.startswith("--")))

    def knows_long(self, flag: str) -> bool:
        """True when long option ``flag`` (or the option it negates, ``--no-X``) is known."""
        known = self.known_long
        return flag in known or (flag.startswith("--no-") and "--" + flag[5:] in known)

    @cached_property
    def _allowed_flags(self) -> GlobSet:
        return GlobSet(self.flags or ())

    def flag_allowed(self, flag: str) -> bool:
        """True when ``flag`` is on the allow-list (or the rule allows any flag)."""
        return self.flags is None or flag in self._allowed_flags

    def subcommand(self, name: str) -> ProgramRule | None:
        """The rule for subcommand ``name`` (or the ``*`` default)."""
        return self.subcommands.get(name) or self.subcommands.get("*")


@dataclass(frozen=True)
class WrapperRule:
    """A program that runs another command given in its arguments."""

    name: str
    rule: str
    verdict: VerdictSpec
    reason: str
    value_flags: frozenset[str] = frozenset()
    assignments: bool = False
    skip: int = 0
    script_flags: frozenset[str] = frozenset()
    lookup_flags: frozenset[str] = frozenset()
    join: bool = False
    alone: str = "allow"
    default_command: tuple[str, ...] = ()
    path_flags: Mapping[str, str] = field(default_factory=dict)
    """Flags whose value is a path: read, write, chdir (the command runs there) or
    operands (a file naming the command's operands)."""
    skipped: str = "value"
    """What the ``skip`` words are: plain values, or a file that is written (flock)."""
    operands_from_input: bool = False
    """The command's operands arrive on standard input (xargs)."""
    long_options: tuple[str, ...] | None = None
    """Every long option the wrapper has, when listed: any other needs approval."""

    @cached_property
    def known_long(self) -> tuple[str, ...]:
        """The long options this wrapper names (for resolving GNU abbreviations)."""
        names = [
            *self.value_flags,
            *self.path_flags,
            *self.script_flags,
            *self.lookup_flags,
            *(self.long_options or ()),
        ]
        return tuple(dict.fromkeys(n for n in names if n.startswith("--")))


@dataclass(frozen=True)
class Outcome:
    """Verdict, reason and alternative of a built-in rule (``[outcomes]``)."""

    verdict: VerdictSpec
    reason: str
    alternative: str | None = None


@dataclass(frozen=True)
class PolicyRules:
    """The compiled policy."""

    programs: Mapping[str, ProgramRule]
    program_globs: tuple[tuple[str, ProgramRule], ...]
    wrappers: Mapping[str, WrapperRule]
    outcomes: Mapping[str, Outcome]
    groups: Mapping[str, GlobSet]
    variables_deny: GlobSet
    variables_approve: GlobSet
    secret_variables: GlobSet
    null_devices: GlobSet
    system_paths: tuple[str, ...]
    bin_dirs: GlobSet
    workspace_bin_dirs: GlobSet
    make_test_targets: frozenset[str]
    sensitive: SensitiveRules
    max_command_chars: int
    warnings: tuple[str, ...] = ()
    max_syntax_nodes: int = 1500
    temp_paths: tuple[str, ...] = ()
    sensitive_examples: GlobSet = field(default_factory=lambda: GlobSet(()))
    _globbed: dict[str, ProgramRule | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def program(self, name: str) -> ProgramRule | None:
        """The rule for program ``name`` (exact name, then alias globs; remembered)."""
        rule = self.programs.get(name)
        if rule is not None:
            return rule
        if name in self._globbed:
            return self._globbed[name]
        found = next((c for p, c in self.program_globs if fnmatchcase(name, p)), None)
        if len(self._globbed) < _GLOB_MEMO_SIZE:
            self._globbed[name] = found
        return found

    def in_group(self, group: str, name: str) -> bool:
        """True when ``name`` belongs to ``group`` (glob patterns allowed)."""
        members = self.groups.get(group)
        return members is not None and name in members

    def outcome(self, rule: str) -> Outcome:
        """The outcome of built-in rule ``rule`` (a missing one is a bug)."""
        return self.outcomes[rule]
