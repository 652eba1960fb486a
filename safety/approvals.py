"""Approval requests for patches and commands, keyed by a hash of exactly what was shown.

The agent thread calls :meth:`ApprovalStore.request` and :meth:`ApprovalStore.wait`;
the LSP thread answers with :meth:`ApprovalStore.approve` / :meth:`ApprovalStore.reject`.
An approval grants one use of that exact content (:meth:`ApprovalStore.consume`); a
changed patch or command hashes differently and needs a new approval. "Always allow
this exact command in this workspace" rules are kept in a reviewable JSON file with an
expiry. Every step is recorded in the audit trail.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from safety.approval_rules import (
    AlwaysRule,
    content_hash,
    iso_time,
    load_rules_file,
    save_rules_file,
)

DEFAULT_ALWAYS_TTL_S = 7 * 24 * 3600.0
__all__ = [
    "AlwaysRule",
    "ApprovalKind",
    "ApprovalRequest",
    "ApprovalStore",
    "AuditEntry",
    "Outcome",
    "Status",
    "content_hash",
]


class ApprovalKind(StrEnum):
    """What is being approved: the kind is part of every approval's key, so a yes (or an
    always-rule) for one kind never covers the same text as another."""

    PATCH = "patch"
    COMMAND = "command"  # a command run in the sandbox (run_cmd, run_tests)
    MCP_CALL = "mcp_call"  # a call of an MCP tool, on this machine
    HOST_COMMAND = "host_command"  # a command run unsandboxed (SANDBOX_BACKEND=local)
    MEMORY_NOTE = "memory_note"  # a note kept for later jobs in the workspace (`remember`)

    @property
    def allows_always(self) -> bool:
        """Whether "always allow this exact one" is offered for this kind."""
        return self in (ApprovalKind.COMMAND, ApprovalKind.MCP_CALL)


class Status(StrEnum):
    """Where a request stands."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    TIMED_OUT = "timed_out"


@dataclass(frozen=True)
class ApprovalRequest:
    """One question put to the user."""

    id: str
    kind: ApprovalKind
    content_hash: str
    summary: str
    workspace: str | None
    created_at: float


@dataclass(frozen=True)
class Outcome:
    """The answer to a request (a timeout counts as a rejection)."""

    request_id: str
    status: Status
    by: str | None = None
    reason: str = ""
    at: float = 0.0

    @property
    def approved(self) -> bool:
        """True only for an explicit approval (or a matching always-rule)."""
        return self.status is Status.APPROVED

    @property
    def rejected(self) -> bool:
        """True for a rejection, including a wait that timed out."""
        return self.status in (Status.REJECTED, Status.TIMED_OUT)


@dataclass(frozen=True)
class AuditEntry:
    """Who did what, to which content, when."""

    at: float
    who: str
    action: str
    kind: str
    content_hash: str
    request_id: str | None = None
    detail: str = ""


