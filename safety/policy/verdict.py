"""Verdicts of the command policy and the findings that produce them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

HOST = "host"
SANDBOX = "sandbox"
CONTEXTS: frozenset[str] = frozenset({HOST, SANDBOX})


class Verdict(IntEnum):
    """What may happen to a command; a larger value is stricter."""

    ALLOW = 0
    REQUIRE_APPROVAL = 1
    DENY = 2

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)

    @classmethod
    def parse(cls, text: str) -> Verdict:
        """Read ``allow`` / ``approve`` (or ``require_approval``) / ``deny``."""
        key = text.strip().lower().replace("-", "_")
        if key == "approve":
            key = "require_approval"
        try:
            return cls[key.upper()]
        except KeyError:
            raise ValueError(f"unknown verdict {text!r} (use allow, approve or deny)") from None


@dataclass(frozen=True)
class VerdictSpec:
    """A verdict per execution context (on the host, or inside the sandbox)."""

    host: Verdict
    sandbox: Verdict

    @classmethod
    def same(cls, verdict: Verdict) -> VerdictSpec:
        """The same verdict in both contexts."""
        return cls(verdict, verdict)

    @classmethod
    def from_data(cls, value: object) -> VerdictSpec:
        """Read ``"allow"`` or ``{host = "...", sandbox = "..."}``."""
        if isinstance(value, str):
            return cls.same(Verdict.parse(value))
        if isinstance(value, dict) and set(value) <= CONTEXTS and len(value) == 2:
            return cls(Verdict.parse(str(value[HOST])), Verdict.parse(str(value[SANDBOX])))
        raise ValueError(f"bad verdict {value!r}: a word or {{host = ..., sandbox = ...}}")

    def for_context(self, context: str) -> Verdict:
        """The verdict in ``context`` (``host`` or ``sandbox``)."""
        return self.sandbox if context == SANDBOX else self.host

    def at_least(self, other: VerdictSpec) -> bool:
        """True when this is as strict as ``other`` in both contexts."""
        return self.host >= other.host and self.sandbox >= other.sandbox


@dataclass(frozen=True)
class Finding:
    """One rule that fired for (part of) a command."""

    verdict: Verdict
    reason: str
    rule: str
    alternative: str | None = None
    command: str = ""
    specific: bool = True
