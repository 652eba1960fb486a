"""Which tool calls only repeat what the job tried: tool-calling mode's stale-reply check.

A stale reply is decoded again, hotter, before it runs (`models.robust.fresh` says why; code
mode's check is `code_mode.stale_code`). A call is stale when it cannot show the model
anything new: the same call, with the same arguments, as the one just made (what it returns
is in the history already: the same file, the same failing tests), or a proposal (any of
the `propose_*` tools) after which each file it changes reads as it does now or as a
proposed patch has it, while tests fail with that text (a version whose tests pass is not
stale: its reply says to apply it, or to answer). A final
answer is never stale: the final-answer checks judge it.
"""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage

from tools.base import ToolContext
from tools.patch_tools import proposed_change
from tools.patches import whole_file_text
from tools.workspace import NotTextError

Version = tuple[str, str, str]  # a file's path, its text now, its text after a proposal

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
    return written_already(context, name, arguments)


def written_already(context: ToolContext, tool: str, arguments: dict[str, Any]) -> str | None:
    """Why the proposal `tool(**arguments)` only writes versions already tried (each file
    it changes would read as it does now, or as a proposed patch has it, while tests fail
    with that text), or None: a new version, one whose tests pass, or not a proposal.
    Qwen2.5-Coder-1.5B proposed with propose_patch the score() that its block had just
    proposed and whose test still failed (scrabble-score)."""
    versions = _versions(context, tool, arguments)
    if not versions:
        return None
    reasons: list[str] = []
    for path, now, text in versions:
        tried = context.patches.failing_version(path, now, text)
        if tried is None:
            return None
        reasons.append(f"{path} as {'it is' if tried == 'now' else f'{tried} does'}")
    return f"the reply writes {' and '.join(reasons)}"


def _versions(context: ToolContext, tool: str, arguments: dict[str, Any]) -> list[Version]:
    """(path, text now, text after) of each file the proposal changes; [] when it creates,
    deletes or renames one, or does not apply. A whole file written as it is counts (the
    tool refuses it as no change: the same text again)."""
    path, content = arguments.get("path"), arguments.get("content")
    if tool == "propose_file" and isinstance(path, str) and isinstance(content, str):
        try:
            now = context.workspace.read_text(path)
        except (OSError, NotTextError, ValueError):
            return []
        return [(path, now, whole_file_text(now, content))]  # as propose_file reads it
    change = proposed_change(context, tool, arguments)
    files = change.files if change is not None else ()
    if any(f.before is None or f.after is None or f.old_path != f.path for f in files):
        return []
    return [(f.path, f.before or "", f.after or "") for f in files]
