"""Merging policy data: a trusted user file, and stricter-only workspace overrides.

A workspace override lives in the repository, so it is untrusted, trusted or not: it may
raise verdicts, add flag rules, sensitive patterns, group members and dangerous variables,
but anything that could loosen the policy is ignored with a warning. In particular it
cannot add a subcommand table to a program that has none (the program's own checks would
no longer run), cannot make an unknown program or subcommand known unless it denies it
(unknown programs need approval and have their arguments scanned), cannot lower a verdict,
and cannot give a rule a new reason without raising that rule's verdict; the reasons it
does give are marked as coming from the workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import Any

from safety.policy.verdict import Verdict, VerdictSpec

UNION_SECTIONS = frozenset({"groups", "variables", "sensitive", "paths", "make"})
_ADDITIVE: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # not "printers": text printed into a shell is judged as a script instead of needing
        # approval, so adding printers loosens the policy
        "groups": ("shells", "interpreters", "network", "decoders", "destructive"),
        "variables": ("deny", "approve", "secrets"),
        "sensitive": ("names", "dirs", "paths"),
    }
)
_PROGRAM_STRICT_KEYS = frozenset({"verdict", "reason", "alternative", "flag_rules", "subcommands"})
_UNKNOWN_PROGRAM = VerdictSpec.same(Verdict.REQUIRE_APPROVAL)
_DENY = VerdictSpec.same(Verdict.DENY)
_TEXT_KEYS = ("reason", "alternative")
WORKSPACE_MARK = "(workspace policy) "


def deep_merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``extra`` over ``base`` (tables merge; lists in UNION_SECTIONS are unioned)."""
    return _merge(base, extra, union=False)


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any], *, union: bool) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = _merge(old, value, union=union or key in UNION_SECTIONS)
        elif union and isinstance(old, list) and isinstance(value, list):
            out[key] = old + [v for v in value if v not in old]
        else:
            out[key] = value
    return out


def apply_stricter(
    base: Mapping[str, Any], override: Mapping[str, Any], warnings: list[str]
) -> dict[str, Any]:
    """Apply the parts of ``override`` that only tighten ``base``; warn about the rest."""
    out = dict(base)
    for section, value in override.items():
        if section in _ADDITIVE and isinstance(value, Mapping):
            out[section] = _add_lists(section, base.get(section, {}), value, warnings)
        elif section == "programs" and isinstance(value, Mapping):
            out["programs"] = _stricter_tables(
                "programs",
                "program",
                base.get("programs", {}),
                value,
                find=_find_program,
                warnings=warnings,
            )
        elif section in ("outcomes", "wrappers") and isinstance(value, Mapping):
            out[section] = _stricter_verdicts(section, base.get(section, {}), value, warnings)
        else:
            warnings.append(f"workspace policy: [{section}] ignored (it may only tighten rules)")
    return out


def _add_lists(
    section: str, base: Mapping[str, Any], extra: Mapping[str, Any], warnings: list[str]
) -> dict[str, Any]:
    out = dict(base)
    for key, items in extra.items():
        if key not in _ADDITIVE[section] or not isinstance(items, list):
            warnings.append(f"workspace policy: {section}.{key} ignored (only additions allowed)")
            continue
        old = list(out.get(key, ()))
        out[key] = old + [str(i) for i in items if i not in old]
    return out


