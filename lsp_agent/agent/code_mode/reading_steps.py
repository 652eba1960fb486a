"""After a step that only read, in a change task with nothing proposed yet: what writes the code.

Asked to implement grade_school.py, Qwen2.5-Coder-1.5B in code mode read
grade_school_test.py in parts, then its last lines again and again ("lines 178-178 of 178")
until the loop guard stopped it, started again and did the same, and proposed nothing; react
read its test file round and round the same way (Exercism, 2026-11-29). The reads' outputs
say what the file holds, never what to do with it. From the second step that reads while
the job has proposed nothing, the step is told what writes the task's code
(`WrittenDefinitions.write_instead`: "To change grade_school.py, write the whole of School in
a block: …"). A question (a task that asks for no change) is never told this.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.base import ToolContext

READ_TOOLS = frozenset({"read_file", "read_file_snippet"})
MIN_READING_STEPS = 2


def reading_note(context: ToolContext, calls: Iterable[str], write_instead: str) -> str:
    """What to add after a step whose calls all read ("" when the note does not apply)."""
    called = list(calls)
    if not called or not write_instead or not READ_TOOLS.issuperset(called):
        return ""
    if context.patches.all():
        return ""
    steps = {call.step for call in context.state.calls if call.tool in READ_TOOLS}
    if len(steps) < MIN_READING_STEPS:
        return ""
    return f"You have read for {len(steps)} steps and proposed nothing yet. {write_instead}"
