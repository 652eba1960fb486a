"""How a past code step reads in code mode's history: short, and the code only once.

smolagents' CodeAgent replays each step as the model's reply, then the same code again as a
"Calling tools" message, then `Execution logs:` and `Last output from code snippet:`
headers. Here: the reply (or one line once the context budget masked it), then one message
with what the code printed, its last value if it had one, and its error with a retry note.
"""

from __future__ import annotations

from smolagents.memory import ActionStep
from smolagents.models import ChatMessage, MessageRole

from lsp_agent.models.robust import UnusableReply

RETRY_NOTE = "Fix the code and try again, or take another approach."
NOTHING_PRINTED = "Observation: the code printed nothing. print() what you need to see."
UNUSABLE_PREFIX = "Your last reply could not be used: "
LOGS_HEADER = "Execution logs:\n"
OUTPUT_HEADER = "Last output from code snippet:\n"


def text_message(role: MessageRole, text: str) -> ChatMessage:
    return ChatMessage(role=role, content=[{"type": "text", "text": text}])


def _one_closing_fence(output: object) -> str:
    """The reply as the model wrote it: smolagents adds the closing fence (the stop sequence
    the reply ended at) to a reply that does not end with it, and to one that ended with
    "\n```" and no newline, which then reads "\n```\n```"."""
    text = str(output).strip()
    return text.removesuffix("\n```") if text.endswith("\n```\n```") else text


def code_step_messages(step: ActionStep, calls: list[str]) -> list[ChatMessage]:
    """A past step: the model's reply (or one line when masked), then what its code printed,
    returned or raised. `calls`: the tools the step's code called."""
    reply = step.model_output_message
    if isinstance(reply, UnusableReply) and reply.problem:  # the model call failed
        return [text_message(MessageRole.USER, f"Error: {unusable_reply_text(reply.problem)}")]
    messages = []
    if step.model_output is not None:
        messages.append(text_message(MessageRole.ASSISTANT, _one_closing_fence(step.model_output)))
    elif step.code_action is not None:  # masked by the context budget
        called = ", ".join(calls) or "no tools"
        messages.append(
            text_message(
                MessageRole.ASSISTANT, f"[code hidden to save context; it called {called}]"
            )
        )
    parts = []
    observation = compact_observation(step.observations or "")
    if observation:
        parts.append(f"Observation:\n{observation}")
    if step.error is not None:
        parts.append(f"Error: {step.error}\n{RETRY_NOTE}")
    elif not parts and step.code_action is not None and not step.is_final_answer:
        parts.append(NOTHING_PRINTED)
    if parts:
        messages.append(text_message(MessageRole.USER, "\n".join(parts)))
    return messages


def unusable_reply_text(problem: str) -> str:
    """The model boundary's problem text (`RobustModel`), told for code mode."""
    reason = problem.removeprefix(UNUSABLE_PREFIX).split(". Reply with", 1)[0]
    return (
        f"{UNUSABLE_PREFIX}{reason}. Reply with a short thought and one ```python block; "
        'when the task is done, call final_answer("...") in it.'
    )


def compact_observation(observation: str) -> str:
    """smolagents' code observation without its headers and without a `None` last value:
    the printed text, then `Value: …` when the last expression had one."""
    logs, _, value = observation.partition(OUTPUT_HEADER)
    logs = logs.removeprefix(LOGS_HEADER).rstrip("\n")
    if value.strip() in ("", "None"):
        return logs
    return f"{logs}\nValue: {value}" if logs else f"Value: {value}"
