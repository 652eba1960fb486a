"""Loading the command policy: default file, user file, stricter-only workspace override.

``load_rules`` reads the default policy, merges a user policy file over it (the user
may loosen or tighten), then applies ``<workspace>/.lsp-agent/policy.toml`` through
:mod:`safety.policy.overrides`, which only lets it tighten, and compiles the result.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from safety.globset import GlobSet
from safety.policy.overrides import apply_stricter, deep_merge
from safety.policy.rules import (
    ANY,
    GROUPS,
    POSITIONAL_KINDS,
    VALUE_KINDS,
    WORKSPACE_POLICY,
    WRAPPER_PATH_KINDS,
    FlagRule,
    Outcome,
    PolicyFileError,
    PolicyRules,
    ProgramRule,
    WrapperRule,
)
from safety.policy.verdict import VerdictSpec
from safety.sensitive import DEFAULT_SENSITIVE


@cache
def default_data() -> Mapping[str, Any]:
    """The parsed default policy (read once; never mutated)."""
    text = resources.files("safety.policy").joinpath("default_policy.toml").read_text("utf-8")
    return MappingProxyType(tomllib.loads(text))


@cache
def default_rules() -> PolicyRules:
    """The compiled default policy (cached)."""
    return compile_rules(default_data())


def read_policy_file(path: Path) -> dict[str, Any]:
    """Parse a TOML policy file, raising PolicyFileError with the file name."""
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyFileError(f"cannot read policy file {path}: {exc}") from exc


def load_rules(
    data: Mapping[str, Any] | None = None,
    *,
    policy_file: str | Path | None = None,
    workspace_root: str | Path | None = None,
) -> PolicyRules:
    """Compile the policy: ``data`` (default policy) + user file + workspace override."""
    if data is None and policy_file is None and workspace_root is None:
        return default_rules()
    merged: Mapping[str, Any] = data if data is not None else default_data()
    if policy_file is not None:
        merged = deep_merge(merged, read_policy_file(Path(policy_file)))
    warnings: list[str] = []
    if workspace_root is not None:
        override_path = Path(workspace_root) / WORKSPACE_POLICY
        if override_path.is_file():
            try:
                override = read_policy_file(override_path)
            except PolicyFileError as exc:
                warnings.append(f"workspace policy ignored: {exc}")
            else:
                merged = apply_stricter(merged, override, warnings)
    return compile_rules(merged, tuple(warnings))


def workspace_policy_warnings(
    workspace_root: str | Path, policy_file: str | Path | None = None
) -> tuple[str, ...]:
    """What the workspace's policy file tried and was refused (empty when it has none).

    For front ends to show once, before a job runs; never raises for a bad user file
    (the job reports that itself).
    """
    if not (Path(workspace_root) / WORKSPACE_POLICY).is_file():
        return ()
    try:
        return load_rules(policy_file=policy_file, workspace_root=workspace_root).warnings
    except PolicyFileError as exc:
        return (f"policy not loaded: {exc}",)


def compile_rules(data: Mapping[str, Any], warnings: tuple[str, ...] = ()) -> PolicyRules:
    """Turn parsed policy data into PolicyRules (PolicyFileError on schema errors)."""
    try:
        return _compile(data, warnings)
    except (KeyError, TypeError, ValueError) as exc:
        raise PolicyFileError(f"invalid policy: {exc}") from exc


def _compile(data: Mapping[str, Any], warnings: tuple[str, ...]) -> PolicyRules:
    programs: dict[str, ProgramRule] = {}
    globs: list[tuple[str, ProgramRule]] = []
    long_lists = _long_options(data)
    for name, table in data.get("programs", {}).items():
        for alias in (name, *table.get("aliases", ())):
            rule = _program(alias, f"programs.{alias}", table, long_lists, name)
            if any(ch in alias for ch in "*?["):
                globs.append((alias, rule))
            else:
                programs[alias] = rule
    wrappers = {
        name: _wrapper(name, table, long_lists.get(name))
        for name, table in data.get("wrappers", {}).items()
    }
    outcomes = {
        rule: Outcome(VerdictSpec.from_data(t["verdict"]), str(t["reason"]), t.get("alternative"))
        for rule, t in data.get("outcomes", {}).items()
    }
    groups = {g: GlobSet(data.get("groups", {}).get(g, ())) for g in GROUPS}
    variables = data.get("variables", {})
    paths = data.get("paths", {})
    sens = data.get("sensitive", {})
    sensitive = DEFAULT_SENSITIVE.extended(
        names=tuple(sens.get("names", ())),
        dirs=tuple(sens.get("dirs", ())),
        paths=tuple(sens.get("paths", ())),
        allow=tuple(sens.get("allow", ())),
    )
    return PolicyRules(
        programs=MappingProxyType(programs),
        program_globs=tuple(globs),
        wrappers=MappingProxyType(wrappers),
        outcomes=MappingProxyType(outcomes),
        groups=MappingProxyType(groups),
        variables_deny=GlobSet(variables.get("deny", ())),
        variables_approve=GlobSet(variables.get("approve", ())),
        secret_variables=GlobSet(variables.get("secrets", ()), fold_case=True),
        null_devices=GlobSet(paths.get("null_devices", ())),
        system_paths=tuple(paths.get("system", ())),
        bin_dirs=GlobSet(paths.get("bin_dirs", ())),
        workspace_bin_dirs=GlobSet(paths.get("workspace_bin_dirs", ())),
        make_test_targets=frozenset(data.get("make", {}).get("test_targets", ())),
        sensitive=sensitive,
        max_command_chars=int(data.get("limits", {}).get("max_command_chars", 8000)),
        warnings=warnings,
        temp_paths=tuple(paths.get("temp", ())),
        sensitive_examples=GlobSet(sens.get("examples", ()), fold_case=True),
        max_syntax_nodes=int(data.get("limits", {}).get("max_syntax_nodes", 1500)),
    )


_PROGRAM_KEYS = frozenset(
    {
        "aliases",
        "verdict",
        "reason",
        "alternative",
        "flags",
        "clusters",
        "value_flags",
        "patterns",
        "pattern_off",
        "positionals",
        "max_positionals",
        "flag_rules",
        "checks",
        "subcommands",
        "wraps",
        "inline_flags",
        "modules",
        "pair_flags",
        "long_options",
        "known_options",
    }
)


def _long_options(data: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``[long_options]``: every long option of a program table (``rg``), a git subcommand
    (``git.log``) or a wrapper (``env``); a key naming none of them is an error."""
    lists = data.get("long_options", {})
    programs = data.get("programs", {})
    for key, options in lists.items():
        head, _, sub = key.partition(".")
        table = programs.get(head)
        known = (table is not None and (not sub or sub in table.get("subcommands", {}))) or (
            not sub and key in data.get("wrappers", {})
        )
        if not known:
            raise ValueError(f"long_options.{key}: no program, git subcommand or wrapper")
        if not all(isinstance(o, str) and o.startswith("--") for o in options):
            raise ValueError(f"long_options.{key}: a list of --options")
    return {key: tuple(options) for key, options in lists.items()}


