"""Prompts for small models: a short system prompt, tools sent once as schemas.

smolagents' default ToolCallingAgent prompt describes every tool again in prose and gives
long worked examples; a 7B model's context is better spent on the task. Tool names,
descriptions and argument schemas reach the model only through the provider's native
`tools` parameter.
"""

from __future__ import annotations

import importlib.resources
from typing import Any

import yaml

SYSTEM_PROMPT = (
    "You are a coding agent. Read before you change. Change code only with propose_patch, "
    "then apply_patch. One tool call per reply. End with final_answer: a short summary."
)

FINAL_ANSWER_PRE = (
    "You ran out of steps. From what you found so far, write the final answer for the "
    "user: what you learned, what you changed (patch ids), and what is left."
)
FINAL_ANSWER_POST = "The task was:\n{{task}}\n\nWrite the final answer now, in plain text."


def agent_templates(smolagents_file: str, system_prompt: str) -> dict[str, Any]:
    """smolagents' PromptTemplates of `smolagents_file` (`toolcalling_agent.yaml`,
    `code_agent.yaml`) with `system_prompt` and our short max-steps messages."""
    text = (
        importlib.resources.files("smolagents.prompts")
        .joinpath(smolagents_file)
        .read_text(encoding="utf-8")
    )
    templates: dict[str, Any] = yaml.safe_load(text)
    templates["system_prompt"] = system_prompt
    templates["final_answer"] = {
        "pre_messages": FINAL_ANSWER_PRE,
        "post_messages": FINAL_ANSWER_POST,
    }
    return templates


def small_model_templates() -> dict[str, Any]:
    """The tool-calling agent's templates: our system prompt, short max-steps messages."""
    return agent_templates("toolcalling_agent.yaml", SYSTEM_PROMPT)


def step_notes(step: int, max_steps: int, patches: str, next_step: str = "") -> str:
    """A short note added after the history: patch state, what to do next, steps left."""
    notes = []
    if patches and patches != "no patches":
        notes.append(f"Patches so far:\n{patches}")
    if next_step:
        notes.append(next_step)
    left = max_steps - step
    if left <= 0:
        notes.append("This is your LAST step. Call final_answer now with what you found and did.")
    elif left <= 3:
        notes.append(f"Only {left + 1} steps left, including this one. Finish up.")
    return "\n\n".join(notes)
