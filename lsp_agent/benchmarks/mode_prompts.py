"""`bench prompt`, the agent modes: the fixed prompts planning and the explorer add.

- planning (`AGENT_PLANNING_INTERVAL`): the text of the initial planning request and of a
  revision (pre + post messages) without the task and history they carry, ours against
  smolagents' defaults (which list every tool again in prose);
- explorer (`AGENT_SUBAGENTS=explorer`): what offering `explorer` adds to every request of
  the main agent (its schema), and the explorer's own fixed prompt: its system prompt and
  the schemas of its read-only tools.
"""

from __future__ import annotations

import importlib.resources
import threading
from collections.abc import Callable
from typing import Any

import yaml

from lsp_agent.benchmarks.token_count import count_json_tokens, count_tokens


def render_template(template: str, tools: dict[str, Any], task: str = "") -> str:
    """A smolagents prompt template as sent (`task` stands for the task)."""
    from smolagents.agents import populate_template

    variables = {"task": task, "tools": tools, "managed_agents": {}, "remaining_steps": 10}
    return str(populate_template(template, variables))


def _planning_tokens(templates: dict[str, str], tools: dict[str, Any]) -> tuple[int, int]:
    initial = count_tokens(render_template(templates["initial_plan"], tools))
    update = count_tokens(
        render_template(templates["update_plan_pre_messages"], tools)
        + render_template(templates["update_plan_post_messages"], tools)
    )
    return initial, update


def mode_prompt_figures(
    context: Any, tools: list[Any], sent_schemas: Callable[[list[Any]], list[dict[str, Any]]]
) -> dict[str, float]:
    """Token figures of the modes' fixed prompts; `tools` are the main agent's,
    `sent_schemas(tools)` the `tools` parameter a request offering them carries."""
    from lsp_agent.agent.explorer import EXPLORER_PROMPT, Explorer
    from lsp_agent.agent.factory import AgentRun
    from lsp_agent.agent.planning import planning_templates
    from lsp_agent.models.scripted import ScriptedModel
    from tools.instrumented import InstrumentedTool
    from tools.registry import build_tools

    by_name = {tool.name: tool for tool in tools}
    default_yaml = (
        importlib.resources.files("smolagents.prompts")
        .joinpath("toolcalling_agent.yaml")
        .read_text(encoding="utf-8")
    )
    defaults: dict[str, str] = yaml.safe_load(default_yaml)["planning"]
    ours_initial, ours_update = _planning_tokens(planning_templates(), by_name)
    base_initial, base_update = _planning_tokens(defaults, by_name)
    job = AgentRun(ScriptedModel([]), context, 25, 8192, lambda event: None, threading.Event())
    explorer = Explorer(job, max_steps=8)
    main_schemas = count_json_tokens(sent_schemas(tools))
    with_explorer = count_json_tokens(sent_schemas([*tools, InstrumentedTool(explorer, context)]))
    final_answer = [tool for tool in tools if tool.name == "final_answer"]
    read_only = build_tools(context, read_only=True)
    explorer_schemas = count_json_tokens(sent_schemas(read_only + final_answer))
    explorer_system = count_tokens(EXPLORER_PROMPT)
    return {
        "planning_initial_tokens": float(ours_initial),
        "planning_update_tokens": float(ours_update),
        "smolagents_planning_initial_tokens": float(base_initial),
        "smolagents_planning_update_tokens": float(base_update),
        "explorer_tool_schema_tokens": float(with_explorer - main_schemas),
        "explorer_system_tokens": float(explorer_system),
        "explorer_schema_tokens": float(explorer_schemas),
        "explorer_total_tokens": float(explorer_system + explorer_schemas),
    }
