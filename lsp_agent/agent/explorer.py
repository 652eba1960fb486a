"""The explorer sub-agent (`AGENT_SUBAGENTS=explorer`): a read-only helper the agent can ask.

The main agent is offered one more tool, `explorer(task)`. Like every tool it is wrapped in
`InstrumentedTool` (validated, policy-checked, traced as `tool_wrapped.explorer`, recorded
for loop detection). Calling it runs a second `LspAgent` on the same model
(the one builder, `agent.factory.build_agent`) with:

- the registry's read-only tools only (`build_tools(read_only=True)`: repo_info, list_files,
  rg_search, read_file, read_file_snippet, git_status, git_diff, git_log), each wrapped
  too: no patch, apply, command, memory or MCP tool exists for it, and its context has no
  sandbox;
- its own step limit (`EXPLORER_MAX_STEPS`, at most the job's), run state (step count,
  loop detection) and context budget, and a short system prompt of its own;
- the job's cancel event: its step monitor interrupts it within one step;
- its progress reported through the job's callback as `subagent` events, labelled
  `explorer step 2/8 · read_file · …`;
- its tool spans nested under the `tool_wrapped.explorer` span (it runs in the caller's
  thread, inside that span's OpenTelemetry context).

Its final answer (at most `ANSWER_MAX_CHARS`) is the tool's observation. Whatever goes
wrong inside — the step limit, a loop stop, a cancel, a bug — becomes an observation with a
recovery hint; the main agent carries on.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsp_agent.agent.job_types import ProgressEvent
from safety.errors import ErrorType
from safety.run_state import AgentState
from tools.base import AgentTool, ToolContext, ToolFailure
from tools.registry import build_tools

if TYPE_CHECKING:
    from lsp_agent.agent.factory import AgentRun
    from sandbox.protocol import Sandbox

log = logging.getLogger(__name__)

NAME = "explorer"
EXPLORER_MAX_STEPS = 8
ANSWER_MAX_CHARS = 2000
EXPLORER_PROMPT = (
    "You are a read-only explorer helping a coding agent. Find what the task asks with "
    "list_files, rg_search, read_file, read_file_snippet and the git tools; you cannot "
    "change anything. One tool call per reply. End with final_answer: the facts found, "
    "with file paths and line numbers, in a few short lines."
)
NARROWER = "Ask the explorer a narrower question, or look yourself with rg_search and read_file."


class Explorer(AgentTool):
    """`explorer(task)`: runs the read-only sub-agent; its final answer is the observation."""

    name = NAME
    description = (
        "Ask a read-only helper to explore the repository: it lists, searches and reads "
        "files (it cannot change anything) and reports what it found. Give it one precise "
        "question."
    )
    inputs = {  # noqa: RUF012 (smolagents tools declare `inputs` as a class-level dict)
        "task": {
            "type": "string",
            "description": "What to find out, e.g. where X is defined and what calls it.",
        }
    }
    output_type = "string"

    def __init__(self, job: AgentRun, max_steps: int) -> None:
        """The explorer of the job `job` describes (its model, context window, progress
        and cancel), with a step limit of its own."""
        self.job = job
        self.max_steps = max_steps
        super().__init__(job.context)

    def forward(self, task: str) -> str:
        if not task.strip():
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                "explorer needs a task: the question to answer",
                'Call explorer(task="where is <name> defined and what calls it?").',
            )
        if self.job.cancel.is_set():
            raise ToolFailure(ErrorType.INTERNAL_ERROR, "the job was cancelled", "Stop here.")
        from smolagents.utils import AgentError

        from lsp_agent.agent.factory import AgentRun, build_agent

        sub = self.sub_context()
        job = self.job
        run = AgentRun(job.model, sub, self.max_steps, job.num_ctx, self.report, job.cancel)
        built = build_agent(
            run, tools=build_tools(sub, read_only=True), system_prompt=EXPLORER_PROMPT
        )
        monitor = built.monitor
        try:
            answer = built.agent.run(task, max_steps=self.max_steps)
        except AgentError as exc:  # interrupted: cancel or a loop stop
            raise self._failure(sub, exc) from None
        except Exception as exc:  # a bug: logged, and the main agent goes on without it
            log.exception("the explorer sub-agent failed")
            raise ToolFailure(
                ErrorType.INTERNAL_ERROR,
                f"the explorer failed ({type(exc).__name__}: {exc})",
                NARROWER,
            ) from None
        finally:
            built.close()
            sub.close()
        text = str(answer if answer is not None else "").strip()
        if len(text) > ANSWER_MAX_CHARS:
            text = text[: ANSWER_MAX_CHARS - 1] + "…"
        steps = len(monitor.tools_used)
        if not monitor.final_answer_given:
            return (
                f"The explorer used all its {self.max_steps} steps without an answer. "
                f"What it found: {text}\n{NARROWER}"
            )
        return f"Explorer's answer ({steps} steps):\n{text}"

    def _failure(self, sub: ToolContext, exc: Exception) -> ToolFailure:
        if self.job.cancel.is_set():
            return ToolFailure(ErrorType.INTERNAL_ERROR, "the job was cancelled", "Stop here.")
        signal = sub.state.stop_signal
        if signal is not None:
            return ToolFailure(
                ErrorType.LOOP_DETECTED,
                f"the explorer was stopped: {signal.hint}",
                NARROWER,
            )
        return ToolFailure(ErrorType.INTERNAL_ERROR, f"the explorer stopped: {exc}", NARROWER)

    def sub_context(self) -> ToolContext:
        """The sub-agent's own context: the job's workspace, limits, policy and tracer; its
        own run state; no sandbox, memory or MCP servers. What it reads counts as read for
        the job (`seen_paths`, one set): its answer carries what those files say."""
        parent = self.context

        def no_sandbox() -> Sandbox:
            raise RuntimeError("the explorer's read-only tools never use the sandbox")

        def tool_started(name: str, arguments: dict[str, Any]) -> None:
            self.report(
                ProgressEvent(0, self.max_steps, name, f"running {name}", "tool", arguments)
            )

        return ToolContext(
            workspace=parent.workspace,
            limits=parent.limits,
            policy=parent.policy,
            approvals=parent.approvals,
            state=AgentState(max_steps=self.max_steps + 1),
            writer=parent.writer,
            sandbox_factory=no_sandbox,
            project=parent.project,
            tracer=parent.tracer,
            on_tool_call=tool_started,
            seen_paths=parent.seen_paths,
        )

    def report(self, event: ProgressEvent) -> None:
        """A sub-agent event, as a `subagent` event at the caller's step."""
        if event.kind == "tool":
            line = f"{NAME}: running {event.tool}"
        elif event.kind == "step":
            line = f"{NAME} step {event.step}/{event.max_steps} · {event.tool or 'no tool'}"
            line += f" · {event.message}" if event.message else ""
        else:
            line = f"{NAME}: {event.message}"
        step = min(self.context.state.step + 1, self.job.max_steps)
        self.job.progress(
            ProgressEvent(
                step,
                self.job.max_steps,
                NAME,
                line,
                "subagent",
                arguments=dict(event.arguments),
                ok=event.ok,
            )
        )


def subagent_tools(names: tuple[str, ...], run: AgentRun) -> list[AgentTool]:
    """The helper agents (`AGENT_SUBAGENTS`) the job offers as tools, unwrapped; each builds
    its agent from the job's `run` (same model, context window, progress and cancel)."""
    tools: list[AgentTool] = []
    for name in names:
        if name != NAME:
            log.warning("AGENT_SUBAGENTS: unknown helper agent %r (known: %s)", name, NAME)
            continue
        tools.append(Explorer(run, max_steps=min(EXPLORER_MAX_STEPS, run.max_steps)))
    return tools
