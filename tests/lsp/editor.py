"""A pytest-lsp client that behaves like an editor: it applies workspace edits to the files
in the temporary workspace, answers `window/showMessageRequest`, and keeps its open
documents in sync with the server (`didOpen` / `didChange`).

Text edits are applied here with an implementation independent of `lsp_agent.lsp.edits`
(LSP line breaks, positions in the negotiated encoding), so the tests check the server's
positions rather than re-using its own arithmetic.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from lsp_agent.demo.headless_client import converter_factory

FAKE_SERVER = [sys.executable, str(Path(__file__).with_name("fake_server.py"))]
REAL_SERVER = [sys.executable, "-m", "lsp_agent", "serve"]
CLIENTS = ["visual-studio-code", "neovim@v0.7.0"]
SERVER_ENV = {
    **os.environ,
    "PHOENIX_ENABLED": "false",
    "SANDBOX_BACKEND": "none",
    "LOG_LEVEL": "INFO",
    "MODEL_ID": "scripted:/nonexistent.json",
    # The servers' user data (workspace memory, trusted files) stays out of the real home.
    "XDG_DATA_HOME": os.environ.get("LSP_AGENT_TEST_DATA_HOME")
    or tempfile.mkdtemp(prefix="lsp-agent-test-data-"),
}
_BREAK = re.compile(r"\r\n|\r|\n")


class EditorClient(LanguageClient):
    """The test editor."""

    def __init__(self) -> None:
        super().__init__(converter_factory=converter_factory)
        self.root: Path | None = None
        self.preset = ""
        self.init_result: types.InitializeResult | None = None
        self.encoding = "utf-16"
        self.documents: dict[str, tuple[str, int]] = {}
        self.answers: list[str | None] = []
        self.default_answer: str | None = "Apply"
        self.hold_dialogs: asyncio.Event | None = None
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.apply_mode = "apply"  # or "decline", "fail", "type-first"
        self.registrations: list[types.RegistrationParams] = []

    # ---- documents ----------------------------------------------------------------------
    def uri(self, rel: str) -> str:
        assert self.root is not None
        return (self.root / rel).resolve().as_uri()

    def open(self, rel: str, text: str | None = None) -> str:
        assert self.root is not None
        uri = self.uri(rel)
        if text is None:
            text = (self.root / rel).read_bytes().decode("utf-8")
        self.documents[uri] = (text, 1)
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def type_text(self, uri: str, rng: types.Range, text: str) -> None:
        """An incremental change, as an editor sends while the user types."""
        old, version = self.documents[uri]
        new = apply_text_edits(old, [(rng, text)], self.encoding)
        self.documents[uri] = (new, version + 1)
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)],
            )
        )

    def replace_all(self, uri: str, text: str) -> None:
        _, version = self.documents[uri]
        self.documents[uri] = (text, version + 1)
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def run(self, **argument: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command="lspAgent.run", arguments=[argument])
        )

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def offset_at(text: str, position: types.Position, encoding: str) -> int:
    """The code-point offset of an LSP position (clamped to its line, as the spec says)."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    match = _BREAK.search(text, start)
    end = match.start() if match else len(text)
    offset, used = start, 0
    while offset < end and used < position.character:
        used += _units(text[offset], encoding)
        offset += 1
    assert used == position.character or offset == end, "position inside a character"
    return offset


