"""Code mode (`AGENT_TYPE=code`): smolagents' CodeAgent, its code run in a Docker container.

The model answers each step with a thought and a Python block that calls the job's tools
as functions; one step can chain several calls with data flowing between them. The code
runs in a hardened container without the repository (sandbox/code/session.py); each call
comes back to the host and passes the same `InstrumentedTool` as in tool-calling mode
(code_executor.py). Around smolagents' loop, as in tool-calling mode: a short system prompt
(code_prompts.py), the step notes, the final-answer check, the context budget (on the code
and its output as well) and a monitor that reports progress and honours cancel and loop stops.

Without Docker (or with SANDBOX_BACKEND local or none) code mode is unavailable: the job
says so (log and progress) and runs the tool-calling agent instead. Model code never runs
in this process.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from smolagents import CodeAgent
from smolagents.memory import ActionStep, MemoryStep, PlanningStep, SystemPromptStep, TaskStep
from smolagents.models import ChatMessage, MessageRole, Model
from smolagents.monitoring import LogLevel

from lsp_agent.agent.code_executor import SandboxedPythonExecutor
from lsp_agent.agent.code_messages import code_step_messages, text_message
from lsp_agent.agent.code_prompts import code_model_templates, code_system_prompt
from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.factory import (
    STEP_LIMIT_PROGRESS,
    LspAgent,
    StepMonitor,
    answer_is_real,
    build_agent,
    summarize_observation,
)
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.agent.planning import PlanReplyLimitMixin, plan_every, plan_token_limit
from lsp_agent.agent.prompts import step_notes
from lsp_agent.agent.token_estimate import CHARS_PER_TOKEN
from sandbox.code import CodeSession
from sandbox.config import SandboxConfig
from tools.base import AgentTool, ToolContext
from tools.instrumented import InstrumentedTool
from tools.patches import next_step
from tools.registry import build_tools

log = logging.getLogger(__name__)

CODE_BACKENDS = ("auto", "docker")  # the SANDBOX_BACKEND values under which code may run
# Markdown fences, as small models write them; the closing one ("\n```", not contained in the
# opening one) is also a stop sequence, so a reply ends with its code block.
CODE_BLOCK_TAGS = ("```python", "\n```")


class LspCodeAgent(PlanReplyLimitMixin, CodeAgent):  # type: ignore[misc]
    """CodeAgent with our prompt, compact history (no second copy of each step's code),
    step notes and short plans."""

    def __init__(self, *, tool_context: ToolContext, **kwargs: Any) -> None:
        self.tool_context = tool_context
        self.step_calls: dict[int, list[str]] = {}  # step number -> tools its code called
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
        patches = self.tool_context.patches
        latest = patches.latest()
        hint = next_step(latest.id, latest.status) if latest else ""
        notes = step_notes(self.step_number, self.max_steps, patches.summary(), hint)
        if notes and not summary_mode:
            messages.append(text_message(MessageRole.USER, notes))
        return messages

    def step_messages(self, step: ActionStep) -> list[ChatMessage]:
        return code_step_messages(step, self.step_calls.get(step.step_number, []))


class CodeStepMonitor(StepMonitor):
    """StepMonitor for code steps: counts steps, records every tool the code called."""

    def __init__(self, *args: Any, executor: SandboxedPythonExecutor, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.executor = executor
        self.steps_taken = 0

    def __call__(self, step: ActionStep, agent: LspAgent) -> None:
        if step.step_number > self.max_steps:
            self.on_progress(
                ProgressEvent(self.max_steps, self.max_steps, None, STEP_LIMIT_PROGRESS, "info")
            )
            return
        self.context.state.begin_step()
        self.steps_taken += 1
        calls = list(self.executor.last_calls) if step.code_action is not None else []
        self.executor.last_calls = []
        if isinstance(agent, LspCodeAgent):
            agent.step_calls[step.step_number] = calls
        self.tools_used.extend(calls)
        if step.is_final_answer:
            self.final_answer_given = True
            self.tools_used.append("final_answer")
        self.budget.enforce(
            [*agent.memory.steps, step],
            lambda: agent.write_memory_to_messages() + _step_messages(agent, step),
        )
        if step.error is not None:
            line, ok = summarize_observation(str(step.error)), False
        elif step.is_final_answer:
            line, ok = "final answer", True
        else:
            line, ok = summarize_observation(_last_line(step.observations or "")), True
        tool = ", ".join(calls) if calls else ("final_answer" if step.is_final_answer else None)
        self.on_progress(
            ProgressEvent(step.step_number, self.max_steps, tool, line or "thinking", "step", ok=ok)
        )
        if self.cancel.is_set() or self.context.state.stopped:
            agent.interrupt()


def _last_line(observation: str) -> str:
    """The last printed line of a code step (or its last output), for progress."""
    text = observation.replace("Execution logs:", "").replace("Last output from code snippet:", "")
    lines = [line for line in text.splitlines() if line.strip() and line.strip() != "None"]
    return lines[-1] if lines else ""


def _step_messages(agent: Any, step: ActionStep) -> list[ChatMessage]:
    messages: list[ChatMessage] = agent.step_messages(step)
    return messages


def code_mode_problem(config: SandboxConfig, engine: Any = None) -> str | None:
    """Why model code cannot run in a Docker container here (None when it can)."""
    if config.backend not in CODE_BACKENDS:
        return (
            f"SANDBOX_BACKEND={config.backend}: model-written code runs only in the Docker "
            "sandbox (auto or docker)"
        )
    from sandbox import docker_problem

    return docker_problem(config, engine)


def build_code_agent(
    model: Model,
    context: ToolContext,
    *,
    sandbox_config: SandboxConfig,
    max_steps: int,
    num_ctx: int,
    on_progress: Callable[[ProgressEvent], None],
    cancel: threading.Event,
    planning_interval: int = 0,
    extra_tools: Sequence[AgentTool] = (),
) -> tuple[Any, StepMonitor]:
    """The code agent for one job, or the tool-calling one when code cannot run in Docker.

    `extra_tools` (the explorer) are offered in code mode too, and planning works as in
    tool-calling mode (short plans, in the budget, shown as progress)."""
    engine, problem = _docker_engine(sandbox_config)
    if engine is None:
        message = f"Code mode is unavailable ({problem}); this job uses tool calling instead."
        log.warning(message)
        on_progress(ProgressEvent(0, max_steps, None, message, "info"))
        return build_agent(
            model,
            context,
            max_steps=max_steps,
            num_ctx=num_ctx,
            on_progress=on_progress,
            cancel=cancel,
            planning_interval=planning_interval,
            extra_tools=extra_tools,
        )
    from sandbox.docker import image_tag

    context.state.max_steps = max(context.state.max_steps, max_steps + 1)
    session = CodeSession.docker(
        engine.client, image_tag(sandbox_config), step_timeout_s=sandbox_config.timeout_s
    )
    session.cancel = cancel
    session.on_close = engine.close
    executor = SandboxedPythonExecutor(
        session,
        max_chars=context.limits.max_output_chars,
        max_lines=context.limits.max_output_lines,
        stop_reason=lambda: _stop_reason(context, cancel),
    )
    tools = build_tools(context) + [InstrumentedTool(tool, context) for tool in extra_tools]
    prompt_tokens = int(len(code_system_prompt(tools)) / CHARS_PER_TOKEN)
    budget = ContextBudget.for_context(num_ctx, fixed_tokens=prompt_tokens)
    monitor = CodeStepMonitor(context, budget, on_progress, cancel, max_steps, executor=executor)
    callbacks: dict[type[MemoryStep], Any] = {ActionStep: monitor}
    templates = code_model_templates()
    plan_every(
        planning_interval,
        templates,
        callbacks,
        on_progress=on_progress,
        cancel=cancel,
        max_steps=max_steps,
        budget=budget,
    )
    agent = LspCodeAgent(
        tool_context=context,
        tools=tools,
        model=model,
        prompt_templates=templates,
        executor=executor,
        code_block_tags=CODE_BLOCK_TAGS,
        max_steps=max_steps,
        verbosity_level=LogLevel.OFF,
        step_callbacks=callbacks,
        final_answer_checks=[answer_is_real],
        planning_interval=planning_interval or None,
    )
    agent.plan_max_tokens = plan_token_limit(budget.budget_tokens)
    return agent, monitor


def _docker_engine(config: SandboxConfig) -> tuple[Any, str | None]:
    """(a local Docker engine with the sandbox image, None) or (None, the problem)."""
    if config.backend not in CODE_BACKENDS:
        return None, code_mode_problem(config)
    from sandbox.docker import DockerEngine, EngineError

    try:
        engine = DockerEngine()
    except EngineError as exc:
        return None, str(exc)
    problem = code_mode_problem(config, engine)
    if problem is not None:
        engine.close()
        return None, problem
    return engine, None


def _stop_reason(context: ToolContext, cancel: threading.Event) -> str | None:
    if cancel.is_set():
        return "the job was cancelled"
    signal = context.state.stop_signal
    if context.state.stopped:
        return signal.hint if signal is not None else "the run was stopped"
    return None


def code_agent_builder(sandbox_config: SandboxConfig) -> Callable[..., tuple[Any, StepMonitor]]:
    """`build_code_agent` for this sandbox configuration, called like `build_agent`."""
    return functools.partial(build_code_agent, sandbox_config=sandbox_config)