def _program(
    name: str,
    rule_id: str,
    table: Mapping[str, Any],
    long_lists: Mapping[str, tuple[str, ...]],
    path: str,
) -> ProgramRule:
    unknown = set(table) - _PROGRAM_KEYS
    if unknown:
        raise ValueError(f"{rule_id}: unknown keys {sorted(unknown)}")
    flags = table.get("flags", ANY)
    value_flags = dict(table.get("value_flags", {}))
    for flag, kind in value_flags.items():
        if kind not in VALUE_KINDS:
            raise ValueError(
                f"{rule_id}: value kind {kind!r} of {flag} is not one of {VALUE_KINDS}"
            )
    pair_flags = dict(table.get("pair_flags", {}))
    for flag, kind in pair_flags.items():
        if kind not in VALUE_KINDS:
            raise ValueError(
                f"{rule_id}: value kind {kind!r} of {flag} is not one of {VALUE_KINDS}"
            )
    long_options = table.get("long_options")
    if path in long_lists:
        long_options = (*(long_options or ()), *long_lists[path])
    positionals = table.get("positionals", "read")
    if positionals not in POSITIONAL_KINDS:
        raise ValueError(f"{rule_id}: positionals must be one of {sorted(POSITIONAL_KINDS)}")
    flag_rules = tuple(
        FlagRule(
            rule=f"{rule_id}.{fr['name']}",
            flags=tuple(fr["flags"]),
            verdict=VerdictSpec.from_data(fr.get("verdict", "approve")),
            reason=str(fr["reason"]),
            alternative=fr.get("alternative"),
        )
        for fr in table.get("flag_rules", ())
    )
    subs: dict[str, ProgramRule] = {}
    for sub, sub_table in table.get("subcommands", {}).items():
        for alias in (sub, *sub_table.get("aliases", ())):
            label = alias if alias != "*" else "other"
            subs[alias] = _program(
                alias, f"{rule_id}.{label}", sub_table, long_lists, f"{path}.{sub}"
            )
    return ProgramRule(
        name=name,
        rule=rule_id,
        verdict=VerdictSpec.from_data(table.get("verdict", "approve")),
        reason=str(table.get("reason", f"{name} is not on the allow-list")),
        alternative=table.get("alternative"),
        flags=None if flags == ANY else tuple(flags),
        clusters=bool(table.get("clusters", True)),
        value_flags=MappingProxyType(value_flags),
        patterns=int(table.get("patterns", 0)),
        pattern_off=tuple(table.get("pattern_off", ())),
        positionals=positionals,
        max_positionals=int(table.get("max_positionals", -1)),
        flag_rules=flag_rules,
        checks=tuple(table.get("checks", ())),
        subcommands=MappingProxyType(subs),
        wraps=bool(table.get("wraps", False)),
        inline_flags=tuple(table.get("inline_flags", ())),
        modules=MappingProxyType(dict(table.get("modules", {}))),
        pair_flags=MappingProxyType(pair_flags),
        long_options=tuple(long_options) if long_options is not None else None,
        known_options=tuple(table.get("known_options", ())),
    )


