"""What every agent tool shares: its context, limits, base class and failure type.

Tools are smolagents `Tool` subclasses with literal class attributes (`name`,
`description`, `inputs`, `output_type`) and a typed `forward`. They never talk to the
editor: they read through a `Workspace`, run commands through a `Sandbox`, and ask for
approval through an `ApprovalGate`, all carried by one `ToolContext` injected at
construction. A model-caused problem is raised as `ToolFailure` (or a safety
`ValidationError` / patch `PatchError`) and becomes a structured observation in the
wrapper; anything else is a bug and is reported as one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from smolagents import Tool

from safety.errors import ErrorType, ToolError
from safety.policy import CommandPolicy
from safety.run_state import AgentState
from sandbox.project import ProjectProfile
from tools.approval_gate import ApprovalAsk, ApprovalGate, RejectAll
from tools.patches import PatchStore, PatchWriter

__all__ = ["AgentTool", "ApprovalAsk", "ToolContext", "ToolFailure", "ToolLimits"]
from tools.workspace import Workspace

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from sandbox.protocol import Sandbox
    from tools.mcp import McpToolbox
    from tools.memory_tool import NoteStore


@dataclass(frozen=True)
class ToolLimits:
    """Input and output bounds (the VALIDATION_* and TRUNCATION_* settings; built by
    `Settings.tool_limits()`)."""

    max_input_chars: int = 5000
    max_input_lines: int = 200
    max_line_range: int = 1000
    max_output_chars: int = 3000
    max_output_lines: int = 150
    max_list_items: int = 100
    command_timeout_s: float = 30.0


@dataclass
class ToolContext:
    """Everything the tools of one agent session share. Built by the agent runtime.

    `writer` writes approved patches and `sandbox_factory` opens the session's sandbox: both
    are the front end's and the runtime's choice, so both are required (nothing falls back
    to writing the disk or opening a sandbox of its own); so is `project`, the job's one
    answer about its repository (`sandbox.project`)."""

    workspace: Workspace
    writer: PatchWriter
    sandbox_factory: Callable[[], Sandbox]
    project: ProjectProfile  # the job's answers about its repository (check command, ...)
    limits: ToolLimits = field(default_factory=ToolLimits)
    policy: CommandPolicy = field(default_factory=CommandPolicy)
    approvals: ApprovalGate = field(default_factory=RejectAll)
    state: AgentState = field(default_factory=AgentState)
    patches: PatchStore = field(default_factory=PatchStore)
    tracer: Tracer | None = None
    on_tool_call: Callable[[str, dict[str, Any]], None] | None = None  # progress hook
    memory: NoteStore | None = None  # workspace memory (AGENT_MEMORY); None = off
    mcp: McpToolbox | None = None  # the job's MCP servers (MCP_CONFIG); None = none
    # The patch tools offered (AGENT_EDIT_FORMATS): propose_patch, propose_patch_unified,
    # propose_file; show_patch and apply_patch come with any of them.
    patch_tools: tuple[str, ...] = ("propose_patch", "propose_patch_unified")
    # The files the task points at (`agent.task_pointers`): a loop warning names the first
    # one not seen yet, with the call that reads it. `seen_paths`: the files a call has read
    # or proposed a change to without an error so far.
    task_files: tuple[str, ...] = ()
    # The code names the task mentions (`agent.task_pointers.task_names`): a failing test
    # that calls one is the task's (`tools.patches.missed_tests`).
    task_names: tuple[str, ...] = ()
    seen_paths: set[str] = field(default_factory=set)
    _sandbox: Sandbox | None = None

    def sandbox(self) -> Sandbox:
        """The session's sandbox, opened on first use (lazily: Docker start is not free)."""
        if self._sandbox is None:
            self._sandbox = self.sandbox_factory()
        return self._sandbox

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
        if self.mcp is not None:
            self.mcp.close()


class ToolFailure(ToolError):
    """A problem the model caused; becomes `{"error", …, "recovery_suggestion"}`."""

    def __init__(
        self,
        error_type: ErrorType,
        message: str,
        recovery_suggestion: str,
        **context: Any,
    ) -> None:
        super().__init__(error_type, message, recovery_suggestion, context)


class AgentTool(Tool):  # type: ignore[misc]
    """Base of our tools: holds the context and declares what the wrapper must check.

    `path_inputs` name the arguments validated as workspace paths; `command_input` names
    the argument judged by the command policy; `read_only` says the tool only reads the
    repository (files, git) and changes nothing; `thought_leads`, when not None, ask a model
    that can (the embedded one) to think in words before it writes the call: its own
    thought, then each lead followed by its words (the edit tools); `approval_for()` says
    what a call needs approved (beyond REQUIRE_APPROVAL commands, which the wrapper handles
    itself).
    """

    path_inputs: ClassVar[tuple[str, ...]] = ()
    command_input: ClassVar[str | None] = None
    read_only: ClassVar[bool] = False  # only reads the repository (the explorer gets these)
    thought_leads: ClassVar[tuple[str, ...] | None] = None  # words first (see the class doc)
    output_type = "string"

    def __init__(self, context: ToolContext) -> None:
        self.context = context
        super().__init__()

    def approval_for(self, arguments: dict[str, Any]) -> ApprovalAsk | None:
        return None

    def span_attributes(self) -> dict[str, str]:
        """Extra attributes for this tool's `tool_wrapped.<name>` span."""
        return {}

    def approval_refused(self, arguments: dict[str, Any], ask: ApprovalAsk, reason: str) -> None:
        """The user refused what `approval_for` asked (the call is not run): record it."""

    def command_of(self, arguments: dict[str, Any]) -> str | None:
        """The shell command this call would run (judged by the policy), if any."""
        if self.command_input is None:
            return None
        value = arguments.get(self.command_input)
        return value if isinstance(value, str) else None

    def command_context(self) -> str:
        """Where this tool's commands run, for the policy: "sandbox" or "host"."""
        return "host"
