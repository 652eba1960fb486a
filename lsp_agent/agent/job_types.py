"""The job contract: what a front end hands the runtime, and what it gets back.

Every front end (the language server, the ACP agent, `lsp-agent run`, the demo through the
server, the compliance benchmark) runs a job the same way:

    prepared = preflight(root, client=ClientInfo("cli"))   # settings + notices to show
    result = run_job(JobRequest(task, prepared.settings, workspace, approvals, writer, ...))

`run_job` (`lsp_agent.agent.runtime`) blocks — run it off the event loop — and never raises
for model or tool problems: every ending is a `JobResult`. While it runs, the request's
`progress` callback receives `ProgressEvent`s, including `notice` events (something the
user should know, such as traces being off). `Notice`s are rendered by each front end in
its own way (an editor message, an agent-panel message, a terminal line).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from lsp_agent.settings import Settings
    from tools.approval_gate import ApprovalGate
    from tools.mcp import McpServerSpec
    from tools.patches import PatchWriter
    from tools.workspace import Workspace

__all__ = [
    "ClientInfo",
    "JobRequest",
    "JobResult",
    "JobStatus",
    "Notice",
    "NoticeKind",
    "ProgressEvent",
]

JobStatus = Literal["answered", "max_steps", "cancelled", "stopped", "failed"]
NoticeKind = Literal["setting", "ignored_setting", "policy", "approvals", "tracing"]
Approvals = Literal["ask", "approve_all", "reject_all"]


@dataclass(frozen=True)
class Notice:
    """Something the user should be told once: a setting that fell back to its default, a
    security key an untrusted workspace file tried to set, a workspace policy rule that was
    refused, approvals nobody can answer, traces being off."""

    kind: NoticeKind
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ClientInfo:
    """The front end a job runs for: its name (logs, traces) and how approvals are answered
    (`ask`: a person answers; `approve_all`: `--yes`; `reject_all`: nobody can answer)."""

    name: str = "cli"
    approvals: Approvals = "ask"


@dataclass(frozen=True)
class ProgressEvent:
    """One thing worth telling the user while a job runs."""

    step: int
    max_steps: int
    tool: str | None
    message: str
    kind: Literal["step", "tool", "approval", "info", "plan", "subagent", "notice"] = "step"
    """`plan`: the message is the agent's current plan (AGENT_PLANNING_INTERVAL); `subagent`:
    a step or tool call of a helper agent (the explorer), labelled in the message; `notice`:
    a `Notice`'s text, to be shown as the front end shows notices."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """For a `tool` event: the call's arguments (a front end may show the path it reads)."""
    ok: bool = True
    """For a `step` event: False when the step's tool call failed (an error observation)."""


def _ignore(event: ProgressEvent) -> None:
    return None


@dataclass(frozen=True)
class JobRequest:
    """One job: the task and everything the front end lends it.

    `approvals` asks the user (or answers for them), `writer` writes approved patches,
    `workspace` reads files (the editor's buffers, the client's files, or the disk).
    `tool_servers` are MCP servers the front end offers beside the user's `MCP_CONFIG`
    (an ACP client's). `model` replaces the model `settings` name (tests, benchmarks)."""

    task: str
    settings: Settings
    workspace: Workspace
    approvals: ApprovalGate
    writer: PatchWriter
    progress: Callable[[ProgressEvent], None] = _ignore
    cancel: threading.Event = field(default_factory=threading.Event)
    client: ClientInfo = field(default_factory=ClientInfo)
    tool_servers: tuple[McpServerSpec, ...] = ()
    model: Any = None


@dataclass(frozen=True)
class JobResult:
    """How a job ended. `answer` is the final answer when `status == "answered"`."""

    status: JobStatus
    answer: str = ""
    steps: int = 0
    error: str = ""
    patches: list[str] = field(default_factory=list)  # one summary line per patch
    tools_used: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0  # every model request of the job (planning and sub-agents included)
    duration_s: float = 0.0
    facts: list[str] = field(default_factory=list)
    """What the job did to the files, from its patch records (not the model's words): every
    front end shows these beside the answer, which may claim a change no tool made."""
    model_stats: list[dict[str, Any]] = field(default_factory=list)
    """Per model request: prompt tokens (and how many were evaluated rather than reused
    from a cache, when the model says), generated tokens, seconds, why it ended."""

    @property
    def ok(self) -> bool:
        return self.status == "answered"

    @property
    def facts_line(self) -> str:
        """The facts in one line (`Applied p1 to calc.py; check passed.`)."""
        return " ".join(self.facts)
