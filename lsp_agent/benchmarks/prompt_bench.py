"""`lsp-agent bench prompt`: the fixed prompt (system prompt + tool schemas), ours against
smolagents' default ToolCallingAgent with the same 14 tools. Target: at most 35%.

Both send the same tool schemas (the provider's `tools` parameter); the difference is the
system prompt, where smolagents repeats every tool in prose with worked examples. The
figures show both parts so the ratio can be read: the schemas are a floor for both.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.token_count import TOKENIZER_NAME, count_json_tokens, count_tokens

TARGET_RATIO = 0.35


def fixed_prompt_tokens(agent: Any) -> tuple[int, int]:
    """(system prompt tokens, tool schema tokens) of what `agent` sends every request."""
    from smolagents.models import get_tool_json_schema

    system = count_tokens(agent.initialize_system_prompt())
    schemas = count_json_tokens([get_tool_json_schema(t) for t in agent.tools.values()])
    return system, schemas


def measure(runs: int = 1) -> dict[str, Any]:
    from lsp_agent.logging_setup import quiet_third_party_imports

    quiet_third_party_imports()
    from smolagents import ToolCallingAgent
    from smolagents.monitoring import LogLevel

    from lsp_agent.agent_factory import build_agent
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
        our_system, our_schemas = fixed_prompt_tokens(ours)
        base_system, base_schemas = fixed_prompt_tokens(default)
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
