"""Command policy: ALLOW, REQUIRE_APPROVAL or DENY for a shell command line.

The command is parsed with tree-sitter bash; every simple command in it (lists,
pipelines, substitutions, ``bash -c`` scripts, ``eval`` ...) is judged against rules
kept as data (``default_policy.toml`` + a user file + stricter-only workspace
overrides). Allow-listed programs and flags are ALLOW, known-destructive commands are
DENY, everything else (including anything unknown or unparsable) needs approval. The
strictest finding wins and the decision names the rule that fired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from safety.policy.evaluator import Evaluator
from safety.policy.loading import load_rules
from safety.policy.rules import PolicyRules
from safety.policy.shell import parse
from safety.policy.verdict import CONTEXTS, HOST, Finding, Verdict

__all__ = ["CommandPolicy", "Decision"]

_MAX_RULES_IN_ALLOW = 6


@dataclass(frozen=True)
class Decision:
    """The policy's answer for one command line."""

    verdict: Verdict
    reason: str
    rule: str
    alternative: str | None = None
    command: str = ""
    findings: tuple[Finding, ...] = ()

    @property
    def allowed(self) -> bool:
        """True when the command may run without asking."""
        return self.verdict is Verdict.ALLOW


class CommandPolicy:
    """Judge shell commands; thread-safe (evaluation keeps no shared state)."""

    def __init__(
        self,
        rules: PolicyRules | Mapping[str, Any] | None = None,
        *,
        workspace_root: str | Path | None = None,
        policy_file: str | Path | None = None,
    ) -> None:
        if isinstance(rules, PolicyRules):
            if policy_file is not None:
                raise ValueError("pass either compiled rules or a policy_file, not both")
            self.rules = rules
        else:
            self.rules = load_rules(rules, policy_file=policy_file, workspace_root=workspace_root)
        self.workspace = (
            PurePosixPath(Path(workspace_root).resolve().as_posix())
            if workspace_root is not None
            else None
        )
        self._shells = frozenset(self.rules.groups["shells"].patterns)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Parts of the workspace override that were ignored, and why."""
        return self.rules.warnings

    def evaluate(self, command: str, *, context: str = HOST) -> Decision:
        """Judge ``command`` for running on the host (default) or in the sandbox."""
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, not {type(command).__name__}")
        if context not in CONTEXTS:
            raise ValueError(f"context must be one of {sorted(CONTEXTS)}, not {context!r}")
        evaluator = Evaluator(self.rules, context=context, workspace=self.workspace)
        if not command.strip():
            evaluator.hit("parse.empty")
        elif len(command) > self.rules.max_command_chars:
            evaluator.hit("input.too_long", f"{len(command)} characters")
        else:
            parsed = parse(command, shells=self._shells, max_nodes=self.rules.max_syntax_nodes)
            if not parsed.commands and parsed.ok:
                evaluator.hit("parse.empty")
            evaluator.run(parsed)
        return _decide(command, evaluator.findings)


def _decide(command: str, findings: list[Finding]) -> Decision:
    if not findings:
        return Decision(Verdict.REQUIRE_APPROVAL, "no rule matched", "parse.empty", None, command)
    worst = max(f.verdict for f in findings)
    if worst is Verdict.ALLOW:
        rules = list(dict.fromkeys(f.rule for f in findings))
        rules = [r for r in rules if not any(o.startswith(r + ".") for o in rules)]
        shown = " + ".join(rules[:_MAX_RULES_IN_ALLOW])
        shown += " + …" if len(rules) > _MAX_RULES_IN_ALLOW else ""
        return Decision(
            Verdict.ALLOW, f"allow-listed ({shown})", shown, None, command, tuple(findings)
        )
    top = [f for f in findings if f.verdict is worst]
    first = next((f for f in top if f.specific), top[0])
    return Decision(
        worst,
        first.reason,
        first.rule,
        first.alternative,
        first.command or command,
        tuple(findings),
    )