def _find_program(programs: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    if name in programs:
        return dict(programs[name])
    for table in programs.values():
        if any(fnmatchcase(name, alias) for alias in table.get("aliases", ())):
            return {k: v for k, v in table.items() if k != "aliases"}
    return None


def _denies(table: Any) -> bool:
    """True when ``table`` is a table whose verdict is DENY everywhere."""
    if not isinstance(table, Mapping):
        return False
    try:
        return VerdictSpec.from_data(table.get("verdict", "approve")).at_least(_DENY)
    except ValueError:
        return False


def _stricter_program(
    where: str, current: Mapping[str, Any] | None, table: Any, warnings: list[str]
) -> dict[str, Any] | None:
    if not isinstance(table, Mapping):
        warnings.append(f"workspace policy: {where} ignored (not a table)")
        return None
    out = dict(current) if current is not None else {}
    raised = False
    if "verdict" in table:
        raised = _set_stricter_verdict(where, out, table["verdict"], current, warnings)
    for key, value in table.items():
        if key not in _PROGRAM_STRICT_KEYS:
            warnings.append(f"workspace policy: {where}.{key} ignored (could loosen the policy)")
        elif key == "flag_rules":
            out["flag_rules"] = list(out.get("flag_rules", ())) + _strict_flag_rules(
                where, value, warnings
            )
        elif key == "subcommands":
            _stricter_subcommands(where, out, value, current, warnings)
        elif key in _TEXT_KEYS:
            _set_text(where, key, out, value, raised=raised, warnings=warnings)
    return out


def _stricter_subcommands(
    where: str,
    out: dict[str, Any],
    value: Any,
    current: Mapping[str, Any] | None,
    warnings: list[str],
) -> None:
    if not isinstance(value, Mapping):
        warnings.append(f"workspace policy: {where}.subcommands ignored (not a table)")
        return
    if current is not None and not current.get("subcommands"):
        warnings.append(
            f"workspace policy: {where}.subcommands ignored (the program has no subcommands; "
            "adding them would skip its checks)"
        )
        return
    out["subcommands"] = _stricter_tables(
        where,
        "subcommand",
        out.get("subcommands", {}),
        value,
        find=lambda subs, sub: subs.get(sub, subs.get("*")),
        warnings=warnings,
    )


def _stricter_tables(
    where: str,
    what: str,
    base: Mapping[str, Any],
    override: Mapping[str, Any],
    *,
    find: Callable[[Mapping[str, Any], str], Mapping[str, Any] | None],
    warnings: list[str],
) -> dict[str, Any]:
    """Programs or subcommands: each override table made stricter than what `find` gives."""
    out = dict(base)
    for name, table in override.items():
        current = find(out, name)
        if current is None and not _denies(table):
            warnings.append(
                f"workspace policy: {where}.{name} ignored (a {what} the policy does not "
                "know may only be denied)"
            )
            continue
        merged = _stricter_program(f"{where}.{name}", current, table, warnings)
        if merged is not None:
            out[name] = merged
    return out


def _set_text(
    where: str, key: str, out: dict[str, Any], value: Any, *, raised: bool, warnings: list[str]
) -> None:
    """A reason or alternative from the workspace: only beside a verdict it raised."""
    if not isinstance(value, str):
        warnings.append(f"workspace policy: {where}.{key} ignored (not a string)")
    elif not raised:
        warnings.append(
            f"workspace policy: {where}.{key} ignored (the workspace may only word a rule "
            "whose verdict it raises)"
        )
    else:
        out[key] = WORKSPACE_MARK + value


def _set_stricter_verdict(
    where: str,
    out: dict[str, Any],
    value: Any,
    current: Mapping[str, Any] | None,
    warnings: list[str],
) -> bool:
    """Set ``value`` when at least as strict as the current verdict; True when it raised it."""
    try:
        new = VerdictSpec.from_data(value)
    except ValueError as exc:
        warnings.append(f"workspace policy: {where}.verdict ignored ({exc})")
        return False
    old = (
        VerdictSpec.from_data(current.get("verdict", "approve"))
        if current is not None
        else _UNKNOWN_PROGRAM
    )
    if new.at_least(old):
        out["verdict"] = value
        if "subcommands" in out:
            out["subcommands"] = {
                name: _raised(sub, new) for name, sub in dict(out["subcommands"]).items()
            }
        return new != old
    warnings.append(f"workspace policy: {where}.verdict ignored (it would loosen the rule)")
    return False


def _raised(table: Mapping[str, Any], floor: VerdictSpec) -> dict[str, Any]:
    """``table`` with its verdict (and its subcommands') raised to at least ``floor``."""
    out = dict(table)
    cur = VerdictSpec.from_data(out.get("verdict", "approve"))
    host, sandbox = max(cur.host, floor.host), max(cur.sandbox, floor.sandbox)
    out["verdict"] = {"host": host.name.lower(), "sandbox": sandbox.name.lower()}
    if "subcommands" in out:
        out["subcommands"] = {k: _raised(v, floor) for k, v in dict(out["subcommands"]).items()}
    return out


def _strict_flag_rules(where: str, rules: Any, warnings: list[str]) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = []
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        try:
            spec = VerdictSpec.from_data(rule.get("verdict", "approve"))
            ok = spec.host > Verdict.ALLOW and spec.sandbox > Verdict.ALLOW
            valid = isinstance(rule.get("flags"), list) and "reason" in rule
        except (AttributeError, ValueError):
            ok = valid = False
        if ok and valid:
            kept.append(
                {
                    "name": f"workspace{index}",
                    **rule,
                    "reason": WORKSPACE_MARK + str(rule["reason"]),
                }
            )
        else:
            warnings.append(f"workspace policy: {where}.flag_rules[{index}] ignored")
    return kept


def _stricter_verdicts(
    section: str, base: Mapping[str, Any], extra: Mapping[str, Any], warnings: list[str]
) -> dict[str, Any]:
    out = {k: dict(v) for k, v in base.items()}
    for name, table in extra.items():
        current = out.get(name)
        if current is None or not isinstance(table, Mapping):
            warnings.append(f"workspace policy: {section}.{name} ignored (unknown rule)")
            continue
        where = f"{section}.{name}"
        raised = False
        if "verdict" in table:
            raised = _set_stricter_verdict(where, current, table["verdict"], current, warnings)
        for key, value in table.items():
            if key in _TEXT_KEYS:
                _set_text(where, key, current, value, raised=raised, warnings=warnings)
            elif key != "verdict":
                warnings.append(f"workspace policy: {where}.{key} ignored")
    return out
