"""`textDocument/inlineCompletion` over stdio: the real server against a scripted FIM server on
127.0.0.1 (`tests.fim_stub`), so the tests see what reaches the backend and steer when it
answers: the capability, the request's fields, cache, cancel, supersede, bad input."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.fim_stub import FimStub, fim_stub
from tests.lsp.editor import EditorClient, start_editor, wait_for

SOURCE = "import math\n\n\ndef area(radius):\n    return \n\n\ndef other():\n    pass\n"
LINE = 4  # "    return "


@pytest.fixture
def stub() -> Iterator[FimStub]:
    with fim_stub(FimStub(lambda body: "math.pi * radius ** 2")) as running:
        yield running


def options(stub: FimStub, **extra: Any) -> dict[str, Any]:
    return {
        "COMPLETION_MODEL_ID": "openai/stub-coder",
        "COMPLETION_API_BASE": stub.url,
        "COMPLETION_DEBOUNCE_MS": 0,
        **extra,
    }


async def started(client: EditorClient, workspace: Path, stub: FimStub, **extra: Any) -> str:
    client.init_result = await start_editor(
        client, workspace, client.preset, options=options(stub, **extra)
    )
    (workspace / "geo.py").write_text(SOURCE)
    return client.open("geo.py")


def ask(
    client: EditorClient, uri: str, line: int, character: int, invoked: bool = False
) -> asyncio.Future[Any]:
    kind = types.InlineCompletionTriggerKind
    return asyncio.ensure_future(
        client.protocol.send_request_async(
            types.TEXT_DOCUMENT_INLINE_COMPLETION,
            types.InlineCompletionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
                context=types.InlineCompletionContext(
                    trigger_kind=kind.Invoked if invoked else kind.Automatic
                ),
            ),
        )
    )


def texts(result: Any) -> list[str]:
    items = result.items if isinstance(result, types.InlineCompletionList) else result or []
    return [item.insert_text for item in items]


def type_at(client: EditorClient, uri: str, line: int, character: int, text: str) -> None:
    at = types.Position(line=line, character=character)
    client.type_text(uri, types.Range(start=at, end=at), text)


async def status(client: EditorClient) -> dict[str, Any]:
    result = await client.command("lspAgent.status")
    return dict(result["completions"])


async def test_the_capability_is_advertised_only_when_a_completion_model_is_set(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    await started(raw_editor, workspace, stub)
    capabilities = raw_editor.init_result.capabilities
    assert capabilities.inline_completion_provider is not None


async def test_without_a_completion_model_there_is_no_capability_and_the_request_is_refused(
    editor: EditorClient,
) -> None:
    assert editor.init_result.capabilities.inline_completion_provider is None
    uri = editor.open("app.py")
    with pytest.raises(JsonRpcException) as raised:
        await ask(editor, uri, 0, 3)
    assert "inlineCompletion" in str(raised.value) or "off" in str(raised.value)


async def test_an_item_comes_from_the_fim_prompt_around_the_cursor(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    (workspace / "shapes.py").write_text("class Circle:\n    radius: float\n")
    uri = await started(client, workspace, stub)
    client.open("shapes.py")
    client.open("geo.py")
    result = await ask(client, uri, LINE, len("    return "))
    assert texts(result) == ["math.pi * radius ** 2"]
    item = result.items[0]
    assert item.range.start == item.range.end == types.Position(line=LINE, character=11)
    (path, body) = stub.calls[0]
    assert path == "/infill"
    assert body["prompt"] == "    return "  # MIDDLE: the cursor line up to the cursor
    assert body["input_prefix"].endswith("def area(radius):\n")
    assert body["input_suffix"].startswith("\n\n\ndef other():")
    assert body["n_indent"] == 4 and body["cache_prompt"] is True
    assert body["model"] == "stub-coder"
    assert body["input_extra"] == [
        {"filename": "shapes.py", "text": "class Circle:\n    radius: float\n"}
    ]


async def test_a_repeat_and_typing_what_is_shown_come_from_the_cache(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    uri = await started(client, workspace, stub)
    assert texts(await ask(client, uri, LINE, 11)) == ["math.pi * radius ** 2"]
    assert texts(await ask(client, uri, LINE, 11)) == ["math.pi * radius ** 2"]
    type_at(client, uri, LINE, 11, "math.")
    assert texts(await ask(client, uri, LINE, 16)) == ["pi * radius ** 2"]
    assert len(stub.calls) == 1, "the repeat and the typed prefix must not reach the model"
    assert (await status(client))["answers"] == {"model": 1, "cache": 2}


async def test_cancel_request_stops_the_backend_call(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    uri = await started(client, workspace, stub)
    stub.hold()
    before = set(client.protocol._request_futures)
    pending = ask(client, uri, LINE, 11)
    await wait_for(stub.arrived.is_set, "the request to reach the backend")
    (msg_id,) = set(client.protocol._request_futures) - before
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as cancelled:
        await pending
    assert "cancel" in str(cancelled.value).lower()
    await wait_for(lambda: stub.abandoned == 1, "the server to drop the backend request")
    stub.release()
    assert texts(await ask(client, uri, LINE, 11)) == ["math.pi * radius ** 2"]


async def test_a_newer_position_supersedes_the_running_request(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    uri = await started(client, workspace, stub)
    stub.hold()
    first = ask(client, uri, LINE, 11)
    await wait_for(stub.arrived.is_set, "the first request to reach the backend")
    type_at(client, uri, LINE, 11, "m")
    second = ask(client, uri, LINE, 12)
    assert texts(await asyncio.wait_for(first, 30)) == [], "answered at once, while held"
    await wait_for(lambda: stub.abandoned == 1, "the first backend request to be dropped")
    stub.release()
    assert texts(await second) == ["math.pi * radius ** 2"]
    assert (await status(client))["answers"]["superseded"] == 1


async def test_a_server_that_is_down_is_reported_once_then_retried_quietly(
    raw_editor: EditorClient, workspace: Path
) -> None:
    client = raw_editor
    with fim_stub() as gone:
        url = gone.url
    down = FimStub()
    down.url = url
    uri = await started(client, workspace, down)
    assert texts(await ask(client, uri, LINE, 11)) == []
    assert texts(await ask(client, uri, LINE, 11)) == []
    notices = [m.message for m in client.messages if "Inline completions" in m.message]
    assert len(notices) == 1, notices
    assert "cannot reach llama-server at " + url in notices[0]
    assert "Trying again quietly" in notices[0]


async def test_a_server_without_infill_gets_a_clear_message(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    stub.status, stub.error = (
        501,
        {
            "error": {
                "code": 501,
                "message": "Infill is not supported by this model: prefix token is missing. ",
            }
        },
    )
    uri = await started(client, workspace, stub)
    assert texts(await ask(client, uri, LINE, 11)) == []
    await wait_for(
        lambda: any("Infill is not supported" in m.message for m in client.messages), "the notice"
    )


async def test_bad_positions_and_closed_documents_get_clear_errors(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    uri = await started(client, workspace, stub)
    with pytest.raises(JsonRpcException) as not_open:
        await ask(client, client.uri("nowhere.py"), 0, 0)
    assert "is not open" in str(not_open.value)
    with pytest.raises(JsonRpcException) as past_end:
        await ask(client, uri, 500, 0)
    assert "past the end" in str(past_end.value)
    # A character past the end of its line means the line's end (LSP's rule).
    assert texts(await ask(client, uri, LINE, 999)) == ["math.pi * radius ** 2"]
    assert stub.calls[-1][1]["prompt"] == "    return "


async def test_the_embedded_model_over_stdio_reads_only_new_tokens_per_keystroke(
    raw_editor: EditorClient, workspace: Path
) -> None:
    client = raw_editor
    client.init_result = await start_editor(
        client,
        workspace,
        client.preset,
        options={"COMPLETION_MODEL_ID": "embedded", "COMPLETION_DEBOUNCE_MS": 0},
    )
    assert client.init_result.capabilities.inline_completion_provider is not None
    (workspace / "ops.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return \n"
    )
    uri = client.open("ops.py")
    first = await ask(client, uri, 5, 11)
    cold = (await status(client))["last"]
    type_at(client, uri, 5, 11, "a")
    second = await ask(client, uri, 5, 12)
    warm = (await status(client))["last"]
    assert cold["source"] == warm["source"] == "model"
    assert cold["promptTokens"] > 10 and warm["promptTokens"] <= 3
    assert isinstance(first, types.InlineCompletionList)
    assert isinstance(second, types.InlineCompletionList)


def dynamic_inline_completion(capabilities: types.ClientCapabilities) -> None:
    """What VS Code and Neovim 0.12 say: they take `client/registerCapability` for it."""
    assert capabilities.text_document is not None
    capabilities.text_document.inline_completion = types.InlineCompletionClientCapabilities(
        dynamic_registration=True
    )


async def test_completions_turned_on_later_are_registered_dynamically(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    client.init_result = await start_editor(
        client, workspace, client.preset, tweak=dynamic_inline_completion
    )
    assert client.init_result.capabilities.inline_completion_provider is None
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspAgent": options(stub)})
    )
    await wait_for(lambda: client.registrations, "client/registerCapability")
    (registration,) = client.registrations[0].registrations
    assert registration.method == types.TEXT_DOCUMENT_INLINE_COMPLETION
    (workspace / "geo.py").write_text(SOURCE)
    uri = client.open("geo.py")
    assert texts(await ask(client, uri, LINE, 11)) == ["math.pi * radius ** 2"]


async def test_a_client_without_dynamic_registration_is_told_to_restart(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    client.init_result = await start_editor(client, workspace, client.preset)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspAgent": options(stub)})
    )
    await wait_for(lambda: any("restart" in m.message for m in client.messages), "the notice")
    assert client.registrations == []


async def test_a_workspace_env_file_cannot_turn_completions_on_or_send_code_elsewhere(
    raw_editor: EditorClient, workspace: Path, stub: FimStub
) -> None:
    client = raw_editor
    (workspace / ".env").write_text(
        f"COMPLETION_MODEL_ID=openai/exfil\nCOMPLETION_API_BASE={stub.url}\n"
    )
    client.init_result = await start_editor(client, workspace, client.preset)
    assert client.init_result.capabilities.inline_completion_provider is None
    await wait_for(
        lambda: (
            sum("COMPLETION_" in m.message and "ignored" in m.message for m in client.messages) == 2
        ),
        "both keys reported as ignored",
    )
    uri = client.open("app.py")
    with pytest.raises(JsonRpcException):
        await ask(client, uri, 0, 3)
    assert stub.calls == []


async def test_an_unknown_completion_model_is_named_in_a_clear_message(
    raw_editor: EditorClient, workspace: Path
) -> None:
    client = raw_editor
    client.init_result = await start_editor(
        client, workspace, client.preset, options={"COMPLETION_MODEL_ID": "gpt-4-turbo"}
    )
    await wait_for(lambda: any("COMPLETION_MODEL_ID" in m.message for m in client.messages), "it")
    message = next(m.message for m in client.messages if "COMPLETION_MODEL_ID" in m.message)
    assert "'gpt-4-turbo'" in message and "ollama/<name>" in message
    assert client.init_result.capabilities.inline_completion_provider is None


async def test_a_missing_embedded_model_file_is_reported_once(
    raw_editor: EditorClient, workspace: Path, tmp_path: Path
) -> None:
    client = raw_editor
    missing = tmp_path / "nowhere.gguf"
    client.init_result = await start_editor(
        client,
        workspace,
        client.preset,
        options={"COMPLETION_MODEL_ID": f"embedded:{missing}", "COMPLETION_DEBOUNCE_MS": 0},
    )
    uri = client.open("app.py")
    assert texts(await ask(client, uri, 1, 4)) == []
    assert texts(await ask(client, uri, 1, 5)) == []
    notices = [m.message for m in client.messages if "Inline completions" in m.message]
    assert len(notices) == 1 and f"no GGUF file at {missing}" in notices[0], notices