class ApprovalStore:
    """Thread-safe approval requests, single-use grants, always-rules and an audit trail."""

    def __init__(
        self,
        *,
        rules_file: str | Path | None = None,
        clock: Callable[[], float] = time.time,
        always_ttl_s: float = DEFAULT_ALWAYS_TTL_S,
    ) -> None:
        self._cond = threading.Condition()
        self._clock = clock
        self._ttl = always_ttl_s
        self._rules_file = Path(rules_file) if rules_file is not None else None
        self._requests: dict[str, ApprovalRequest] = {}
        self._outcomes: dict[str, Outcome] = {}
        self._grants: dict[str, int] = {}
        self._commands: dict[str, str] = {}
        self._always: dict[str, AlwaysRule] = {}
        self._audit: list[AuditEntry] = []
        self._counter = 0
        self._load_rules()

    # ---- asking and answering -------------------------------------------------------
    def request(
        self,
        kind: ApprovalKind,
        content: str,
        *,
        summary: str = "",
        workspace: str | None = None,
        requested_by: str = "agent",
    ) -> ApprovalRequest:
        """Open a request for ``content``; answered at once if an always-rule matches."""
        kind = ApprovalKind(kind)
        with self._cond:
            self._counter += 1
            now = self._clock()
            digest = content_hash(kind, content, workspace)
            req = ApprovalRequest(f"a{self._counter}", kind, digest, summary, workspace, now)
            self._requests[req.id] = req
            if kind.allows_always:
                self._commands[req.id] = content
            self._log(requested_by, "requested", req, summary)
            rule = self._always.get(digest) if kind.allows_always else None
            if rule is not None and rule.active(now):
                self._decide(req, Status.APPROVED, "always-rule", "matches an always-allow rule")
                self._grants[digest] = self._grants.get(digest, 0) + 1
            return req

    def wait(self, request_id: str, timeout_s: float) -> Outcome:
        """Block until the request is answered; after ``timeout_s`` it ends as rejected."""
        with self._cond:
            req = self._requests[request_id]
            deadline = time.monotonic() + max(timeout_s, 0.0)
            while request_id not in self._outcomes:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    reason = f"no answer within {timeout_s:g} s"
                    return self._decide(req, Status.TIMED_OUT, "timeout", reason)
                self._cond.wait(remaining)
            return self._outcomes[request_id]

    def approve(
        self,
        request_id: str,
        *,
        by: str = "user",
        always: bool = False,
        expires_in_s: float | None = None,
    ) -> Outcome:
        """Approve a pending request (one use); ``always`` also adds an always-rule.

        Always-rules are only possible for command requests made with a workspace.
        """
        with self._cond:
            req = self._requests[request_id]
            if request_id in self._outcomes:
                self._log(by, "late answer ignored", req, "approve")
                return self._outcomes[request_id]
            outcome = self._decide(req, Status.APPROVED, by, "")
            self._grants[req.content_hash] = self._grants.get(req.content_hash, 0) + 1
            if always:
                self._add_always(req, by, expires_in_s)
            return outcome

    def reject(self, request_id: str, reason: str = "", *, by: str = "user") -> Outcome:
        """Reject a pending request."""
        with self._cond:
            req = self._requests[request_id]
            if request_id in self._outcomes:
                self._log(by, "late answer ignored", req, "reject")
                return self._outcomes[request_id]
            return self._decide(req, Status.REJECTED, by, reason)

    # ---- queries ---------------------------------------------------------------------
    def is_approved(
        self, kind: ApprovalKind, content: str, *, workspace: str | None = None
    ) -> bool:
        """True when an unused approval or an active always-rule covers ``content``."""
        digest = content_hash(ApprovalKind(kind), content, workspace)
        with self._cond:
            if self._grants.get(digest, 0) > 0:
                return True
            rule = self._always.get(digest) if ApprovalKind(kind).allows_always else None
            return rule is not None and rule.active(self._clock())

    def consume(
        self, kind: ApprovalKind, content: str, *, workspace: str | None = None, by: str = "agent"
    ) -> bool:
        """Use one approval of ``content``; False when none is left."""
        kind = ApprovalKind(kind)
        digest = content_hash(kind, content, workspace)
        with self._cond:
            count = self._grants.get(digest, 0)
            if count > 0:
                self._grants[digest] = count - 1
                self._audit.append(AuditEntry(self._clock(), by, "used", kind, digest))
                return True
            rule = self._always.get(digest) if kind.allows_always else None
            if rule is not None and rule.active(self._clock()):
                self._audit.append(
                    AuditEntry(self._clock(), by, "used", kind, digest, detail="always-rule")
                )
                return True
            return False

    def outcome(self, request_id: str) -> Outcome | None:
        """The answer to a request, or None while it is pending."""
        with self._cond:
            return self._outcomes.get(request_id)

    def pending(self) -> list[ApprovalRequest]:
        """Requests not answered yet."""
        with self._cond:
            return [r for i, r in self._requests.items() if i not in self._outcomes]

    def always_rules(self) -> list[AlwaysRule]:
        """Active always-allow rules."""
        with self._cond:
            now = self._clock()
            return [r for r in self._always.values() if r.active(now)]

    def revoke_always(
        self,
        command: str,
        workspace: str,
        *,
        by: str = "user",
        kind: ApprovalKind = ApprovalKind.COMMAND,
    ) -> bool:
        """Remove the always-rule for ``command`` (of ``kind``) in ``workspace``."""
        digest = content_hash(kind, command, workspace)
        with self._cond:
            if self._always.pop(digest, None) is None:
                return False
            self._audit.append(
                AuditEntry(self._clock(), by, "always-rule revoked", "command", digest)
            )
            self._save_rules()
            return True

    def audit(self) -> list[AuditEntry]:
        """The audit trail, oldest first."""
        with self._cond:
            return list(self._audit)

    # ---- internals (lock held) -------------------------------------------------------
    def _decide(self, req: ApprovalRequest, status: Status, by: str, reason: str) -> Outcome:
        outcome = Outcome(req.id, status, by, reason, self._clock())
        self._outcomes[req.id] = outcome
        self._log(by, status.value, req, reason)
        self._cond.notify_all()
        return outcome

    def _log(self, who: str, action: str, req: ApprovalRequest, detail: str) -> None:
        self._audit.append(
            AuditEntry(self._clock(), who, action, req.kind, req.content_hash, req.id, detail)
        )

    def _add_always(self, req: ApprovalRequest, by: str, expires_in_s: float | None) -> None:
        command = self._commands.get(req.id)
        if not req.kind.allows_always or not req.workspace or command is None:
            raise ValueError(
                "always-rules need a command or MCP call request made with a workspace"
            )
        now = self._clock()
        ttl = self._ttl if expires_in_s is None else expires_in_s
        rule = AlwaysRule(
            command, req.content_hash, req.workspace, now, now + ttl, by, str(req.kind)
        )
        self._always[rule.content_hash] = rule
        self._log(by, "always-rule added", req, f"expires {iso_time(rule.expires_at)}")
        self._save_rules()

    def _load_rules(self) -> None:
        if self._rules_file is None:
            return
        try:
            rules = load_rules_file(self._rules_file, self._clock())
        except ValueError as exc:
            entry = AuditEntry(self._clock(), "store", "rules file ignored", "", "", None, str(exc))
            self._audit.append(entry)
            return
        self._always = {r.content_hash: r for r in rules}

    def _save_rules(self) -> None:
        if self._rules_file is not None:
            now = self._clock()
            save_rules_file(self._rules_file, [r for r in self._always.values() if r.active(now)])
