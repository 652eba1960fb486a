"""Bounded context: keep every request under a token budget (75% of MODEL_NUM_CTX).

A step callback estimates the size of the next request and, while it is over budget,
masks the oldest tool results down to one line (outcome and size; the tool call with its
arguments stays in the history just before it). The
system prompt, the task, the most recent steps and the patch state (added fresh to every
request) always survive. Masking never deletes the step itself, so the native tool-call
history stays well formed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from smolagents.memory import ActionStep
from smolagents.models import ChatMessage

from lsp_agent.agent.observations import summarize_observation
from lsp_agent.models.prompt_size import CHARS_PER_TOKEN, message_chars


def estimate_tokens(
    messages: Sequence[ChatMessage], fixed_tokens: int = 0, chars_per_token: float = CHARS_PER_TOKEN
) -> int:
    """A cheap, conservative token estimate of a request: characters / `chars_per_token`
    (2.2 unless the job measured its model's) plus fixed text."""
    return fixed_tokens + int(message_chars(messages) / chars_per_token) + 4 * len(messages)


def mask_line(step: ActionStep) -> str:
    """One line standing in for a step's result (the call itself stays in the history).

    It keeps the result's own first line (a patch's id and check, an error's message, a
    file's name and lines) in words no one would pass on as a value: a model once sent the
    bare `hidden to save context: ok, 12 chars` back as a patch id."""
    observation = step.observations or ""
    first = summarize_observation(observation, limit=120)
    return f"(result shortened to save context; it began: {first})"


# Once over the budget, older results are masked down to this share of it (`enforce`).
LOW_WATER = 0.8


@dataclass
class ContextBudget:
    """Masks old observations so `messages()` stays under `budget_tokens`."""

    budget_tokens: int
    keep_recent: int = 3
    fixed_tokens: int = 0
    masked_steps: set[int] = field(default_factory=set)
    last_estimate: int = 0
    # what the model measured (`RobustModel.chars_per_token`), set by the step monitor
    chars_per_token: float = CHARS_PER_TOKEN

    @classmethod
    def for_context(
        cls, num_ctx: int, fixed_tokens: int = 0, keep_recent: int = 3
    ) -> ContextBudget:
        return cls(int(num_ctx * 0.75), keep_recent=keep_recent, fixed_tokens=fixed_tokens)

    def enforce(self, steps: Sequence[Any], messages: Callable[[], list[ChatMessage]]) -> int:
        """Mask oldest results until the estimate fits (recent steps last); return it.

        Once over the budget, older results are masked down to `LOW_WATER` of it, so that
        the history then grows unchanged for a few steps: each masking changes an early
        message, and a model that keeps its prompt cache (llama.cpp, the embedded model)
        evaluates everything after it again. Masked one result a step, Qwen2.5-Coder-1.5B
        re-read 3,400 of its 5,300 prompt tokens on every step, about 120 s each on 2 cores
        (hangman)."""
        actions = [s for s in steps if isinstance(s, ActionStep) and s.observations]
        estimate = estimate_tokens(messages(), self.fixed_tokens, self.chars_per_token)
        if estimate > self.budget_tokens:
            for keep in (self.keep_recent, 1, 0):
                # the older results down to the low-water mark; recent ones to the budget
                low = keep == self.keep_recent
                goal = int(self.budget_tokens * LOW_WATER) if low else self.budget_tokens
                for step in actions[: max(len(actions) - keep, 0)]:
                    if estimate <= goal:
                        break
                    if step.step_number in self.masked_steps:
                        continue
                    step.observations = mask_line(step)
                    step.model_output = None
                    self.masked_steps.add(step.step_number)
                    estimate = estimate_tokens(messages(), self.fixed_tokens, self.chars_per_token)
                if estimate <= self.budget_tokens:
                    break
        self.last_estimate = estimate
        return estimate
