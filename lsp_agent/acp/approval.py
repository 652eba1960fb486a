"""Approvals the ACP way: `session/request_permission` on the tool call that needs them.

A patch is asked with its diff as ACP diff content (`Apply` = `allow_once`, `Reject` =
`reject_once`); a sandbox command or an MCP call that needs approval with `Run once`
(`allow_once`), `Always allow` (`allow_always`) and `Reject` (`reject_once`).
`allow_always` becomes an always-rule in the session's `ApprovalStore`: that kind and that
exact text, in this workspace, until it expires (`ALWAYS_TTL_S`) — never more than the
user saw (an MCP call's rule never covers a `run_cmd` of the same text). A command run
unsandboxed on this machine (`SANDBOX_BACKEND=local`) is asked every time. A patch gets no
`allow_always`: approving one exact diff forever would allow nothing more, so offering
it would only mislead. Anything but an allow option (reject, a cancelled or unanswered
question, a cancelled prompt) is a rejection; a rejected patch is never written.
"""

from __future__ import annotations

import threading
import time
from dataclasses import KW_ONLY, dataclass
from typing import Final, Literal

from acp.helpers import text_block, tool_content, update_tool_call
from acp.schema import PermissionOption, ToolCallLocation, ToolCallUpdate

from lsp_agent.acp.client_calls import ClientCalls
from lsp_agent.acp.diff_content import ToolContent, diff_contents, text_content
from lsp_agent.acp.tool_updates import ToolCallTracker
from safety.approvals import ApprovalKind, ApprovalRequest, ApprovalStore, Outcome, Status
from tools.approval_gate import ApprovalAsk, StoreGate
from tools.workspace import Workspace

ALLOW_ONCE: Final = "allow_once"
ALLOW_ALWAYS: Final = "allow_always"
REJECT_ONCE: Final = "reject_once"
ALWAYS_TTL_S = 8 * 3600.0
APPROVER = "acp client"


def permission_options(kind: ApprovalKind) -> list[PermissionOption]:
    if kind is ApprovalKind.PATCH:
        return [
            PermissionOption(option_id=ALLOW_ONCE, name="Apply", kind=ALLOW_ONCE),
            PermissionOption(option_id=REJECT_ONCE, name="Reject", kind=REJECT_ONCE),
        ]
    once = "Keep the note" if kind is ApprovalKind.MEMORY_NOTE else "Run once"
    options = [PermissionOption(option_id=ALLOW_ONCE, name=once, kind=ALLOW_ONCE)]
    if kind.allows_always:  # a sandbox command, or an MCP call: that kind, that exact text
        what = "call" if kind is ApprovalKind.MCP_CALL else "command"
        hours = int(ALWAYS_TTL_S // 3600)
        options.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS,
                name=f"Always allow this exact {what} here ({hours} h)",
                kind=ALLOW_ALWAYS,
            )
        )
    options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind=REJECT_ONCE))
    return options


@dataclass(eq=False)
class AcpApprovalGate:
    """The `ApprovalGate` of one prompt: asks the client, records the answer in the store."""

    store: ApprovalStore
    client: ClientCalls
    tracker: ToolCallTracker
    workspace: Workspace
    cancel: threading.Event
    _: KW_ONLY
    timeout_s: float = 600.0

    def __post_init__(self) -> None:
        root = str(self.workspace.root)
        self._gate = StoreGate(self.store, self._present, timeout_s=self.timeout_s, workspace=root)

    def ask(self, ask: ApprovalAsk) -> Outcome:
        if self.cancel.is_set():
            return Outcome(
                "none",
                Status.REJECTED,
                by="cancel",
                reason="the prompt was cancelled",
                at=time.time(),
            )
        return self._gate.ask(ask)

    def _content(self, ask: ApprovalAsk) -> list[ToolContent]:
        if ask.kind is ApprovalKind.PATCH:
            contents = diff_contents(ask.content, self.workspace)
        else:
            contents = [text_content(ask.content, "sh")]
        if ask.details:
            contents.append(tool_content(text_block(ask.details)))
        return contents

    def _present(self, request: ApprovalRequest, ask: ApprovalAsk) -> None:
        """Ask now and answer the request before returning (the job thread waits here)."""
        call_id = self.tracker.current or f"approval_{request.id}"
        content = self._content(ask)
        kind: Literal["edit", "execute"] = "edit" if ask.kind is ApprovalKind.PATCH else "execute"
        locations = [ToolCallLocation(path=c.path) for c in content if c.type == "diff"]
        self.client.update(
            update_tool_call(
                call_id, status="pending", content=content, locations=locations or None
            )
        )
        tool_call = ToolCallUpdate(
            tool_call_id=call_id,
            title=ask.summary,
            kind=kind,
            status="pending",
            content=list(content),
            locations=locations or None,
        )
        choice = self.client.request_permission(
            tool_call, permission_options(ask.kind), self.cancel, self.timeout_s
        )
        if choice == ALLOW_ONCE:
            self.store.approve(request.id, by=APPROVER)
        elif choice == ALLOW_ALWAYS and ask.kind.allows_always:
            self.store.approve(request.id, by=APPROVER, always=True, expires_in_s=ALWAYS_TTL_S)
        elif self.cancel.is_set():
            self.store.reject(request.id, "the prompt was cancelled", by="cancel")
        elif choice is None:
            self.store.reject(request.id, "the question was cancelled or not answered", by=APPROVER)
        else:
            self.store.reject(request.id, "rejected in the agent panel", by=APPROVER)
        self.client.update(update_tool_call(call_id, status="in_progress"))
