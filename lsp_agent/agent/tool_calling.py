"""Tool-calling mode (the default): smolagents' `ToolCallingAgent`, one JSON tool call a step.

The loop is smolagents' own; `LspAgent` replays past calls natively
(`models.messages.memory_messages`) and adds the step notes; the tools reach the model only as
compact schemas, whose size is counted in the context budget.
"""

from __future__ import annotations

import json
from typing import Any

from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, MessageRole

from lsp_agent.agent.context_budget import ContextBudget
from lsp_agent.agent.planning import PlanReplyLimitMixin
from lsp_agent.agent.prompts import small_model_templates
from lsp_agent.agent.stale_calls import stale_call
from lsp_agent.agent.steps import StepMonitor, job_notes
from lsp_agent.models.messages import memory_messages
from lsp_agent.models.prompt_size import CHARS_PER_TOKEN
from lsp_agent.models.robust import RobustModel, content_text
from lsp_agent.models.robust.fresh import DecodesAgain
from lsp_agent.models.tool_call_parsing import ParseSuccess, parse_tool_calls_from_text
from lsp_agent.models.tool_schemas import compact_tool_schemas
from tools.base import ToolContext

__all__ = ["LspAgent", "ToolCallingMode", "schema_tokens"]


class LspAgent(PlanReplyLimitMixin, ToolCallingAgent):  # type: ignore[misc]
    """ToolCallingAgent that replays history natively and adds step notes."""

    def __init__(self, *, tool_context: ToolContext, **kwargs: Any) -> None:
        self.tool_context = tool_context
        self.decodes_again = DecodesAgain(self.stale_reply)
        super().__init__(**kwargs)

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        if isinstance(self.model, RobustModel):
            # On the last step, words without a call are the answer: told "This is your LAST
            # step. Call final_answer now", Qwen2.5-Coder-1.5B through llama-server wrote the
            # right answer as text, and the run ended at its step limit without it (L4).
            self.model.prose_is_final_answer = self.step_number >= self.max_steps
            # set for each step: the explorer's agent shares the job's model
            self.model.stale_reply = self.decodes_again.for_step()
        messages = memory_messages(self.memory, summary_mode)
        notes = job_notes(self.tool_context, self.step_number, self.max_steps)
        if notes and not summary_mode:
            messages.append(
                ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": notes}])
            )
        return messages

    def provide_final_answer(self, task: str) -> ChatMessage:
        """The step limit's closing answer; one written as a `final_answer` call in text is
        its answer. Through llama-server, Qwen2.5-Coder-1.5B wrote it as
        `{"name": "final_answer", "arguments": {"answer": "…"}}`, shown so to the user (L6)."""
        reply = super().provide_final_answer(task)
        answer = answer_in_call(content_text(reply.content))
        if answer is not None:
            reply.content = answer
        return reply

    def stale_reply(self, reply: ChatMessage) -> str | None:
        """Why `reply` only repeats what this agent's job tried (`stale_calls`), or None."""
        return stale_call(self.tool_context, reply)


def answer_in_call(text: str) -> str | None:
    """The answer of `text` when it is one `final_answer` call with a text answer, or None."""
    parsed = parse_tool_calls_from_text(text)
    if not isinstance(parsed, ParseSuccess) or len(parsed.calls) != 1:
        return None
    call = parsed.calls[0]
    answer = call.arguments.get("answer", call.positional[0] if call.positional else None)
    if call.name != "final_answer" or not isinstance(answer, str) or not answer.strip():
        return None
    return answer


def schema_tokens(tools: list[Any]) -> int:
    """Estimated tokens of the tool schemas sent with every request."""
    text = json.dumps(compact_tool_schemas(tools))
    return int(len(text) / CHARS_PER_TOKEN)


class ToolCallingMode:
    """The builder's tool-calling mode (see `agent.factory.AgentMode`)."""

    name = "tool_calling"

    def templates(self, system_prompt: str | None) -> dict[str, Any]:
        templates = small_model_templates()
        if system_prompt is not None:
            templates["system_prompt"] = system_prompt
        return templates

    def fixed_tokens(self, tools: list[Any], templates: dict[str, Any]) -> int:
        return schema_tokens(tools)

    def monitor(self, run: Any, budget: ContextBudget) -> StepMonitor:
        return StepMonitor(run.context, budget, run.progress, run.cancel, run.max_steps)

    def agent(self, run: Any, monitor: StepMonitor, **common: Any) -> LspAgent:
        return LspAgent(tool_context=run.context, **common)

    def close(self) -> None:
        return None
