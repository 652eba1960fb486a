"""A patch as ACP diff content (`{"type": "diff", "path", "oldText", "newText"}` per file),
so the client can show the change it is asked to approve.

The diff is the patch's own text (what the approval is keyed by); the old text is read
through the session's workspace (the client's buffer when it can read them) and the new
text is the diff applied strictly to it. A diff that cannot be rebuilt that way is shown
as text instead — the user always sees what they approve.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from acp.helpers import text_block, tool_content, tool_diff_content
from acp.schema import ContentToolCallContent, FileEditToolCallContent

from safety.unified_diff import PatchError, apply_to_texts, parse_strict
from safety.validation import ValidationError
from tools.workspace import NotTextError, Workspace


def _reader(workspace: Workspace) -> Any:
    def read(path: str) -> str | None:
        try:
            return workspace.read_text(path)
        except FileNotFoundError:
            return None

    return read


ToolContent = ContentToolCallContent | FileEditToolCallContent


def fenced(text: str, language: str) -> str:
    """`text` in a Markdown code fence longer than any backtick run inside it, so text from
    the model (a command, a diff) cannot close the fence and pass as something else."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def text_content(text: str, language: str) -> ContentToolCallContent:
    return tool_content(text_block(fenced(text, language)))


def diff_contents(diff: str, workspace: Workspace) -> list[ToolContent]:
    """One diff content per touched file; the diff as text when it cannot be rebuilt."""
    read = _reader(workspace)
    try:
        parsed = parse_strict(diff)
        after = apply_to_texts(parsed, read)
        contents: list[ToolContent] = [
            tool_diff_content(
                str(Path(workspace.root) / path),
                new_text if new_text is not None else "",
                read(path),
            )
            for path, new_text in after.items()
        ]
    except (PatchError, ValidationError, NotTextError, OSError):
        return [text_content(diff, "diff")]
    return contents or [text_content(diff, "diff")]
