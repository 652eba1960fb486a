"""Which code steps only repeat what the job tried: code mode's stale-reply check.

A stale reply is decoded again, hotter, before it runs (`models.robust.fresh` says why). A
code step is stale when it cannot show the model anything new: the same code as the step
before, code that calls no tool and writes task files' definitions as they are or as a
proposed patch writes them, while tests fail with that version
(`WrittenDefinitions.adds_nothing`), or code whose proposal calls, written with literal
arguments, each write such a version (`stale_calls.written_already`). Code that gives a final
answer is not stale, the final-answer checks judge it, unless it is the last step's code and
does more than answer: Qwen2.5-Coder-1.5B wrote the same `open("…_test.py")`, edit and
`final_answer(…)` for 22 steps, each failing before its answer with FileNotFoundError
(parallel-letter-frequency).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import Any

from smolagents.models import ChatMessage
from smolagents.utils import parse_code_blobs

from lsp_agent.agent.code_mode.block_text import block_code
from lsp_agent.agent.code_mode.executor import FINAL_ANSWER
from lsp_agent.agent.code_mode.written_definitions import WrittenDefinitions
from lsp_agent.agent.stale_calls import written_already
from lsp_agent.models.robust import content_text
from tools.patch_tools import PROPOSAL_TOOLS


def stale_code(
    reply: ChatMessage,
    tags: tuple[str, str],
    previous: str | None,
    tools: Collection[str],
    written: WrittenDefinitions,
) -> str | None:
    """Why a code step's reply only repeats what the job tried, or None: `previous` is the
    last step's code, `tools` the names the code may call."""
    text = content_text(reply.content)
    if text and not text.strip().endswith(tags[1]):
        text += tags[1]  # as the agent closes a block cut at its stop sequence
    try:
        code = block_code(parse_code_blobs(text, tags))  # what the executor runs
    except ValueError:
        return None
    same = previous is not None and code.strip() == block_code(previous).strip()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # the same broken code again: sublist's propose_patch(""" diff … with its syntax
        # error, three steps of 140 s each
        return "the reply's code is the last step's code" if same else None
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    if FINAL_ANSWER in called and (not same or called <= {FINAL_ANSWER, "print"}):
        return None  # an answer: the final-answer checks judge it
    proposals = _literal_proposals(tree, called & set(tools) & set(PROPOSAL_TOOLS))
    if proposals:  # judged by what they propose
        whys = [written_already(written.context, tool, arguments) for tool, arguments in proposals]
        if all(whys):
            return f"the reply's code proposes nothing new: {'; '.join(filter(None, whys))}"
    writes = [] if called & set(tools) else written.writes(code)
    if writes:  # judged by what it proposes
        why = written.adds_nothing(writes)
        return None if why is None else f"the reply's code proposes nothing new: {why}"
    return "the reply's code is the last step's code" if same else None


def _literal_proposals(tree: ast.Module, tools: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls of the proposal `tools` in `tree`, with their arguments, when each is
    written with literal arguments only (a proposal built from variables is not judged)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in tools:
            continue
        names = list(PROPOSAL_TOOLS[node.func.id].inputs)
        try:
            arguments = dict(zip(names, (ast.literal_eval(a) for a in node.args), strict=False))
            arguments |= {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return []
        if len(node.args) > len(names) or any(k.arg is None for k in node.keywords):
            return []
        found.append((node.func.id, arguments))
    return found
