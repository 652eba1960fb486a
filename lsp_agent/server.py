"""The language server: thin handlers that take the server first and delegate to modules."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from lsp_agent import __version__
from lsp_agent.settings import SettingError, Settings, load_settings

log = logging.getLogger(__name__)


class LspAgentServer(LanguageServer):
    """pygls server holding the settings and workspace root of one editor session."""

    def __init__(self) -> None:
        super().__init__(name="lsp-agent", version=__version__)
        self.settings: Settings
        self.settings_errors: list[SettingError]
        self.settings, self.settings_errors = load_settings()
        self.workspace_root: Path | None = None
        self.editor_overrides: dict[str, Any] = {}

    def reload_settings(self) -> None:
        """Re-read `.env`, the environment and the editor's overrides, in that order."""
        self.settings, self.settings_errors = load_settings(
            workspace=self.workspace_root, overrides=self.editor_overrides
        )

    def report_settings_errors(self) -> None:
        """Tell the editor, once per bad value, which setting fell back to its default."""
        for error in self.settings_errors:
            log.warning("%s", error)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"lsp-agent: {error}"
                )
            )


def editor_overrides(options: Any) -> dict[str, Any]:
    """Settings from `initializationOptions` / `workspace/configuration`.

    Accepts a flat mapping (`{"MODEL_ID": …}` or `{"modelId": …}`) or one nested under
    `lspAgent` / `lsp_agent` / `settings`, as editors tend to send.
    """
    if not isinstance(options, dict):
        return {}
    for key in ("lspAgent", "lsp_agent", "lsp-agent", "settings"):
        nested = options.get(key)
        if isinstance(nested, dict):
            return {**options, **nested}
    return dict(options)


def workspace_root_of(params: types.InitializeParams) -> Path | None:
    if params.workspace_folders:
        path = to_fs_path(params.workspace_folders[0].uri)
        return Path(path) if path else None
    if params.root_uri:
        path = to_fs_path(params.root_uri)
        return Path(path) if path else None
    if params.root_path:
        return Path(params.root_path)
    return None


def on_initialize(ls: LspAgentServer, params: types.InitializeParams) -> None:
    ls.workspace_root = workspace_root_of(params)
    ls.editor_overrides = editor_overrides(params.initialization_options)
    ls.reload_settings()
    log.info("initialize: root=%s model=%s", ls.workspace_root, ls.settings.model_id)


def on_initialized(ls: LspAgentServer, params: types.InitializedParams) -> None:
    ls.report_settings_errors()


def on_did_change_configuration(
    ls: LspAgentServer, params: types.DidChangeConfigurationParams
) -> None:
    if params.settings:
        ls.editor_overrides = {**ls.editor_overrides, **editor_overrides(params.settings)}
    ls.reload_settings()
    ls.report_settings_errors()


def create_server() -> LspAgentServer:
    """Build the server and register its features."""
    server = LspAgentServer()
    server.feature(types.INITIALIZE)(on_initialize)
    server.feature(types.INITIALIZED)(on_initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(on_did_change_configuration)
    return server
