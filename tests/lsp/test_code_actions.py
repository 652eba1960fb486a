"""`textDocument/codeAction`: the `Agent: …` actions, from the request and the buffer only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.conftest import APP, job_end, use_script
from tests.lsp.editor import EditorClient, start_editor


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(types.Position(l1, c1), types.Position(l2, c2))


async def actions(
    client: EditorClient,
    uri: str,
    selection: types.Range,
    diagnostics: list[types.Diagnostic] | None = None,
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=selection,
            context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
        )
    )
    assert result is not None
    assert all(isinstance(a, types.CodeAction) for a in result), result
    return [a for a in result if isinstance(a, types.CodeAction)]


def argument(action: types.CodeAction) -> dict[str, Any]:
    assert action.command is not None and action.command.command == "lspAgent.run"
    assert action.command.arguments is not None and len(action.command.arguments) == 1
    value: dict[str, Any] = action.command.arguments[0]
    return value


def titles(found: list[types.CodeAction]) -> list[str]:
    return [a.title for a in found]


async def test_inside_a_function_with_a_diagnostic(editor: EditorClient) -> None:
    uri = editor.open("app.py")
    problem = types.Diagnostic(
        range=rng(5, 11, 5, 16), message="suspicious subtraction", source="lint", code="X1"
    )
    found = await actions(editor, uri, rng(5, 4, 5, 16), [problem])
    assert titles(found) == [
        "Agent: fix this diagnostic: suspicious subtraction",
        "Agent: explain",
        "Agent: write a test for this function",
        "Agent: refactor selection",
    ]
    fix, explain, write_test, refactor = found
    assert fix.kind == types.CodeActionKind.QuickFix
    assert list(fix.diagnostics or []) == [problem]
    assert argument(fix) == {
        "task": "Fix this diagnostic: lint: suspicious subtraction [X1]",
        "uri": uri,
        "range": {"start": {"line": 5, "character": 11}, "end": {"line": 5, "character": 16}},
    }
    assert argument(write_test)["task"] == "Write a test for the function `add`."
    assert argument(write_test)["range"]["start"] == {"line": 4, "character": 0}
    assert argument(explain)["uri"] == uri and argument(explain)["task"]
    assert refactor.kind == types.CodeActionKind.RefactorRewrite
    assert all(argument(a)["uri"] == uri for a in found)


async def test_outside_a_function_and_empty_selection(editor: EditorClient) -> None:
    uri = editor.open("mod.py", "import os\n\nVALUE = 1\n\ndef f():\n    pass\n")
    found = await actions(editor, uri, rng(2, 3, 2, 3))
    assert titles(found) == ["Agent: explain"]
    nested = await actions(editor, uri, rng(5, 4, 5, 4))
    assert "Agent: write a test for this function" in titles(nested)


async def test_only_filters_kinds(editor: EditorClient) -> None:
    uri = editor.open("app.py")
    problem = types.Diagnostic(range=rng(1, 0, 1, 5), message="m")
    quick = await actions(editor, uri, rng(1, 0, 1, 5), [problem], only=["quickfix"])
    assert titles(quick) == ["Agent: fix this diagnostic: m"]
    refactor = await actions(editor, uri, rng(1, 0, 1, 5), [problem], only=["refactor"])
    assert titles(refactor) == ["Agent: refactor selection"]


async def test_automatic_requests_offer_only_fixes_and_refactoring(editor: EditorClient) -> None:
    uri = editor.open("app.py")
    problem = types.Diagnostic(range=rng(5, 0, 5, 5), message="m")
    result = await editor.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng(5, 4, 5, 8),
            context=types.CodeActionContext(
                diagnostics=[problem], trigger_kind=types.CodeActionTriggerKind.Automatic
            ),
        )
    )
    assert [a.title for a in result or []] == [
        "Agent: fix this diagnostic: m",
        "Agent: refactor selection",
    ]


async def test_a_document_that_is_not_open_reads_no_file(editor: EditorClient) -> None:
    uri = editor.uri("app.py")  # never opened: the server must not read it from disk
    found = await actions(editor, uri, rng(5, 4, 5, 8))
    assert titles(found) == ["Agent: explain", "Agent: refactor selection"]


@pytest.mark.parametrize(
    "can_prompt",
    [
        {"experimental": {"lspAgent": {"prompt": True}}},  # the client's capabilities
        {"options": {"lspAgent": {"clientCanPrompt": True}}},  # its initializationOptions
    ],
    ids=["experimental-capability", "initialization-options"],
)
async def test_ask_only_when_the_client_can_prompt(
    raw_editor: EditorClient, workspace: Path, can_prompt: dict[str, Any]
) -> None:
    await start_editor(raw_editor, workspace, raw_editor.preset, **can_prompt)
    uri = raw_editor.open("app.py")
    found = await actions(raw_editor, uri, rng(0, 0, 0, 0))
    ask = next(a for a in found if a.title == "Agent: ask…")
    assert argument(ask)["ask"] is True and argument(ask)["task"] == ""


async def test_no_ask_without_prompt_support(editor: EditorClient) -> None:
    uri = editor.open("app.py")
    assert "Agent: ask…" not in titles(await actions(editor, uri, rng(0, 0, 0, 0)))


async def test_running_an_action_starts_a_job_that_sees_the_selection(
    editor: EditorClient, workspace: Path
) -> None:
    script = use_script(editor, [{"final_answer": "it subtracts"}])
    uri = editor.open("app.py")
    explain = next(
        a for a in await actions(editor, uri, rng(4, 0, 5, 16)) if a.title == "Agent: explain"
    )
    assert explain.command is not None
    started = await editor.command(explain.command.command, *(explain.command.arguments or []))
    assert isinstance(started["jobId"], int)
    end = await job_end(editor, started["jobId"])
    assert "it subtracts" in end.message
    task = (script.with_name(script.name + ".trace.json")).read_text()
    assert "File: app.py, lines 5-6" in task and "return a - b" in task
    assert (workspace / "app.py").read_text() == APP
