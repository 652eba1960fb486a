"""A headless LSP client that drives a real `lsp-agent serve` over stdio.

Used by `lsp-agent demo` and the benchmarks; the pytest-lsp suite uses its own client.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from lsp_agent import __version__


def server_command() -> list[str]:
    """The command that starts this installation's server."""
    return [sys.executable, "-m", "lsp_agent", "serve"]


class HeadlessClient(LanguageClient):
    """A language client that records what the server tells the user."""

    def __init__(self) -> None:
        super().__init__("lsp-agent-headless", __version__)
        self.messages: list[types.ShowMessageParams] = []

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def on_show_message(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def on_log_message(params: types.LogMessageParams) -> None:
            return None


@asynccontextmanager
async def running_server(
    root: Path,
    initialization_options: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[tuple[HeadlessClient, types.InitializeResult]]:
    """Start the server on `root`, initialize it, yield the client, shut it down cleanly."""
    client = HeadlessClient()
    command = server_command()
    await client.start_io(command[0], *command[1:], env=dict(env) if env else None)
    try:
        result = await client.initialize_async(
            types.InitializeParams(
                process_id=None,
                root_uri=root.resolve().as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=root.resolve().as_uri(), name=root.name)
                ],
                capabilities=types.ClientCapabilities(),
                initialization_options=dict(initialization_options or {}),
            )
        )
        client.initialized(types.InitializedParams())
        yield client, result
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
