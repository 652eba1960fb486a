"""`textDocument/codeAction`: the `Agent: …` actions, from cheap local data only.

Inputs are the request (range, diagnostics, `only`) and the open document's text — never
a model call, never the disk. Actions (each runs `lspAgent.run {task, uri, range}`):

- `Agent: fix this diagnostic: <message>` — one per diagnostic in the request (quickfix);
- `Agent: explain` — always (but not when the client asks automatically, e.g. VS Code's
  lightbulb on every cursor move: then only fixes and the refactoring are offered);
- `Agent: write a test for this function` — when the range is inside a `def` (or
  `function` / `func` / `fn`), found by indentation in at most `SCAN_LINES` lines above;
- `Agent: refactor selection` — when the selection is not empty (refactor.rewrite);
- `Agent: ask…` — only when the client can prompt for a task: it advertises
  `capabilities.experimental.lspAgent.prompt = true` (or sends `initializationOptions`
  `lspAgent.clientCanPrompt = true`). Its argument carries `"ask": true` and an empty
  task; the client prompts, fills in `task` and sends `lspAgent.run`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from lsp_agent.lsp.commands import RUN

SCAN_LINES = 400
TITLE_CHARS = 60
_DEF = re.compile(
    r"^\s*(?:async\s+def|def|(?:export\s+)?(?:async\s+)?function|func|(?:pub\s+)?fn)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)

FIX_KIND = types.CodeActionKind.QuickFix
REFACTOR_KIND = types.CodeActionKind.RefactorRewrite
AGENT_KIND = "lspAgent"  # explain, write a test, ask: not a fix, not a refactor


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(kind == o or kind.startswith(f"{o}.") for o in only)


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number] if 0 <= number < len(lines) else ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def enclosing_function(lines: Sequence[str], line: int) -> tuple[str, int] | None:
    """(name, line of its `def`) of the function around `line`, or None."""
    current = _line(lines, line)
    match = _DEF.match(current)
    if match:
        return match.group(1), line
    needed = _indent(current) if current.strip() else 10**9
    for number in range(line - 1, max(-1, line - 1 - SCAN_LINES), -1):
        text = lines[number] if number < len(lines) else ""
        if not text.strip():
            continue
        indent = _indent(text)
        if indent >= needed:
            continue
        match = _DEF.match(text)
        if match:
            return match.group(1), number
        if indent == 0:
            return None
        needed = indent
    return None


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def _action(
    title: str, kind: str, task: str, uri: str, rng: types.Range, **extra: Any
) -> types.CodeAction:
    argument: dict[str, Any] = {"task": task, "uri": uri, "range": _range_json(rng), **extra}
    return types.CodeAction(
        title=title,
        kind=kind,
        command=types.Command(title=title, command=RUN, arguments=[argument]),
        diagnostics=None,
    )


def _range_json(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def code_actions(
    params: types.CodeActionParams, lines: Sequence[str], *, can_prompt: bool = False
) -> list[types.CodeAction]:
    """The agent's actions for `params` over the document `lines`."""
    uri, rng = params.text_document.uri, params.range
    only = [str(getattr(k, "value", k)) for k in params.context.only or ()] or None
    actions: list[types.CodeAction] = []
    if _wanted(FIX_KIND, only):
        for diagnostic in params.context.diagnostics:
            code = f" [{diagnostic.code}]" if diagnostic.code is not None else ""
            source = f"{diagnostic.source}: " if diagnostic.source else ""
            task = f"Fix this diagnostic: {source}{diagnostic.message}{code}"
            action = _action(
                f"Agent: fix this diagnostic: {_short(diagnostic.message)}",
                FIX_KIND,
                task,
                uri,
                diagnostic.range,
            )
            action.diagnostics = [diagnostic]
            actions.append(action)
    invoked = params.context.trigger_kind != types.CodeActionTriggerKind.Automatic
    if invoked and _wanted(AGENT_KIND, only):
        actions.append(_action("Agent: explain", AGENT_KIND, "Explain this code.", uri, rng))
        found = enclosing_function(lines, rng.start.line)
        if found is not None:
            name, def_line = found
            def_range = types.Range(types.Position(def_line, 0), rng.end)
            task = f"Write a test for the function `{name}`."
            actions.append(
                _action("Agent: write a test for this function", AGENT_KIND, task, uri, def_range)
            )
    if rng.start != rng.end and _wanted(REFACTOR_KIND, only):
        task = "Refactor the selected code: make it clearer, keep its behaviour."
        actions.append(_action("Agent: refactor selection", REFACTOR_KIND, task, uri, rng))
    if invoked and can_prompt and _wanted(AGENT_KIND, only):
        actions.append(_action("Agent: ask…", AGENT_KIND, "", uri, rng, ask=True))
    return actions
