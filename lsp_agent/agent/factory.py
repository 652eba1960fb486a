"""The one agent builder: smolagents' loop, instrumented for small models, in one of two modes.

`build_agent(run, mode)` makes every agent of a job — the main one and the explorer — the
same way: our tools (each wrapped in `InstrumentedTool`), the context budget enforced after
every step, the step monitor (progress, cancel, loop stops), optional planning
(`agent.planning`), the final-answer check. A mode (aider's `Coder.create(edit_format)`: one
module per mode) supplies only what is its own:

- `ToolCallingMode` (`agent.tool_calling`): `ToolCallingAgent`, JSON tool calls, compact
  schemas;
- `CodeMode` (`agent.code_mode`): `CodeAgent`, the model's Python run in the job's code
  container, which the sandbox opens (`sandbox.code.open_code_session`).

`agent_mode(settings...)` picks the mode as AGENT_TYPE says, falling back to tool calling
(and saying so) when model code cannot run in Docker here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from smolagents.agents import MultiStepAgent
from smolagents.memory import ActionStep, MemoryStep
from smolagents.models import Model
from smolagents.monitoring import LogLevel

from lsp_agent.agent.attempt_patience import AttemptPatience
from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.listed_calls import listed_calls_before_answer
from lsp_agent.agent.planning import plan_every, plan_token_limit
from lsp_agent.agent.steps import (
    StepMonitor,
    answer_is_real,
    asks_for_change,
    change_before_answer,
    names_only_what_was_asked,
    propose_only,
)
from lsp_agent.agent.tool_calling import ToolCallingMode
from sandbox.config import SandboxConfig
from tools.base import AgentTool, ToolContext
from tools.instrumented import InstrumentedTool
from tools.registry import build_tools

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentRun:
    """What an agent of a job is built from: its model and tools' context, its limits, and
    the job's progress callback and cancel event."""

    model: Model
    context: ToolContext
    max_steps: int
    num_ctx: int
    progress: Callable[[ProgressEvent], None]
    cancel: threading.Event
    planning_interval: int = 0  # plan first and every N steps; 0 = no planning
    task: str = ""  # the user's task as typed (the final-answer check reads its verb)


class AgentMode(Protocol):
    """What a mode adds to the builder's common parts."""

    name: str

    def templates(self, system_prompt: str | None) -> dict[str, Any]: ...

    def fixed_tokens(self, tools: list[Any], templates: dict[str, Any]) -> int:
        """Tokens every request carries besides the history (schemas or tool signatures)."""
        ...

    def monitor(self, run: AgentRun, budget: ContextBudget) -> StepMonitor: ...

    def agent(self, run: AgentRun, monitor: StepMonitor, **common: Any) -> MultiStepAgent: ...

    def close(self) -> None:
        """Free what the mode holds (code mode's container); idempotent."""
        ...


@dataclass
class BuiltAgent:
    """An agent ready to run, the monitor watching its steps, and how to end it."""

    agent: MultiStepAgent
    monitor: StepMonitor
    mode: AgentMode
    tools: list[Any]
    """The job's tools as the agent calls them (each in the policy-checked, traced wrapper)."""

    def close(self) -> None:
        self.mode.close()


def build_agent(
    run: AgentRun,
    mode: AgentMode | None = None,
    *,
    tools: list[Any] | None = None,
    extra_tools: Sequence[AgentTool] = (),
    system_prompt: str | None = None,
) -> BuiltAgent:
    """The agent for `run` in `mode` (default: tool calling).

    `tools` replaces the job's tools (wrapped already: the explorer's read-only set),
    `extra_tools` are added to them, wrapped here (the explorer itself); `system_prompt`
    replaces tool-calling mode's prompt."""
    mode = mode or ToolCallingMode()
    context = run.context
    main_agent = tools is None
    # The agent's own max_steps ends the run; the state's limit only backs it up.
    context.state.max_steps = max(context.state.max_steps, run.max_steps + 1)
    tools = list(tools) if tools is not None else build_tools(context)
    tools += [InstrumentedTool(tool, context) for tool in extra_tools]
    templates = mode.templates(system_prompt)
    budget = ContextBudget.for_context(
        run.num_ctx, fixed_tokens=mode.fixed_tokens(tools, templates)
    )
    monitor = mode.monitor(run, budget)
    if main_agent:  # not the explorer: its job's attempts are the main agent's to end
        change = asks_for_change(run.task) and not propose_only(run.task)
        monitor.patience = AttemptPatience(context, enabled=change).after_step
    callbacks: dict[type[MemoryStep], Any] = {ActionStep: monitor}
    plan_every(
        run.planning_interval,
        templates,
        callbacks,
        on_progress=run.progress,
        cancel=run.cancel,
        max_steps=run.max_steps,
        budget=budget,
    )
    agent = mode.agent(
        run,
        monitor,
        tools=tools,
        model=run.model,
        prompt_templates=templates,
        max_steps=run.max_steps,
        verbosity_level=LogLevel.OFF,
        step_callbacks=callbacks,
        final_answer_checks=[
            # the step the task lists first: told only that "[owner_name]" is a placeholder,
            # the model ran whatever tool came to hand (L4), not the read the task lists
            listed_calls_before_answer(
                run.task,
                [t.name for t in tools],
                # every call the wrapper recorded, this step's too (a code block may read
                # and answer in one step; the monitor counts a step after it)
                lambda: [call.tool for call in context.state.calls],
                helpers=[t.name for t in extra_tools],
            ),
            answer_is_real,
            names_only_what_was_asked(run.task),
            change_before_answer(context, run.task),
        ],
        planning_interval=run.planning_interval or None,
    )
    agent.plan_max_tokens = plan_token_limit(budget.budget_tokens)
    return BuiltAgent(agent, monitor, mode, tools)


def agent_mode(agent_type: str, sandbox: SandboxConfig, run: AgentRun) -> AgentMode:
    """The mode AGENT_TYPE names. Code mode needs the job's code container, which the sandbox
    opens; when it cannot (no local Docker engine with the image, or SANDBOX_BACKEND local or
    none), the job is told and runs in tool-calling mode."""
    if agent_type != "code":
        return ToolCallingMode()
    from sandbox.code import open_code_session

    opened = open_code_session(sandbox, cancel=run.cancel)
    if isinstance(opened, str):
        message = f"Code mode is unavailable ({opened}); this job uses tool calling instead."
        log.warning(message)
        run.progress(ProgressEvent(0, run.max_steps, None, message, "info"))
        return ToolCallingMode()
    from lsp_agent.agent.code_mode.agent import CodeMode

    return CodeMode(opened)
