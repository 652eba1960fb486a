"""The job's progress as ACP session updates: one `tool_call` per tool call, with its kind
and status, and a `tool_call_update` when the step that made it ends.

The runtime reports a `tool` event when a call starts (name and arguments) and a `step`
event when the step ends (its observation in one line, and whether it failed). Calls to
`final_answer` are not shown as tool calls: the answer becomes the agent's message. A `plan`
event (AGENT_PLANNING_INTERVAL) becomes a `plan` update, one entry per line; the explorer's
own steps (`subagent` events) stay inside its one `explorer` tool call. A `notice` event
(traces are off, for one) is told as agent message text.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Literal

from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_plan,
    update_tool_call,
)
from acp.schema import ToolCallLocation

from lsp_agent.acp.client_calls import ClientCalls
from lsp_agent.agent.job_types import ProgressEvent

log = logging.getLogger(__name__)

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
ToolStatus = Literal["pending", "in_progress", "completed", "failed"]

TOOL_KINDS: dict[str, ToolKind] = {
    "repo_info": "read",
    "read_file": "read",
    "read_file_snippet": "read",
    "git_status": "read",
    "git_diff": "read",
    "git_log": "read",
    "show_patch": "read",
    "list_files": "search",
    "rg_search": "search",
    "propose_patch": "edit",
    "propose_patch_unified": "edit",
    "apply_patch": "edit",
    "run_cmd": "execute",
    "run_tests": "execute",
    "explorer": "search",
}
NOT_A_TOOL_CALL = frozenset({"final_answer"})
TITLE_ARGUMENTS = ("path", "pattern", "command", "patch_id", "task")


def tool_title(name: str, arguments: dict[str, Any]) -> str:
    """`read_file app.py`, `run_cmd pytest -q`: the tool and its main argument."""
    for key in TITLE_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            shown = value if len(value) <= 80 else value[:79] + "…"
            return f"{name} {shown}"
    return name


class ToolCallTracker:
    """Turns one prompt's progress events into `tool_call` / `tool_call_update` updates."""

    def __init__(self, client: ClientCalls, root: Path) -> None:
        self.client = client
        self.root = root
        self._count = 0
        self._open: list[str] = []

    @property
    def current(self) -> str | None:
        """The tool call running now (the one an approval belongs to)."""
        return self._open[-1] if self._open else None

    def on_progress(self, event: ProgressEvent) -> None:
        if event.kind == "tool" and event.tool and event.tool not in NOT_A_TOOL_CALL:
            self._start(event.tool, event.arguments)
        elif event.kind == "step":
            self.finish_open("completed" if event.ok else "failed", event.message)
        elif event.kind == "plan" and event.ok:  # AGENT_PLANNING_INTERVAL: the agent's plan
            entries = [plan_entry(line.strip()) for line in event.message.splitlines()]
            self.client.update(update_plan([entry for entry in entries if entry.content]))
        elif event.kind == "notice":
            log.warning("%s", event.message)
            self.tell(event.message)

    def tell(self, notice: str) -> None:
        """A notice for the user, as a line of agent message text."""
        self.client.update(update_agent_message_text(f"lsp-agent: {notice}\n"))

    def _start(self, name: str, arguments: dict[str, Any]) -> None:
        self._count += 1
        call_id = f"call_{self._count}"
        self._open.append(call_id)
        path = arguments.get("path")
        locations = None
        if isinstance(path, str) and path:
            locations = [ToolCallLocation(path=str(self.root / path))]
        self.client.update(
            start_tool_call(
                call_id,
                tool_title(name, arguments),
                kind=TOOL_KINDS.get(name, "other"),
                status="in_progress",
                locations=locations,
                raw_input=arguments,
            )
        )

    def finish_open(self, status: ToolStatus, message: str) -> None:
        """End every call still open with `status` and a one-line result."""
        content = [tool_content(text_block(message))] if message else None
        for call_id in self._open:
            self.client.update(update_tool_call(call_id, status=status, content=content))
        self._open.clear()
