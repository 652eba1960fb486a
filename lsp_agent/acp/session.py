"""One ACP session: a workspace root, its settings, and one prompt (agent job) at a time.

`session/new` gives the cwd: the workspace root, whose settings and notices come from the
job preflight every front end shares (`lsp_agent.agent.preflight`); the notices are told at
the start of the session's first prompt, as agent message text. A prompt runs one
`JobRequest` through the shared runner in a worker thread with this session's gate, writer
and workspace; its progress becomes session updates. `session/cancel` sets the job's cancel
event: no further model call starts, nothing more is written, and the prompt answers
`cancelled` once the job has stopped and its last updates are sent.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp.helpers import update_agent_message_text

from lsp_agent.acp.approval import AcpApprovalGate
from lsp_agent.acp.client_calls import ClientCalls
from lsp_agent.acp.files import ClientPatchWriter, ClientWorkspace
from lsp_agent.acp.tool_updates import ToolCallTracker
from lsp_agent.agent.job_types import ClientInfo, JobRequest, JobResult, JobStatus, Notice
from lsp_agent.settings import Settings
from safety.approvals import ApprovalStore

if TYPE_CHECKING:
    from tools.mcp import McpServerSpec

log = logging.getLogger(__name__)

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
STOP_REASONS: dict[JobStatus, StopReason] = {
    "answered": "end_turn",
    "max_steps": "max_turn_requests",
    "cancelled": "cancelled",
    "stopped": "end_turn",
    "failed": "end_turn",
}
HISTORY_TURNS = 3
HISTORY_CHARS = 600

JobRunner = Callable[[JobRequest], JobResult]
JOB_CLIENT = ClientInfo("acp")


def client_mcp_specs(servers: list[dict[str, Any]]) -> tuple[McpServerSpec, ...]:
    """The client's stdio MCP servers as specs, never trusted: each call asks first (the
    user's own servers, like `MCP_CONFIG` entries without `"trust": true`)."""
    from tools.mcp import McpServerSpec  # the mcp SDK: only when a prompt runs

    specs = []
    for entry in servers:
        command = entry.get("command")
        if entry.get("type", "stdio") != "stdio" or not isinstance(command, str):
            log.info("acp: MCP server %r is not a stdio server; not offered", entry.get("name"))
            continue
        env = {
            str(item.get("name")): str(item.get("value", ""))
            for item in entry.get("env") or []
            if isinstance(item, dict) and item.get("name")
        }
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(entry.get("name") or "client"))[:40]
        args = tuple(str(arg) for arg in entry.get("args") or [])
        specs.append(McpServerSpec(name=name, command=command, args=args, env=env, trust=False))
    return tuple(specs)


def load_runtime() -> JobRunner:
    """The real agent runtime (imports smolagents and LiteLLM: only when a prompt runs)."""
    from lsp_agent.agent.runtime import run_job

    return run_job


class PromptBusy(RuntimeError):
    """A prompt arrived while another one runs in the same session."""


def _short(text: str) -> str:
    return text if len(text) <= HISTORY_CHARS else text[: HISTORY_CHARS - 1] + "…"


def result_message(result: JobResult) -> str:
    """What the agent says at the end of a prompt."""
    facts = "\n\n" + "\n".join(result.facts) if result.facts else ""
    if result.status == "answered":
        return result.answer + facts
    if result.status == "cancelled":
        return "Cancelled: nothing more was run or written."
    parts = [f"The job ended: {result.status} after {result.steps} steps."]
    if result.error:
        parts.append(result.error)
    if result.answer:
        parts.append(result.answer)
    return "\n".join(parts) + facts


@dataclass
class AcpSession:
    """One conversation in the client's agent panel."""

    id: str
    root: Path
    settings: Settings
    store: ApprovalStore
    notices: tuple[Notice, ...] = ()  # the preflight's, told at the first prompt
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    history: list[tuple[str, str]] = field(default_factory=list)
    cancel: threading.Event = field(default_factory=threading.Event)
    busy: bool = False

    def begin(self) -> None:
        if self.busy:
            raise PromptBusy(
                "a prompt is already running in this session; wait for it or cancel it"
            )
        self.busy = True
        self.cancel = threading.Event()

    def task_text(self, prompt: str) -> str:
        """The prompt, after the last few exchanges of this conversation (bounded)."""
        if not self.history:
            return prompt
        lines = ["Earlier in this conversation:"]
        for asked, answered in self.history[-HISTORY_TURNS:]:
            lines += [f"- user: {_short(asked)}", f"  you: {_short(answered)}"]
        return "\n".join([*lines, "", "Now:", prompt])

    def run(self, prompt: str, client: ClientCalls, runner: JobRunner) -> StopReason:
        """Run one prompt to its end in this (worker) thread; the stop reason to answer."""
        cancel = self.cancel
        tracker = ToolCallTracker(client, self.root)
        for notice in self.notices:
            tracker.tell(notice.text)
        self.notices = ()
        try:
            workspace = ClientWorkspace(self.root, client)
            gate = AcpApprovalGate(self.store, client, tracker, workspace, cancel)
            request = JobRequest(
                self.task_text(prompt),
                self.settings,
                workspace,
                approvals=gate,
                writer=ClientPatchWriter(workspace, client, cancel),
                progress=tracker.on_progress,
                cancel=cancel,
                client=JOB_CLIENT,
                tool_servers=client_mcp_specs(self.mcp_servers),
            )
            result = runner(request)
        except ValueError as exc:  # the workspace root is gone or not a directory
            result = JobResult("failed", error=str(exc))
        except Exception as exc:  # the runtime reports every ending; this is a bug
            log.exception("acp: the agent job failed")
            result = JobResult("failed", error=f"{type(exc).__name__}: {exc}")
        if cancel.is_set():
            result = JobResult("cancelled", steps=result.steps, patches=result.patches)
        tracker.finish_open("failed", "cancelled" if cancel.is_set() else "the job ended")
        message = result_message(result)
        if message:
            client.update(update_agent_message_text(message))
        self.history.append((prompt, message))
        log.info("acp session %s: prompt ended %s (%s steps)", self.id, result.status, result.steps)
        return STOP_REASONS[result.status]
