"""initialize / shutdown over stdio with real client presets, settings from the editor."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = ["visual-studio-code", "neovim@v0.7.0"]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "lsp_agent", "serve"]),
    params=CLIENTS,
)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path):
    lsp_client.init_result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=tmp_path.as_uri(),
            initialization_options={"lspAgent": {"agentMaxSteps": "-1", "modelId": "openai/x"}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def wait_for_messages(client: LanguageClient, count: int) -> None:
    for _ in range(100):
        if len(client.messages) >= count:
            return
        await asyncio.sleep(0.05)


async def test_initialize_names_the_server(client: LanguageClient) -> None:
    info = client.init_result.server_info
    assert info is not None and info.name == "lsp-agent"


async def test_bad_editor_setting_is_reported_and_server_keeps_serving(
    client: LanguageClient,
) -> None:
    await wait_for_messages(client, 1)
    assert client.messages, "the bad setting should be reported with window/showMessage"
    message = client.messages[0]
    assert message.type == types.MessageType.Warning
    assert "AGENT_MAX_STEPS" in message.message and "'-1'" in message.message
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"modelTemperature": "hot"})
    )
    await wait_for_messages(client, 2)
    assert any("MODEL_TEMPERATURE" in m.message for m in client.messages)
