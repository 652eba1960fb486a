"""Planning (`AGENT_PLANNING_INTERVAL=N`): a short plan first, revised every N steps.

The loop is smolagents' own (`planning_interval`: a `PlanningStep` before step 1 and before
every step `1 + k*N`). Around it, for small models:

- short planning prompts (smolagents' defaults ask for a facts survey and list every tool in
  prose again: over 1,200 tokens before the task, too much for a 4k context), and planning
  replies limited to `plan_token_limit(budget)` tokens (`PlanReplyLimit`);
- `PlanMonitor`, the `PlanningStep` callback: it cleans the plan (no `<end_plan>`, no code
  fences, at most `PLAN_MAX_LINES` lines and `plan_char_limit(budget)` characters), rewrites
  the step's text to that short form (the history replays only the latest plan:
  `lsp_agent.models.messages.memory_messages`), counts it in the context budget, reports it
  as a `plan` progress event (the editor's progress message, `plan` in `lspAgent.status`)
  and stops the run at once when the job was cancelled.

A planning call offers no tools: every model wrapper answers it as plain text (RobustModel
passes text through, the embedded model completes without a grammar). A failed or empty
planning call leaves a one-line note instead of a plan, and the run goes on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from smolagents.memory import PlanningStep
from smolagents.models import ChatMessage, MessageRole, Model
from smolagents.utils import AgentError

from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.job_types import ProgressEvent
from lsp_agent.models.messages import message_text
from lsp_agent.models.prompt_size import CHARS_PER_TOKEN
from lsp_agent.models.robust import EMPTY_TEXT_REPLY, FAILED_TEXT_PREFIX

PLAN_INITIAL = (
    "Task:\n{{task}}\n\n"
    "Before you start, write a short plan for this task: at most 5 numbered steps, one "
    "line each, naming the files or tools to use. No code. Then write <end_plan>."
)
PLAN_UPDATE_PRE = "You are revising your plan. Below are the task and what you did so far."
PLAN_UPDATE_POST = (
    "{{remaining_steps}} steps are left. Revise your plan: at most 5 numbered steps, one "
    "line each, from where you are now to the final answer. No code. Then write <end_plan>."
)
PLAN_HEADER = "My plan:"
NO_PLAN = "No plan this time (the planning reply was empty or failed). Go on with the task."
PLAN_MAX_LINES = 8
PLAN_MIN_CHARS, PLAN_MAX_CHARS = 200, 1200
PLAN_MAX_REPLY_TOKENS = 200
_FENCE = re.compile(r"^\s*```\w*\s*$")


def planning_templates() -> dict[str, str]:
    """smolagents' `prompt_templates["planning"]` with the short prompts above."""
    return {
        "initial_plan": PLAN_INITIAL,
        "update_plan_pre_messages": PLAN_UPDATE_PRE,
        "update_plan_post_messages": PLAN_UPDATE_POST,
    }


def plan_char_limit(budget_tokens: int) -> int:
    """At most an eighth of the context budget, within 200..1200 characters."""
    limit = int(budget_tokens * CHARS_PER_TOKEN / 8)
    return max(PLAN_MIN_CHARS, min(PLAN_MAX_CHARS, limit))


def plan_token_limit(budget_tokens: int) -> int:
    """Most tokens a planning reply may have: what the kept plan can hold, at most
    `PLAN_MAX_REPLY_TOKENS` (a tiny model would otherwise ramble to MODEL_MAX_TOKENS)."""
    return min(PLAN_MAX_REPLY_TOKENS, int(plan_char_limit(budget_tokens) / CHARS_PER_TOKEN))


