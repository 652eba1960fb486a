"""`lsp-agent bench prompt`: the fixed prompt (system prompt + tool schemas), ours against
smolagents' default ToolCallingAgent with the same 14 tools. Target: at most 35%.

Both sides are counted as they go on the wire: the system prompt the agent writes, and the
`tools` parameter its LiteLLM model prepares for the request (`_prepare_completion_kwargs`,
no request is sent). smolagents repeats every tool in prose in its system prompt and sends
each argument with its description; ours sends each tool once, as a compact schema
(argument names, types and `required`; `lsp_agent.models.tool_schemas`).
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.token_count import TOKENIZER_NAME, count_json_tokens, count_tokens

TARGET_RATIO = 0.35


def sent_tool_schemas(model: Any, tools: list[Any]) -> list[dict[str, Any]]:
    """The `tools` parameter `model` prepares for a request offering `tools`."""
    from smolagents.models import ChatMessage, MessageRole

    task = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "task"}])
    prepared = model._prepare_completion_kwargs(
        messages=[task], tools_to_call_from=tools, model=model.model_id
    )
    schemas: list[dict[str, Any]] = prepared["tools"]
    return schemas


def fixed_prompt_tokens(agent: Any, model: Any) -> tuple[int, int]:
    """(system prompt tokens, tool schema tokens) of what `agent` sends every request."""
    system = count_tokens(agent.initialize_system_prompt())
    schemas = count_json_tokens(sent_tool_schemas(model, list(agent.tools.values())))
    return system, schemas


def measure(runs: int = 1) -> dict[str, Any]:
    from lsp_agent.logging_setup import quiet_third_party_imports

    quiet_third_party_imports()
    from smolagents import LiteLLMModel, ToolCallingAgent
    from smolagents.monitoring import LogLevel

    from lsp_agent.agent.factory import build_agent
    from lsp_agent.models.native_replay import NativeLiteLLMModel
    from lsp_agent.testing import ScriptedModel
    from tools.base import ToolContext
    from tools.registry import build_tools
    from tools.workspace import DiskWorkspace

    with tempfile.TemporaryDirectory() as tmp:
        context = ToolContext(workspace=DiskWorkspace(Path(tmp)))
        ours, _ = build_agent(
            ScriptedModel([]),
            context,
            max_steps=25,
            num_ctx=8192,
            on_progress=lambda e: None,
            cancel=threading.Event(),
        )
        default = ToolCallingAgent(
            tools=build_tools(context), model=ScriptedModel([]), verbosity_level=LogLevel.OFF
        )
        # Never called: only their request preparation is used.
        our_model = NativeLiteLLMModel(model_id="openai/bench", api_base="http://127.0.0.1:9")
        base_model = LiteLLMModel(model_id="openai/bench", api_base="http://127.0.0.1:9")
        our_system, our_schemas = fixed_prompt_tokens(ours, our_model)
        base_system, base_schemas = fixed_prompt_tokens(default, base_model)
    ours_total, base_total = our_system + our_schemas, base_system + base_schemas
    return {
        "tokenizer": TOKENIZER_NAME,
        "tools": float(len(ours.tools)),
        "ours_system_tokens": float(our_system),
        "ours_schema_tokens": float(our_schemas),
        "ours_total_tokens": float(ours_total),
        "smolagents_system_tokens": float(base_system),
        "smolagents_schema_tokens": float(base_schemas),
        "smolagents_total_tokens": float(base_total),
        "ratio": ours_total / base_total,
        "system_prompt_ratio": our_system / base_system,
        "target_ratio": TARGET_RATIO,
    }
