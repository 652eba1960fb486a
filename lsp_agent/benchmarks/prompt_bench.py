"""`lsp-agent bench prompt`: the fixed prompt (system prompt + tool schemas), ours against
smolagents' default ToolCallingAgent with the same 14 tools. Target: at most 35%.

Both sides are counted as they go on the wire: the system prompt the agent writes, and the
`tools` parameter its LiteLLM model prepares for the request (`_prepare_completion_kwargs`,
no request is sent). smolagents repeats every tool in prose in its system prompt and sends
each argument with its description; ours sends each tool once, as a compact schema
(argument names, types and `required`; `lsp_agent.models.tool_schemas`).

Code mode (`AGENT_TYPE=code`) sends no tool schemas: its fixed prompt is the system prompt,
which lists the tools as Python signatures (`code_system_tokens`), against smolagents'
default CodeAgent system prompt with the same tools (`smolagents_code_system_tokens`).

`ours_mcp_1_tokens` / `ours_mcp_10_tokens`: our fixed prompt with one and with ten MCP
tools added (typical tools of a code-hosting server, each with two or three arguments),
and `mcp_tokens_per_tool`: what each added MCP tool costs every request.

The agent modes' fixed prompts (`mode_prompts`): `planning_*` (ours and smolagents' planning
requests, task excluded) and `explorer_*` (what offering the explorer adds to each request;
the explorer's own system prompt and read-only tool schemas).
"""

from __future__ import annotations

import tempfile
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


# Ten tools as a typical code-hosting MCP server describes them (name, description, arguments).
SAMPLE_MCP_TOOLS: list[tuple[str, str, dict[str, str]]] = [
    ("search_issues", "Search issues by text.", {"query": "string", "limit": "integer"}),
    ("get_issue", "Get one issue with its comments.", {"number": "integer"}),
    ("create_issue", "Open an issue.", {"title": "string", "body": "string"}),
    ("list_pull_requests", "List open pull requests.", {"state": "string"}),
    ("get_pull_request_diff", "The diff of a pull request.", {"number": "integer"}),
    (
        "add_comment",
        "Comment on an issue or pull request.",
        {"number": "integer", "body": "string"},
    ),
    ("search_code", "Search code in the repository.", {"query": "string", "path": "string"}),
    ("get_file_contents", "Read a file at a ref.", {"path": "string", "ref": "string"}),
    ("list_commits", "Recent commits of a branch.", {"branch": "string", "limit": "integer"}),
    ("get_workflow_run", "Status and logs of a CI run.", {"run_id": "integer"}),
]


def mcp_tools(context: Any, count: int) -> list[Any]:
    """`count` wrapped MCP tools over a connection that is never started (schemas only)."""
    from mcp import types as mcp_types

    from tools.instrumented import InstrumentedTool
    from tools.mcp import McpConnection, McpServerSpec, McpTool

    connection = McpConnection(McpServerSpec("github", "true"), context.workspace.root)
    tools = []
    for name, description, arguments in SAMPLE_MCP_TOOLS[:count]:
        schema = {
            "type": "object",
            "properties": {arg: {"type": kind} for arg, kind in arguments.items()},
            "required": list(arguments)[:1],
        }
        tool = mcp_types.Tool(name=name, description=description, inputSchema=schema)
        tools.append(InstrumentedTool(McpTool(context, connection, tool), context))
    return tools


def code_prompt_tokens(context: Any) -> tuple[int, int]:
    """(ours, smolagents' default) code-mode system prompt tokens, with the same tools."""
    from smolagents import CodeAgent
    from smolagents.monitoring import LogLevel

    from lsp_agent.agent.code_mode.executor import SandboxedPythonExecutor
    from lsp_agent.agent.code_mode.prompts import code_system_prompt
    from lsp_agent.models.scripted import ScriptedModel
    from sandbox.code import CodeSession
    from tools.registry import build_tools

    def never_started() -> Any:
        raise RuntimeError("the prompt bench runs no code")

    # An executor whose container never starts: the default one would interpret code here.
    executor = SandboxedPythonExecutor(CodeSession(never_started), max_chars=1, max_lines=1)
    tools = build_tools(context)
    default = CodeAgent(
        tools=tools, model=ScriptedModel([]), executor=executor, verbosity_level=LogLevel.OFF
    )
    return count_tokens(code_system_prompt(tools)), count_tokens(default.initialize_system_prompt())


