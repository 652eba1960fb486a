"""Model-call failures: what kind, a short reason, and the recovery text the model reads."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum

from smolagents.tools import Tool

from lsp_agent.models.capabilities import exception_chain

MAX_REASON_CHARS = 300


class FailureKind(StrEnum):
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    HTTP_ERROR = "http_error"
    BAD_RESPONSE = "bad_response"
    MODEL_ERROR = "model_error"
    EMPTY_REPLY = "empty_reply"
    NO_TOOL_CALL = "no_tool_call"
    UNKNOWN_TOOL = "unknown_tool"
    BAD_ARGUMENTS = "bad_arguments"


def _clean_message(text: str) -> str:
    text = re.sub(r"\b(litellm\.\w+|\w+Exception|\w+Error):\s*", "", text)
    text = re.sub(r"\b\w+(Exception|Error) - ", "", text)
    text = " ".join(text.split())
    return text[:MAX_REASON_CHARS] + ("…" if len(text) > MAX_REASON_CHARS else "")


def classify_model_exception(exc: BaseException) -> tuple[FailureKind, str]:
    """(kind, short reason) for an exception raised by a model call."""
    chain = exception_chain(exc)
    names = {cls.__name__ for e in chain for cls in type(e).__mro__}
    joined = " | ".join(str(e) for e in chain).lower()
    if "ConnectionRefusedError" in names or "connection refused" in joined:
        return FailureKind.UNREACHABLE, "the model server refused the connection"
    if names & {"ConnectError", "gaierror"}:
        return FailureKind.UNREACHABLE, "the model server could not be reached"
    if names & {"Timeout", "TimeoutException", "APITimeoutError", "TimeoutError"}:
        return FailureKind.TIMEOUT, "the model took too long to answer; keep replies short"
    if names & {"APIConnectionError", "RemoteProtocolError", "ConnectionError"}:
        return FailureKind.CONNECTION, "the connection to the model server broke"
    if "JSONDecodeError" in names or "expecting value" in joined or "no choices" in joined:
        return FailureKind.BAD_RESPONSE, "the model server sent a malformed response"
    statuses = [getattr(e, "status_code", None) for e in chain]
    status = next((s for s in statuses if isinstance(s, int)), None)
    message = _clean_message(str(exc))
    if status is not None:
        if "error parsing tool call" in joined:
            return FailureKind.HTTP_ERROR, f"your tool call was not valid JSON ({message})"
        return FailureKind.HTTP_ERROR, f"the model server answered HTTP {status}: {message}"
    return FailureKind.MODEL_ERROR, f"the model call failed: {type(exc).__name__}: {message}"


def example_call(tools: Mapping[str, Tool] | None) -> str:
    """An example call of a real tool, with placeholders a model cannot mistake for values
    (`<path>`): `read_file` when offered, else the first tool that takes arguments."""
    offered = {n: t for n, t in (tools or {}).items() if n != "final_answer"}
    tool = offered.get("read_file") or next(
        (t for t in offered.values() if t.inputs), next(iter(offered.values()), None)
    )
    if tool is None:
        return FINAL_ANSWER_EXAMPLE
    required = [k for k, spec in tool.inputs.items() if not spec.get("nullable")] or list(
        tool.inputs
    )
    arguments = ", ".join(f'"{k}": "<{k}>"' for k in required[:2])
    return f'{{"name": "{tool.name}", "arguments": {{{arguments}}}}}'


FINAL_ANSWER_EXAMPLE = '{"name": "final_answer", "arguments": {"answer": "<your answer>"}}'


def recovery_text(reason: str, tools: Mapping[str, Tool] | None) -> str:
    if reason == NO_CALL_REASON:
        return (
            f"Your last reply could not be used: {reason}. If it was your answer, give it "
            f"with {FINAL_ANSWER_EXAMPLE}. If not, reply with one tool call, e.g. "
            f"{example_call(tools)}."
        )
    return (
        f"Your last reply could not be used: {reason}. Reply with exactly one tool call, "
        f"e.g. {example_call(tools)}; when the task is done, call final_answer with "
        '{"answer": "..."}.'
    )


NO_CALL_REASON = "it had no tool call"