def _wrapper(
    name: str, table: Mapping[str, Any], long_options: tuple[str, ...] | None
) -> WrapperRule:
    alone = table.get("alone", "allow")
    if alone not in ("allow", "approve", "env_dump"):
        raise ValueError(f"wrappers.{name}: alone must be allow, approve or env_dump")
    path_flags = dict(table.get("paths", {}))
    for flag, kind in path_flags.items():
        if kind not in WRAPPER_PATH_KINDS:
            raise ValueError(
                f"wrappers.{name}: path kind {kind!r} of {flag} is not one of "
                f"{sorted(WRAPPER_PATH_KINDS)}"
            )
    skipped = table.get("skipped", "value")
    if skipped not in ("value", "write"):
        raise ValueError(f"wrappers.{name}: skipped must be value or write")
    return WrapperRule(
        name=name,
        rule=f"wrappers.{name}",
        verdict=VerdictSpec.from_data(table.get("verdict", "approve")),
        reason=str(table.get("reason", f"{name} runs another command")),
        value_flags=frozenset(table.get("value_flags", ())),
        assignments=bool(table.get("assignments", False)),
        skip=int(table.get("skip", 0)),
        script_flags=frozenset(table.get("script_flags", ())),
        lookup_flags=frozenset(table.get("lookup_flags", ())),
        join=bool(table.get("join", False)),
        alone=alone,
        default_command=tuple(table.get("default_command", ())),
        path_flags=MappingProxyType(path_flags),
        skipped=skipped,
        operands_from_input=bool(table.get("operands_from_input", False)),
        long_options=long_options,
    )
