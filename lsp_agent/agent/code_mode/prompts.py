"""The short system prompt of code mode (`AGENT_TYPE=code`) for small models.

smolagents' CodeAgent prompt is about 2,000 tokens of worked examples with notional tools.
Here: what a step is (one Python block, print what you need), the tools as Python
signatures with one line each (code mode sends no tool schemas: the prompt is the only
place the model learns them), two example steps (a call printed, then `final_answer`:
without them Qwen2.5-Coder-1.5B defined `def final_answer(): return 42` instead of calling
it, or printed what it found and never answered), and the same discipline as the
tool-calling prompt (read before you change, change code only through propose_patch then
apply_patch, end with a short final answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lsp_agent.agent.prompts import agent_templates

CODE_SYSTEM_PROMPT = """\
You are a coding agent. Each reply: one short thought, then one ```python block. It runs \
in a sandbox where only these functions reach the repository (each returns text; a JSON \
result also gives result["patch_id"] etc.; a failing call raises ToolCallError):
{tools}
final_answer(answer): end the task with a short summary for the user.
Call these functions; never define them. Steps look like this:
Thought: First I read the file.
```python
print(read_file(path="app.py"))
```
Thought: I know the answer now.
```python
final_answer("app.py defines run().")
```
You see only what you print() and errors. Read before you change. Change code only with \
propose_patch, then apply_patch(patch_id=...); a block that defines a function or class of \
a file the task names proposes it for that file. End with final_answer."""

DESCRIPTION_CHARS = 80


def signature(tool: Any) -> str:
    """`name(required, optional=None): first sentence of the description`."""
    arguments = [
        f"{name}=None" if spec.get("nullable") else name for name, spec in tool.inputs.items()
    ]
    description = " ".join(str(tool.description).split())
    first = description.split(". ")[0].rstrip(".")
    if len(first) > DESCRIPTION_CHARS:
        first = first[: DESCRIPTION_CHARS - 1] + "…"
    return f"{tool.name}({', '.join(arguments)}): {first}"


def code_system_prompt(tools: Iterable[Any]) -> str:
    lines = [signature(tool) for tool in tools if tool.name != "final_answer"]
    return CODE_SYSTEM_PROMPT.format(tools="\n".join(lines))


def code_model_templates() -> dict[str, Any]:
    """smolagents' CodeAgent templates with our short closing messages (the system prompt
    is written by `code_system_prompt`, from the job's tools)."""
    return agent_templates("code_agent.yaml", CODE_SYSTEM_PROMPT)
