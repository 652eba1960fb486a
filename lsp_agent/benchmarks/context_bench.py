"""`lsp-agent bench context`: request size over a 30-step run of large `read_file` results,
ours (bounded at 75% of MODEL_NUM_CTX) against smolagents' default (unbounded)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from lsp_agent.benchmarks.token_count import TOKENIZER_NAME, count_json_tokens, count_tokens

NUM_CTX = 8192


def _big_file(root: Path, lines: int = 4000) -> None:
    body = "".join(
        f"def function_{i}(value):\n    return value * {i} + len(str(value))  # line {i}\n"
        for i in range(lines // 2)
    )
    (root / "big.py").write_text(body, encoding="utf-8")


def _script(steps: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {
            "tool": "read_file",
            "arguments": {"path": "big.py", "start_line": 1 + 120 * i, "end_line": 120 * (i + 1)},
        }
        for i in range(steps - 1)
    ]
    return [*turns, {"final_answer": "done"}]


def _request_tokens(messages: list[Any], schemas: int, native: bool) -> int:
    from smolagents.models import get_clean_message_list, tool_role_conversions

    from lsp_agent.models.messages import to_provider_messages

    if native:
        body = to_provider_messages(messages)
    else:
        body = get_clean_message_list(
            messages, role_conversions=tool_role_conversions, flatten_messages_as_text=True
        )
    # What the model reads: each message's text as rendered by a chat template (not
    # JSON-escaped), its tool calls, and a few tokens of framing per message.
    total = schemas
    for message in body:
        total += 4 + count_tokens(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            total += count_json_tokens(call["function"])
    return total


def measure(runs: int = 30) -> dict[str, Any]:
    from lsp_agent.logging_setup import quiet_third_party_imports

    quiet_third_party_imports()
    from smolagents import ToolCallingAgent
    from smolagents.models import get_tool_json_schema
    from smolagents.monitoring import LogLevel

    from lsp_agent.benchmarks.agents import bench_agent, offline_context
    from lsp_agent.models.scripted import ScriptedModel
    from tools.registry import build_tools

    steps = max(runs, 2)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _big_file(root)
        ours_model, base_model = ScriptedModel(_script(steps)), ScriptedModel(_script(steps))
        built = bench_agent(ours_model, offline_context(root), max_steps=steps, num_ctx=NUM_CTX)
        ours, monitor = built.agent, built.monitor
        ours.run("Read big.py part by part.", max_steps=steps)
        base = ToolCallingAgent(
            tools=build_tools(offline_context(root)),
            model=base_model,
            max_steps=steps,
            verbosity_level=LogLevel.OFF,
        )
        base.run("Read big.py part by part.", max_steps=steps)
        schemas = count_json_tokens([get_tool_json_schema(t) for t in ours.tools.values()])
        ours_sizes = [_request_tokens(c.messages, schemas, True) for c in ours_model.calls]
        base_sizes = [_request_tokens(c.messages, schemas, False) for c in base_model.calls]
    budget = int(NUM_CTX * 0.75)
    return {
        "tokenizer": TOKENIZER_NAME,
        "steps": float(len(ours_sizes)),
        "budget_tokens": float(budget),
        "ours_last_request_tokens": float(ours_sizes[-1]),
        "ours_max_request_tokens": float(max(ours_sizes)),
        "smolagents_last_request_tokens": float(base_sizes[-1]),
        "smolagents_max_request_tokens": float(max(base_sizes)),
        "ours_within_budget": float(max(ours_sizes) <= budget),
        "masked_observations": float(len(monitor.budget.masked_steps)),
        "ratio_last": ours_sizes[-1] / base_sizes[-1],
    }
