"""What an agent job reports and returns: the contract between the runtime and its hosts.

The language server, the headless CLI and the demo all run jobs through
`lsp_agent.agent.runtime.run_agent_job(...)` (blocking; run it off the event loop) and see
them through these types only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# What a session learnt about its model server's parameters; hosts keep one per session and
# pass it to every job (re-exported so front ends need not import `lsp_agent.models`).
from lsp_agent.models.capabilities import CapabilityMemory

__all__ = ["CapabilityMemory", "JobResult", "JobStatus", "ProgressEvent"]

JobStatus = Literal["answered", "max_steps", "cancelled", "stopped", "failed"]


@dataclass(frozen=True)
class ProgressEvent:
    """One thing worth telling the user while a job runs."""

    step: int
    max_steps: int
    tool: str | None
    message: str
    kind: Literal["step", "tool", "approval", "info", "plan", "subagent"] = "step"
    """`plan`: the message is the agent's current plan (AGENT_PLANNING_INTERVAL); `subagent`:
    a step or tool call of a helper agent (the explorer), labelled in the message."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """For a `tool` event: the call's arguments (a front end may show the path it reads)."""
    ok: bool = True
    """For a `step` event: False when the step's tool call failed (an error observation)."""


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