def apply_text_edits(text: str, edits: list[tuple[types.Range, str]], encoding: str) -> str:
    spans = sorted(
        (
            (offset_at(text, r.start, encoding), offset_at(text, r.end, encoding), t)
            for r, t in edits
        ),
        key=lambda s: s[0],
    )
    for (_, end, _t), (start, _e, _u) in itertools.pairwise(spans):
        assert end <= start, "overlapping edits"
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def _apply(
    client: EditorClient, params: types.ApplyWorkspaceEditParams
) -> types.ApplyWorkspaceEditResult:
    edit = params.edit
    files: dict[Path, str | None] = {}

    def current(path: Path) -> str | None:
        if path in files:
            return files[path]
        uri = path.resolve().as_uri()
        if uri in client.documents:
            return client.documents[uri][0]
        return path.read_bytes().decode("utf-8") if path.exists() else None

    for uri, text_edits in (edit.changes or {}).items():
        path = path_of(uri)
        files[path] = apply_text_edits(
            current(path) or "", [(e.range, e.new_text) for e in text_edits], client.encoding
        )
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit):
            uri = change.text_document.uri
            version = change.text_document.version
            if (
                uri in client.documents
                and version is not None
                and client.documents[uri][1] != version
            ):
                return types.ApplyWorkspaceEditResult(applied=False)  # as VS Code does
            path = path_of(uri)
            files[path] = apply_text_edits(
                current(path) or "", [(e.range, e.new_text) for e in change.edits], client.encoding
            )
        elif isinstance(change, types.CreateFile):
            path = path_of(change.uri)
            if current(path) is not None:
                return types.ApplyWorkspaceEditResult(applied=False, failure_reason="file exists")
            files[path] = ""
        elif isinstance(change, types.RenameFile):
            old, new = path_of(change.old_uri), path_of(change.new_uri)
            files[new], files[old] = current(old), None
        elif isinstance(change, types.DeleteFile):
            files[path_of(change.uri)] = None
    for path, content in files.items():
        uri = path.resolve().as_uri()
        if content is None:
            path.unlink(missing_ok=True)
            client.documents.pop(uri, None)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))
        if uri in client.documents:  # the editor's buffer changes (and is saved)
            client.replace_all(uri, content)
    return types.ApplyWorkspaceEditResult(applied=True)


def make_editor_client() -> EditorClient:
    client = EditorClient()
    register_lsp_features(client)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(
        ls: EditorClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        ls.edits.append(params)
        if ls.apply_mode == "decline":
            return types.ApplyWorkspaceEditResult(applied=False)
        if ls.apply_mode == "fail":
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="disk full (test)")
        if ls.apply_mode == "type-first":  # the user types while the edit is in flight
            uri = next(iter(ls.documents))
            ls.type_text(uri, types.Range(types.Position(0, 0), types.Position(0, 0)), "# typed\n")
        return _apply(ls, params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(ls: EditorClient, params: types.RegistrationParams) -> None:
        ls.registrations.append(params)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def show_message_request(
        ls: EditorClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        ls.message_requests.append(params)
        if ls.hold_dialogs is not None:
            await ls.hold_dialogs.wait()
        answer = ls.answers.pop(0) if ls.answers else ls.default_answer
        return None if answer is None else types.MessageActionItem(title=answer)

    return client


async def start_editor(
    client: EditorClient,
    root: Path,
    spec: str,
    *,
    encodings: list[str] | None = None,
    experimental: Any = None,
    options: Any = None,
    tweak: Any = None,
) -> types.InitializeResult:
    """`initialize` + `initialized` as `spec` (a pytest-lsp client preset) in `root`;
    `tweak(capabilities)` may change the preset first."""
    from pytest_lsp import client_capabilities

    capabilities = client_capabilities(spec)
    if tweak is not None:
        tweak(capabilities)
    if encodings is not None:
        capabilities.general = types.GeneralClientCapabilities(position_encodings=encodings)
    if experimental is not None:
        capabilities.experimental = experimental
    client.root = root
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=options,
        )
    )
    encoding = result.capabilities.position_encoding or "utf-16"
    client.encoding = str(getattr(encoding, "value", encoding))
    return result


async def wait_for(predicate: Any, what: str, timeout_s: float = 30.0) -> None:
    """Poll until `predicate()` is true (a generous deadline against hangs, not a timing check)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


def real_server(env: dict[str, str] | None = None) -> Any:
    """pytest-lsp's config for the real `lsp-agent serve` and this test editor."""
    from pytest_lsp import ClientServerConfig

    return ClientServerConfig(
        server_command=REAL_SERVER, client_factory=make_editor_client, server_env=env or SERVER_ENV
    )


async def scripted_session(
    client: EditorClient, root: Path, spec: str, model: Any, **settings: str
) -> AsyncIterator[None]:
    """An editor session on `root` whose model is the scripted endpoint `model` (plus
    `settings`), for a `pytest_lsp.fixture` to `yield from`... as `async for`."""
    options = {"modelId": "openai/scripted", "modelApiBase": model.openai_base, **settings}
    await start_editor(client, root, spec, options={"lspAgent": options})
    client.preset = spec
    yield
    await client.shutdown_session()
