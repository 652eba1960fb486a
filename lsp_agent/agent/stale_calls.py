"""Which tool calls only repeat what the job tried: tool-calling mode's stale-reply check.

A stale reply is decoded again, hotter, before it runs (`models.robust.fresh` says why; code
mode's check is `code_mode.stale_code`). A call is stale when it cannot show the model
anything new: the same call, with the same arguments, as the one just made (what it returns
is in the history already: the same file, the same failing tests), or a `propose_file` whose
text the file has now or a proposed patch gives it, while tests fail with that text (a
version whose tests pass is not stale: its reply says to apply it, or to answer). A final
answer is never stale: the final-answer checks judge it.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage

from tools.base import ToolContext
from tools.workspace import NotTextError

FINAL_ANSWER = "final_answer"


def stale_call(context: ToolContext, reply: ChatMessage) -> str | None:
    """Why a tool-calling reply only repeats what the job tried, or None."""
    calls = reply.tool_calls or []
    if len(calls) != 1:
        return None
    name, arguments = calls[0].function.name, calls[0].function.arguments
    if name == FINAL_ANSWER or not isinstance(arguments, dict):
        return None
    if context.state.repeats_last_call(name, arguments):
        return f"the reply repeats the last call, {name}, with the same arguments"
    if name == "propose_file":
        return _written_already(context, arguments.get("path"), arguments.get("content"))
    return None


def _written_already(context: ToolContext, path: Any, content: Any) -> str | None:
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    try:
        now = context.workspace.read_text(path)
    except (OSError, NotTextError, ValueError):
        return None
    if now.endswith("\n") and not content.endswith("\n"):
        content += "\n"  # as propose_file reads it
    tried = context.patches.failing_version(path, now, content)
    if tried is None:
        return None
    return f"the reply writes {path} as {'it is' if tried == 'now' else f'{tried} does'}"
