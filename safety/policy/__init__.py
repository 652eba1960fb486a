"""The command policy: ALLOW, REQUIRE_APPROVAL or DENY for a shell command line.

What other packages may import is here: ``CommandPolicy(workspace_root=DIR).evaluate(cmd)``
gives a ``Decision`` (``verdict``: a ``Verdict`` whose ``.name`` is ALLOW, REQUIRE_APPROVAL
or DENY; ``reason``; the rule that fired), ``workspace_policy_warnings`` what a workspace's
stricter-only policy file tried and was refused, and ``benchmark`` the speed figures of
``lsp-agent bench policy``.

Inside: ``command_policy`` (the entry point), ``shell/`` (the parser: a command line as
simple commands of words), ``evaluator`` with ``targets`` and ``paths`` (what a command
reads, writes and runs), ``args`` (flags and operands), ``checks`` and ``code_checks`` (named
checks of programs), ``wrappers`` (``env``, ``xargs``, ``sudo`` ...), the rules as data in
``default_policy.toml`` read by ``loading`` into ``rules``, ``overrides`` (user file and
stricter-only workspace file), ``verdict`` and ``bench``.
"""

from __future__ import annotations

from safety.policy.command_policy import CommandPolicy, Decision
from safety.policy.loading import workspace_policy_warnings
from safety.policy.rules import PolicyFileError
from safety.policy.verdict import CONTEXTS, HOST, SANDBOX, Finding, Verdict

__all__ = [
    "CONTEXTS",
    "HOST",
    "SANDBOX",
    "CommandPolicy",
    "Decision",
    "Finding",
    "PolicyFileError",
    "Verdict",
    "benchmark",
    "workspace_policy_warnings",
]


def benchmark(n: int = 2000) -> dict[str, object]:
    """``lsp-agent bench policy``: median CPU per command on a mixed corpus, and the
    slowest command of shapes built to be expensive (see :mod:`safety.policy.bench`)."""
    from safety.policy.bench import measure

    return measure(n)
