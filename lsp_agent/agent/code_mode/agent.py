"""Code mode (`AGENT_TYPE=code`): smolagents' CodeAgent, its code run in a Docker container.

The model answers each step with a thought and a Python block that calls the job's tools
as functions; one step can chain several calls with data flowing between them. The code
runs in a hardened container without the repository (`sandbox.code`: the sandbox opens the
job's `CodeSession`); each call comes back to the host and passes the same
`InstrumentedTool` as in tool-calling mode (executor.py). The builder
(`agent.factory.build_agent`) adds what both modes share: the final-answer check, the
context budget (here on the code and its output as well), planning and the step monitor.

Without Docker (or with SANDBOX_BACKEND local or none) code mode is unavailable: the builder
says so (log and progress) and builds tool-calling mode instead. Model code never runs in
this process.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from smolagents import CodeAgent
from smolagents.memory import ActionStep, PlanningStep, SystemPromptStep, TaskStep
from smolagents.models import ChatMessage, MessageRole

from lsp_agent.agent.code_mode.executor import SandboxedPythonExecutor
from lsp_agent.agent.code_mode.messages import code_step_messages, text_message
from lsp_agent.agent.code_mode.prompts import code_model_templates, code_system_prompt
from lsp_agent.agent.code_mode.stale_code import stale_code
from lsp_agent.agent.code_mode.written_definitions import WrittenDefinitions
from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.observations import summarize_observation
from lsp_agent.agent.planning import PlanReplyLimitMixin
from lsp_agent.agent.steps import StepMonitor, asks_for_change, job_notes
from lsp_agent.models.robust import RobustModel
from lsp_agent.models.robust.fresh import DecodesAgain
from sandbox.code import CodeSession
from tools.base import ToolContext

log = logging.getLogger(__name__)

# Markdown fences, as small models write them; the closing one is also a stop sequence, so a
# reply ends with its code block. It is "\n```\n", not "\n```": that one also matched the
# opening fence of a reply that begins with its thought ("Thought: …\n```python"), and the
# reply was cut before its code (Qwen2.5-Coder-1.5B, every step of a job).
CODE_BLOCK_TAGS = ("```python", "\n```\n")
# How a code step's reply begins when the model's replies can be begun and continued for it
# (the embedded one: `models.embedded.text_reply`, which says why).
REPLY_START = "Thought:"


class LspCodeAgent(PlanReplyLimitMixin, CodeAgent):  # type: ignore[misc]
    """CodeAgent with our prompt, compact history (no second copy of each step's code),
    step notes and short plans."""

    def __init__(
        self, *, tool_context: ToolContext, written: WrittenDefinitions, **kwargs: Any
    ) -> None:
        self.tool_context = tool_context
        self.written = written
        self.step_calls: dict[int, list[str]] = {}  # step number -> tools its code called
        self.decodes_again = DecodesAgain(self.stale_reply)
        super().__init__(**kwargs)

    def initialize_system_prompt(self) -> str:
        return code_system_prompt(self.tools.values())

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages: list[ChatMessage] = []
        # Only the latest plan is replayed, and none when smolagents revises the plan.
        plans = [step for step in self.memory.steps if isinstance(step, PlanningStep)]
        for step in [self.memory.system_prompt, *self.memory.steps]:
            if isinstance(step, SystemPromptStep | TaskStep):
                messages.extend(step.to_messages(summary_mode=summary_mode))
            elif isinstance(step, ActionStep):
                messages.extend(self.step_messages(step))
            elif isinstance(step, PlanningStep) and step is plans[-1] and not summary_mode:
                messages.extend(step.to_messages())
        notes = job_notes(self.tool_context, self.step_number, self.max_steps)
        if notes and not summary_mode:
            messages.append(text_message(MessageRole.USER, notes))
        if isinstance(self.model, RobustModel):  # set for each step (a shared model)
            self.model.stale_reply = self.decodes_again.for_step()
        return messages

    def stale_reply(self, reply: ChatMessage) -> str | None:
        """Why `reply` only repeats what this job tried (`stale_code`), or None."""
        steps = [s for s in self.memory.steps if isinstance(s, ActionStep) and s.code_action]
        previous = steps[-1].code_action if steps else None
        return stale_code(reply, self.code_block_tags, previous, self.tools, self.written)

    def step_messages(self, step: ActionStep) -> list[ChatMessage]:
        return code_step_messages(step, self.step_calls.get(step.step_number, []))


@dataclass(eq=False, kw_only=True)
class CodeStepMonitor(StepMonitor):
    """The step monitor for code steps: every step counts, every tool the code called is
    recorded (and shown, with the step's last printed line)."""

    executor: SandboxedPythonExecutor

    def step_tools(self, step: ActionStep, agent: Any) -> list[str]:
        self.steps_taken += 1
        calls = list(self.executor.last_calls) if step.code_action is not None else []
        self.executor.last_calls = []
        if isinstance(agent, LspCodeAgent):
            agent.step_calls[step.step_number] = calls
        return [*calls, "final_answer"] if step.is_final_answer else calls

    def step_messages(self, agent: Any, step: ActionStep) -> list[ChatMessage]:
        messages: list[ChatMessage] = agent.step_messages(step)
        return messages

    def step_line(self, step: ActionStep, calls: list[str]) -> tuple[str | None, str, bool]:
        called = [name for name in calls if name != "final_answer"]
        tool = ", ".join(called) if called else ("final_answer" if step.is_final_answer else None)
        if step.error is not None:
            return tool, summarize_observation(str(step.error)), False
        if step.is_final_answer:
            return tool, "final answer", True
        return tool, summarize_observation(_last_line(step.observations or "")), True


def _last_line(observation: str) -> str:
    """The last printed line of a code step (or its last output), for progress."""
    text = observation.replace("Execution logs:", "").replace("Last output from code snippet:", "")
    lines = [line for line in text.splitlines() if line.strip() and line.strip() != "None"]
    return lines[-1] if lines else ""


def _stop_reason(context: ToolContext, cancel: threading.Event) -> str | None:
    if cancel.is_set():
        return "the job was cancelled"
    signal = context.state.stop_signal
    if context.state.stopped:
        return signal.hint if signal is not None else "the run was stopped"
    return None


class CodeMode:
    """The builder's code mode (see `agent.factory.AgentMode`), on the job's code session."""

    name = "code"

    def __init__(self, session: CodeSession) -> None:
        self.session = session
        self.executor: SandboxedPythonExecutor | None = None
        self.written: WrittenDefinitions | None = None

    def templates(self, system_prompt: str | None) -> dict[str, Any]:
        return code_model_templates()

    def fixed_tokens(self, tools: list[Any], templates: dict[str, Any]) -> int:
        """None besides the history: code mode sends no tool schemas, and its system prompt
        (the tools' signatures) is the history's first message, counted there. Counted here
        too, it took 826 tokens of the budget twice, and bottle-song's first observation was
        masked before the model read it."""
        return 0

    def monitor(self, run: Any, budget: ContextBudget) -> StepMonitor:
        context = run.context
        self.session.cancel = run.cancel
        self.written = WrittenDefinitions(context, change_task=asks_for_change(run.task))
        self.executor = SandboxedPythonExecutor(
            self.session,
            max_chars=context.limits.max_output_chars,
            max_lines=context.limits.max_output_lines,
            stop_reason=lambda: _stop_reason(context, run.cancel),
            after_step=self.written,
            tool_defined=self.written.tool_defined,
            write_instead=self.written.write_instead,
            workspace_file=context.workspace.exists,
        )
        return CodeStepMonitor(
            context, budget, run.progress, run.cancel, run.max_steps, executor=self.executor
        )

    def agent(self, run: Any, monitor: StepMonitor, **common: Any) -> LspCodeAgent:
        shape = getattr(run.model, "shape_text_replies", None)  # a RobustModel
        if callable(shape):
            shape(REPLY_START, CODE_BLOCK_TAGS[0] + "\n")
        assert self.written is not None, "the builder asks for the monitor first"
        return LspCodeAgent(
            tool_context=run.context,
            written=self.written,
            executor=self.executor,
            code_block_tags=CODE_BLOCK_TAGS,
            **common,
        )

    def close(self) -> None:
        """Remove the code container (the job's end, or a cancel)."""
        self.session.close()
