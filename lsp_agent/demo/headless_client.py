"""A headless LSP client that drives a real `lsp-agent serve` over stdio.

Used by `lsp-agent demo` and the benchmarks; the pytest-lsp suite uses its own client.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from lsp_agent import __version__
from safety import host_process


def server_command() -> list[str]:
    """The command that starts this installation's server (`-P`: the working directory is
    not put on `sys.path`)."""
    return [sys.executable, "-P", "-m", "lsp_agent", "serve"]


def converter_factory() -> Any:
    """pygls's converter, plus a fix: lsprotocol 2025.0.0 decodes any code action with a
    `command` as a plain `Command` (whose `command` is then the stringified object)."""
    converter = default_converter()

    def command_or_action(obj: Any, _: type) -> Any:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], command_or_action)  # noqa: UP007
    return converter


class HeadlessClient(LanguageClient):
    """A language client that records what the server tells the user."""

    def __init__(self) -> None:
        super().__init__("lsp-agent-headless", __version__, converter_factory=converter_factory)
        self.messages: list[types.ShowMessageParams] = []

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def on_show_message(params: types.ShowMessageParams) -> None:
            self.messages.append(params)
            self.on_message(params)

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def on_log_message(params: types.LogMessageParams) -> None:
            self.on_log(params)

    def on_message(self, params: types.ShowMessageParams) -> None:
        """Called for every `window/showMessage` (subclasses react to it)."""

    def on_log(self, params: types.LogMessageParams) -> None:
        """Called for every `window/logMessage` (subclasses may show some)."""


@asynccontextmanager
async def running_server(
    root: Path,
    initialization_options: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    client: HeadlessClient | None = None,
    capabilities: types.ClientCapabilities | None = None,
) -> AsyncIterator[tuple[HeadlessClient, types.InitializeResult]]:
    """Start the server on `root`, initialize it, yield the client, shut it down cleanly."""
    client = client if client is not None else HeadlessClient()
    with host_process.neutral_directory() as neutral:  # never `python -m` in a repository
        launch = host_process.launch(server_command(), neutral, env=env, whole_env=bool(env))
        await client.start_io(launch.argv[0], *launch.argv[1:], env=launch.env, cwd=launch.cwd)
        try:
            result = await client.initialize_async(
                types.InitializeParams(
                    process_id=None,
                    root_uri=root.resolve().as_uri(),
                    workspace_folders=[
                        types.WorkspaceFolder(uri=root.resolve().as_uri(), name=root.name)
                    ],
                    capabilities=capabilities or types.ClientCapabilities(),
                    initialization_options=dict(initialization_options or {}),
                )
            )
            client.initialized(types.InitializedParams())
            yield client, result
            await client.shutdown_async(None)
            client.exit(None)
        finally:
            await client.stop()
