"""`remember(note)`: a short note the agent keeps for later jobs in this workspace.

Offered only when the user turned workspace memory on (`AGENT_MEMORY=true`). Where the
notes live is the runtime's business (a `NoteStore` in the tool context: the user's data
directory, never the repository); this tool checks the note, and the store redacts it.
Every note is asked first: it is text a later job's model reads as the workspace's, and the
model writing it may follow instructions a file put in front of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from safety.approvals import ApprovalKind
from safety.errors import ErrorType
from tools.base import AgentTool, ApprovalAsk, ToolFailure

MAX_NOTE_CHARS = 300


class NoteStore(Protocol):
    """Where remembered notes go (one store per workspace)."""

    def add(self, note: str) -> int:
        """Keep `note`; the number of notes kept now."""
        ...


class Remember(AgentTool):
    name = "remember"
    description = (
        "Keep one short fact about this repository for later tasks (e.g. how to run its "
        "tests). Not for secrets."
    )
    inputs = {"note": {"type": "string", "description": "The fact, in one sentence."}}

    def approval_for(self, arguments: dict[str, Any]) -> ApprovalAsk | None:
        text = " ".join(str(arguments.get("note") or "").split())
        if not text or len(text) > MAX_NOTE_CHARS or self.context.memory is None:
            return None  # refused by forward, with its recovery hint
        return ApprovalAsk(
            kind=ApprovalKind.MEMORY_NOTE,
            content=text,
            summary=f"Remember for later tasks in this workspace: {text!r}",
            details="Later jobs here start with this note (AGENT_MEMORY=true).",
        )

    def forward(self, note: str) -> str:
        store = self.context.memory
        if store is None:
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                "workspace memory is off",
                "Carry on without it; the user can set AGENT_MEMORY=true.",
            )
        text = " ".join(note.split())
        if not text:
            raise ToolFailure(
                ErrorType.INVALID_ARGUMENT,
                "the note is empty",
                "Call remember with one sentence worth keeping.",
            )
        if len(text) > MAX_NOTE_CHARS:
            raise ToolFailure(
                ErrorType.INPUT_TOO_LARGE,
                f"the note has {len(text)} characters; at most {MAX_NOTE_CHARS} are kept",
                "Say it in one short sentence.",
                chars=len(text),
            )
        count = store.add(text)
        return f"remembered ({count} notes for this workspace)"