class PlanReplyLimit(Model):  # type: ignore[misc]
    """The agent's model during a planning call: replies of at most `max_tokens` tokens
    (passed as the `max_tokens` argument; see `NativeReplayMixin` for LiteLLM models)."""

    def __init__(self, inner: Model, max_tokens: int) -> None:
        super().__init__(model_id=getattr(inner, "model_id", None))
        self.inner = inner
        self.max_tokens = max_tokens

    def generate(self, messages: list[ChatMessage | dict[str, Any]], **options: Any) -> ChatMessage:
        """`inner.generate` with the same options (smolagents passes them by keyword), the
        reply's `max_tokens` capped."""
        limit = min(int(options.get("max_tokens", self.max_tokens)), self.max_tokens)
        reply: ChatMessage = self.inner.generate(messages, **{**options, "max_tokens": limit})
        return reply


class PlanReplyLimitMixin:
    """For agent classes (before smolagents' base): planning replies of at most
    `plan_max_tokens` tokens (0 = no limit), the agent's model wrapped for that call only."""

    model: Model
    plan_max_tokens = 0  # set by the agent's builder

    def _generate_planning_step(self, task: str, is_first_step: bool, step: int) -> Iterator[Any]:
        model = self.model
        if self.plan_max_tokens:
            self.model = PlanReplyLimit(model, self.plan_max_tokens)
        try:
            yield from super()._generate_planning_step(  # type: ignore[misc]
                task, is_first_step, step
            )
        finally:
            self.model = model


def clean_plan(text: str, limit: int) -> str:
    """The plan as the model should see it again: no end tag or fences, blank lines gone,
    at most `PLAN_MAX_LINES` lines and `limit` characters (cut with `…`); "" if nothing."""
    text = text.split("<end_plan>", 1)[0]
    if text.strip() == EMPTY_TEXT_REPLY or text.strip().startswith(FAILED_TEXT_PREFIX):
        return ""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not _FENCE.match(line)][:PLAN_MAX_LINES]
    plan = "\n".join(lines).strip()
    if len(plan) > limit:
        plan = plan[: limit - 1].rstrip() + "…"
    return plan


@dataclass(eq=False)
class PlanMonitor:
    """The `PlanningStep` callback: short plan in memory, in the budget, shown to the user."""

    on_progress: Callable[[ProgressEvent], None]
    cancel: threading.Event
    max_steps: int
    budget: ContextBudget
    messages: Callable[[Any], list[ChatMessage]]
    latest: str = field(default="", init=False)  # the last good plan
    plans: int = field(default=0, init=False)

    @property
    def char_limit(self) -> int:
        return plan_char_limit(self.budget.budget_tokens)

    def __call__(self, step: PlanningStep, agent: Any) -> None:
        raw = message_text(step.model_output_message.content)
        plan = clean_plan(raw, self.char_limit)
        step.model_output_message = ChatMessage(role=MessageRole.ASSISTANT, content=plan)
        self.plans += 1
        if plan:
            self.latest = plan
        # Only the latest plan is replayed: a failed revision keeps the last good plan.
        step.plan = f"{PLAN_HEADER}\n{self.latest}" if self.latest else NO_PLAN
        # smolagents appends `step` to memory only after the callbacks: count it too.
        self.budget.enforce(
            [*agent.memory.steps, step], lambda: self.messages(agent) + step.to_messages()
        )
        number = min(int(getattr(agent, "step_number", 1) or 1), self.max_steps)
        self.on_progress(
            ProgressEvent(number, self.max_steps, None, plan or NO_PLAN, "plan", ok=bool(plan))
        )
        if self.cancel.is_set():
            raise AgentError("Agent interrupted.", agent.logger)


def plan_every(
    interval: int,
    templates: dict[str, Any],
    callbacks: dict[type[Any], Any],
    *,
    on_progress: Callable[[ProgressEvent], None],
    cancel: threading.Event,
    max_steps: int,
    budget: ContextBudget,
) -> None:
    """Set an agent's templates and step callbacks up to plan every `interval` steps (both
    agent classes; 0 = no planning, nothing changes)."""
    if interval <= 0:
        return
    templates["planning"] = planning_templates()
    callbacks[PlanningStep] = PlanMonitor(
        on_progress, cancel, max_steps, budget, lambda agent: agent.write_memory_to_messages()
    )
