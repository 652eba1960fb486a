"""Build the agent: smolagents' ToolCallingAgent loop, instrumented for small models.

The loop is smolagents' own. Around it: our tools (each wrapped), a short system prompt,
past calls replayed as native tool calls, a context budget enforced after every step,
step notes (patch state, steps left), a check that the final answer is a real answer,
and a callback that reports progress and honours cancel and loop stops. Optional: planning
steps (`agent.planning`, AGENT_PLANNING_INTERVAL) and extra tools such as the explorer
(`agent.explorer`, AGENT_SUBAGENTS), which builds its own read-only agent here too.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

from smolagents import ToolCallingAgent
from smolagents.memory import ActionStep, MemoryStep
from smolagents.models import ChatMessage, MessageRole, Model
from smolagents.monitoring import LogLevel

from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.planning import PlanReplyLimitMixin, plan_every, plan_token_limit
from lsp_agent.agent.prompts import small_model_templates, step_notes
from lsp_agent.agent.token_estimate import CHARS_PER_TOKEN
from lsp_agent.models.messages import action_messages, memory_messages
from lsp_agent.models.tool_schemas import compact_tool_schemas
from tools.base import AgentTool, ToolContext
from tools.instrumented import InstrumentedTool
from tools.patches import next_step
from tools.registry import build_tools

STEP_LIMIT_PROGRESS = "Step limit reached: the run ends here, with a summary of what was done."
PLACEHOLDER_ANSWERS = {"", "final_answer", "answer", "...", "<your answer>", "none", "null"}
# Ids that name something but say nothing: patch p1, approval a1, job 3 (or its token).
BARE_IDS = (
    ("a patch id", re.compile(r"p\d+", re.IGNORECASE)),
    ("an approval id", re.compile(r"a\d+", re.IGNORECASE)),
    ("a job id", re.compile(r"(lsp-agent/)?job[\s/#_-]*\d+", re.IGNORECASE)),
)
SAY_IT_IN_WORDS = (
    'Call final_answer(answer="<what you found and did, in plain words>") with your '
    "actual answer for the user."
)


def empty_answer_reason(text: str, tool_names: Collection[str] = ()) -> str | None:
    """Why `text` is not an answer (a placeholder, a bare id, a tool name), or None.

    A number or word that answers the task (`42`, `yes`) is an answer."""
    stripped = text.strip()
    if stripped.lower() in PLACEHOLDER_ANSWERS or stripped.startswith("<"):
        return "the final answer is empty or a placeholder"
    bare = stripped.strip("'\"`.").strip()
    for what, pattern in BARE_IDS:
        if pattern.fullmatch(bare):
            return (
                f"the final answer is only {what} ({bare}); it tells the user nothing "
                "about what was found or done"
            )
    if bare in tool_names:
        return f"the final answer is only the name of the tool {bare}, not an answer"
    return None


def answer_is_real(final_answer: Any, memory: Any, agent: Any = None) -> bool:
    """A final answer must say something: not empty, not a placeholder, a bare id or a
    tool's name. Refused answers become the step's error, which the model sees."""
    tools = getattr(agent, "tools", None) or {}
    reason = empty_answer_reason(str(final_answer), tuple(tools))
    if reason is not None:
        raise ValueError(f"{reason}. {SAY_IT_IN_WORDS}")
    return True


class LspAgent(PlanReplyLimitMixin, ToolCallingAgent):  # type: ignore[misc]
    """ToolCallingAgent that replays history natively and adds step notes."""

    def __init__(self, *, tool_context: ToolContext, **kwargs: Any) -> None:
        self.tool_context = tool_context
        super().__init__(**kwargs)

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages = memory_messages(self.memory, summary_mode)
        patches = self.tool_context.patches
        latest = patches.latest()
        hint = next_step(latest.id, latest.status) if latest else ""
        notes = step_notes(self.step_number, self.max_steps, patches.summary(), hint)
        if notes and not summary_mode:
            messages.append(
                ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": notes}])
            )
        return messages


def summarize_observation(text: str, limit: int = 160) -> str:
    """One readable line for progress: an error's message, a patch's id and check, or
    the first line of the result."""
    stripped = text.strip()
    try:
        data = json.loads(stripped)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if "error" in data and "message" in data:
            line = str(data["message"])
        elif "patch_id" in data:
            check = str(data.get("check", "")).splitlines()[0] if data.get("check") else ""
            line = f"proposed {data['patch_id']} ({check})"
        elif "exit_code" in data:
            line = f"exit code {data['exit_code']}"
        else:
            line = stripped
    else:
        line = stripped
    first = line.splitlines()[0] if line else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def is_error_observation(text: str) -> bool:
    """True when a tool's observation is the error schema (`{"error": ..., "message": ...}`),
    also with the loop detector's `[warning]` or `[stop]` note after it."""
    try:
        data, _ = json.JSONDecoder().raw_decode(text.strip())
    except ValueError:
        return False
    return isinstance(data, dict) and "error" in data and "message" in data