def fixed_prompt_texts(agent: Any, context: Any) -> dict[str, str]:
    """The fixed text each agent mode sends (tool schemas aside): what `--show-prompts` prints."""
    from lsp_agent.agent.code_mode.prompts import code_system_prompt
    from lsp_agent.agent.explorer import EXPLORER_PROMPT
    from lsp_agent.agent.planning import planning_templates
    from lsp_agent.benchmarks.mode_prompts import render_template

    tools = dict(agent.tools)
    planning = planning_templates()
    return {
        "tool calling: system prompt": str(agent.initialize_system_prompt()),
        "code: system prompt": code_system_prompt(tools.values()),
        "planning: first plan": render_template(planning["initial_plan"], tools, "<task>"),
        "planning: revision": render_template(planning["update_plan_pre_messages"], tools)
        + "\n<task and history>\n"
        + render_template(planning["update_plan_post_messages"], tools),
        "explorer: system prompt": EXPLORER_PROMPT,
    }


def print_report(figures: dict[str, Any]) -> None:
    """The figures; then, when they were asked for, the prompts themselves."""
    from lsp_agent.benchmarks.runner import print_figures

    prompts = figures.get("prompts")
    print_figures("prompt", {k: v for k, v in figures.items() if k != "prompts"})
    for title, text in (prompts or {}).items():
        print(f"\n--- {title} ---\n{text}")


def measure(runs: int = 1, options: Any = None) -> dict[str, Any]:
    from lsp_agent.logging_setup import quiet_third_party_imports

    quiet_third_party_imports()
    from smolagents import LiteLLMModel, ToolCallingAgent
    from smolagents.monitoring import LogLevel

    from lsp_agent.benchmarks.agents import bench_agent, offline_context
    from lsp_agent.benchmarks.mode_prompts import mode_prompt_figures
    from lsp_agent.models.native_replay import NativeLiteLLMModel
    from lsp_agent.models.scripted import ScriptedModel
    from tools.registry import build_tools

    with tempfile.TemporaryDirectory() as tmp:
        context = offline_context(Path(tmp))
        ours = bench_agent(ScriptedModel([]), context, max_steps=25, num_ctx=8192).agent
        default = ToolCallingAgent(
            tools=build_tools(context), model=ScriptedModel([]), verbosity_level=LogLevel.OFF
        )
        # Never called: only their request preparation is used.
        our_model = NativeLiteLLMModel(model_id="openai/bench", api_base="http://127.0.0.1:9")
        base_model = LiteLLMModel(model_id="openai/bench", api_base="http://127.0.0.1:9")
        our_system, our_schemas = fixed_prompt_tokens(ours, our_model)
        base_system, base_schemas = fixed_prompt_tokens(default, base_model)
        builtin = list(ours.tools.values())
        with_mcp = {
            count: count_json_tokens(
                sent_tool_schemas(our_model, builtin + mcp_tools(context, count))
            )
            for count in (1, 10)
        }
        modes = mode_prompt_figures(
            context, builtin, lambda offered: sent_tool_schemas(our_model, offered)
        )
        code_ours, code_default = code_prompt_tokens(context)
        texts = fixed_prompt_texts(ours, context)
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
        "ours_mcp_1_tokens": float(our_system + with_mcp[1]),
        "ours_mcp_10_tokens": float(our_system + with_mcp[10]),
        "mcp_tokens_per_tool": (with_mcp[10] - our_schemas) / 10,
        **modes,
        "code_system_tokens": float(code_ours),
        "smolagents_code_system_tokens": float(code_default),
        "code_ratio": code_ours / code_default,
        **({"prompts": texts} if options is not None and options.show_prompts else {}),
    }
