"""`lsp-agent bench embedded`: decoding speed of the embedded model, with and without grammar.

One realistic agent prompt (system prompt, the 14 tools and `final_answer` listed, a task)
is evaluated once and stays in llama.cpp's prompt cache; each run then decodes one reply:
- `none`: free text (no grammar), up to `FREE_TOKENS` tokens;
- `json_schema`: `LlamaGrammar.from_json_schema` of the `oneOf` call schema, llama-cpp-python's
  own grammar-first sampling;
- `gbnf`: our hand-written tool-call grammar, grammar-first sampling;
- `gbnf_check_first`: our grammar with check-first sampling (what `EmbeddedModel` uses);
- `model`: `EmbeddedModel.generate` as the agent calls it: the tool chosen by likelihood
  (`choice_scoring`), then its arguments under the grammar, check-first.
Figures are medians over `runs`: decode tokens/s and seconds per tool call (prompt cached).
CPU contention from other processes shows directly in these numbers: compare within a run.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from llama_cpp.llama_grammar import LlamaGrammar
from llama_cpp.llama_types import CreateCompletionResponse
from smolagents import FinalAnswerTool
from smolagents.models import ChatMessage, MessageRole, get_tool_json_schema

from lsp_agent.benchmarks.agents import offline_context
from lsp_agent.models.embedded.model import (
    DEFAULT_EMBEDDED,
    EmbeddedModel,
    embedded_gguf,
    load_llama,
)
from lsp_agent.models.embedded.tool_grammar import check_call, tool_call_grammar, tool_specs
from tools.registry import build_tools

FREE_TOKENS = 48
CALL_TOKENS = 160
TASK = "The function average() in calc.py returns a wrong value. Read calc.py first."


def _schema_grammar(tools: list[Any]) -> str:
    calls = []
    for tool in tools:
        function = get_tool_json_schema(tool)["function"]
        calls.append(
            {
                "type": "object",
                "properties": {
                    "name": {"const": function["name"]},
                    "arguments": function["parameters"],
                },
                "required": ["name", "arguments"],
            }
        )
    return json.dumps({"oneOf": calls})


def _one_run(model: EmbeddedModel, tokens: list[int], grammar: str | None, kind: str) -> Any:
    llama = model.loaded.llama
    llama.check_first = kind == "gbnf_check_first"
    compiled = None
    if grammar is not None:
        compiled = (
            LlamaGrammar.from_json_schema(grammar, verbose=False)
            if kind == "json_schema"
            else LlamaGrammar.from_string(grammar, verbose=False)
        )
    started = time.perf_counter()
    result = llama.create_completion(
        prompt=tokens,
        max_tokens=FREE_TOKENS if grammar is None else CALL_TOKENS,
        temperature=model.temperature,
        grammar=compiled,
    )
    elapsed = time.perf_counter() - started
    result = cast(CreateCompletionResponse, result)
    return elapsed, int(result["usage"]["completion_tokens"]), str(result["choices"][0]["text"])


def measure(runs: int) -> dict[str, Any]:
    """Median decode tokens/s per mode, seconds per call, and how many calls were valid."""
    with tempfile.TemporaryDirectory() as workspace:
        tools = [
            *build_tools(offline_context(Path(workspace))),
            FinalAnswerTool(),
        ]
        loaded = load_llama(embedded_gguf(DEFAULT_EMBEDDED), 4096)
        model = EmbeddedModel(loaded, model_id="embedded", temperature=0.1, max_tokens=CALL_TOKENS)
        messages = [
            ChatMessage(role=MessageRole.SYSTEM, content="You are a coding agent."),
            ChatMessage(role=MessageRole.USER, content=TASK),
        ]
        tokens = model._tokens(model._prompt(messages, tools))
        specs = tool_specs(tools)
        grammars: dict[str, str | None] = {
            "none": None,
            "json_schema": _schema_grammar(tools),
            "gbnf": tool_call_grammar(specs),
            "gbnf_check_first": tool_call_grammar(specs),
        }
        started = time.perf_counter()
        loaded.llama.create_completion(prompt=tokens, max_tokens=1)  # fills the prompt cache
        figures: dict[str, Any] = {
            "prompt_tokens": len(tokens),
            "prompt_eval_s": round(time.perf_counter() - started, 2),
        }
        samples: dict[str, list[tuple[float, int, str]]] = {k: [] for k in grammars}
        with loaded.lock:
            for _ in range(max(1, runs)):
                for kind, grammar in grammars.items():  # interleaved: contention hits all alike
                    samples[kind].append(_one_run(model, tokens, grammar, kind))
            loaded.llama.check_first = True
        model_calls = []
        for _ in range(max(1, runs)):
            started = time.perf_counter()
            reply = model.generate(messages, tools_to_call_from=tools)
            model_calls.append((time.perf_counter() - started, bool(reply.tool_calls)))
        figures["model_s_per_call"] = round(statistics.median(s for s, _ in model_calls), 2)
        figures["model_valid_calls"] = f"{sum(ok for _, ok in model_calls)}/{len(model_calls)}"
        for kind, rows in samples.items():
            figures[f"{kind}_tokens_per_s"] = round(
                statistics.median(n / s for s, n, _ in rows if n), 1
            )
            if kind != "none":
                figures[f"{kind}_s_per_call"] = round(statistics.median(s for s, _, _ in rows), 2)
                valid = _valid_count(
                    [text for _, _, text in rows], specs, loose=kind == "json_schema"
                )
                figures[f"{kind}_valid_calls"] = f"{valid}/{len(rows)}"
        return figures


def _valid_count(texts: list[str], specs: Any, *, loose: bool) -> int:
    check: Callable[[str], bool]
    if loose:  # from_json_schema allows free whitespace and key order: compare parsed values

        def check(text: str) -> bool:
            try:
                call = json.loads(text)
            except ValueError:
                return False
            return not isinstance(check_call(json.dumps(call), specs), str)
    else:

        def check(text: str) -> bool:
            return not isinstance(check_call(text, specs), str)

    return sum(1 for text in texts if check(text))