def schema_tokens(tools: list[Any]) -> int:
    """Estimated tokens of the tool schemas sent with every request."""
    text = json.dumps(compact_tool_schemas(tools))
    return int(len(text) / CHARS_PER_TOKEN)


class StepMonitor:
    """After each step: enforce the budget, report progress, stop on cancel or loops."""

    def __init__(
        self,
        context: ToolContext,
        budget: ContextBudget,
        on_progress: Callable[[ProgressEvent], None],
        cancel: threading.Event,
        max_steps: int,
    ) -> None:
        self.context = context
        self.budget = budget
        self.on_progress = on_progress
        self.cancel = cancel
        self.max_steps = max_steps
        self.final_answer_given = False
        self.tools_used: list[str] = []

    def __call__(self, step: ActionStep, agent: LspAgent) -> None:
        if step.step_number > self.max_steps:
            # smolagents' closing summary after the last step: not a step of its own.
            self.on_progress(
                ProgressEvent(self.max_steps, self.max_steps, None, STEP_LIMIT_PROGRESS, "info")
            )
            return
        self.context.state.begin_step()
        tool = step.tool_calls[0].name if step.tool_calls else None
        if tool:
            self.tools_used.append(tool)
        if step.is_final_answer:
            self.final_answer_given = True
        # smolagents appends `step` to memory only after the callbacks: count it too.
        self.budget.enforce(
            [*agent.memory.steps, step],
            lambda: agent.write_memory_to_messages() + action_messages(step),
        )
        observation = str(step.error) if step.error else (step.observations or "")
        line = summarize_observation(observation)
        ok = step.error is None and not is_error_observation(observation)
        self.on_progress(
            ProgressEvent(step.step_number, self.max_steps, tool, line or "thinking", "step", ok=ok)
        )
        if self.cancel.is_set() or self.context.state.stopped:
            agent.interrupt()


def build_agent(
    model: Model,
    context: ToolContext,
    *,
    max_steps: int,
    num_ctx: int,
    on_progress: Callable[[ProgressEvent], None],
    cancel: threading.Event,
    planning_interval: int = 0,
    tools: list[Any] | None = None,
    extra_tools: Sequence[AgentTool] = (),
    system_prompt: str | None = None,
) -> tuple[LspAgent, StepMonitor]:
    """The agent for one job, and the monitor that watches its steps.

    `planning_interval` N > 0 plans first and every N steps (`agent.planning`); `tools`
    replaces the job's tools (wrapped already: the explorer's read-only set), `extra_tools`
    are added to them, wrapped here (the explorer itself); `system_prompt` replaces ours."""
    # The agent's own max_steps ends the run; the state's limit only backs it up.
    context.state.max_steps = max(context.state.max_steps, max_steps + 1)
    tools = list(tools) if tools is not None else build_tools(context)
    tools += [InstrumentedTool(tool, context) for tool in extra_tools]
    budget = ContextBudget.for_context(num_ctx, fixed_tokens=schema_tokens(tools))
    monitor = StepMonitor(context, budget, on_progress, cancel, max_steps)
    callbacks: dict[type[MemoryStep], Any] = {ActionStep: monitor}
    templates = small_model_templates()
    if system_prompt is not None:
        templates["system_prompt"] = system_prompt
    plan_every(
        planning_interval,
        templates,
        callbacks,
        on_progress=on_progress,
        cancel=cancel,
        max_steps=max_steps,
        budget=budget,
    )
    agent = LspAgent(
        tool_context=context,
        tools=tools,
        model=model,
        prompt_templates=templates,
        max_steps=max_steps,
        verbosity_level=LogLevel.OFF,
        step_callbacks=callbacks,
        final_answer_checks=[answer_is_real],
        planning_interval=planning_interval or None,
    )
    agent.plan_max_tokens = plan_token_limit(budget.budget_tokens)
    return agent, monitor
