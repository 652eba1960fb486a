"""The approval gate: how a tool call that needs the user's yes gets it.

The wrapper asks the gate before a patch is applied or a REQUIRE_APPROVAL command runs.
Gates: `AutoApprove` (`--yes`), `RejectAll` (no one to ask), and `StoreGate`, which opens
a request in the thread-safe `ApprovalStore` keyed by the exact content, lets a presenter
show it (a terminal prompt, an editor dialog), and waits — a timeout is a rejection.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from safety.approvals import ApprovalKind, ApprovalRequest, ApprovalStore, Outcome, Status


@dataclass(frozen=True)
class ApprovalAsk:
    """What a tool call needs approved before it runs: the exact content shown."""

    kind: ApprovalKind
    content: str
    summary: str
    details: str = ""


class ApprovalGate(Protocol):
    def ask(self, ask: ApprovalAsk) -> Outcome: ...


class AutoApprove:
    """Approves everything it is asked (the user said `--yes`). DENY never reaches a gate."""

    def ask(self, ask: ApprovalAsk) -> Outcome:
        return Outcome(
            "auto", Status.APPROVED, by="--yes", reason="approved by --yes", at=time.time()
        )


class RejectAll:
    """Rejects everything: nobody can be asked (no TTY and no `--yes`)."""

    def __init__(
        self, reason: str = "no one to ask for approval (no terminal and no --yes)"
    ) -> None:
        self.reason = reason

    def ask(self, ask: ApprovalAsk) -> Outcome:
        return Outcome("none", Status.REJECTED, by="gate", reason=self.reason, at=time.time())


Presenter = Callable[[ApprovalRequest, ApprovalAsk], None]


class StoreGate:
    """Opens a request in `store`, hands it to `present`, waits up to `timeout_s`.

    `present` must return quickly (it may answer at once, e.g. a terminal prompt, or
    leave the answer to another thread, e.g. an editor dialog calling
    `store.approve(request.id)` later).
    """

    def __init__(
        self,
        store: ApprovalStore,
        present: Presenter,
        *,
        timeout_s: float = 600.0,
        workspace: str | None = None,
    ) -> None:
        self.store = store
        self.present = present
        self.timeout_s = timeout_s
        self.workspace = workspace

    def ask(self, ask: ApprovalAsk) -> Outcome:
        request = self.store.request(
            ask.kind, ask.content, summary=ask.summary, workspace=self.workspace
        )
        answered = self.store.outcome(request.id)
        if answered is not None:  # an always-allow rule matched
            return answered
        self.present(request, ask)
        return self.store.wait(request.id, self.timeout_s)


class HostCommandApproval:
    """Asks `gate` before the local sandbox runs a command on the user's machine.

    Handed to `open_sandbox(host_approval=...)`: with SANDBOX_BACKEND=local every check
    command, `run_cmd` and `run_tests` runs unsandboxed, so each needs its own yes.
    """

    def __init__(self, gate: ApprovalGate) -> None:
        self.gate = gate

    def __call__(self, argv: Sequence[str], question: str) -> bool:
        command = shlex.join(argv)
        ask = ApprovalAsk(
            kind=ApprovalKind.HOST_COMMAND,  # never covered by a sandbox command's yes
            content=command,
            summary=f"Run `{command}` UNSANDBOXED on your machine",
            details=question,
        )
        return self.gate.ask(ask).approved
