"""`textDocument/inlineCompletion`: the LSP side of `lsp_agent.completion`.

`CompletionHost` keeps the session's `CompletionService`, rebuilt when the completion settings
change (`configure`, called at `initialize` and on `didChangeConfiguration`). The server
advertises `inlineCompletionProvider` only while `COMPLETION_MODEL_ID` is set; turned on later,
it registers the method dynamically where the client allows that (VS Code, Neovim 0.12), and
says "restart the server" where it does not.

`answer` turns one request into an `InlineCompletionList` (one item, `insertText` at the
cursor, or none). Bad input gets a JSON-RPC error that says what is wrong: completions off, a
document that is not open, a line past the end of the document (a character past the end of
its line means the line's end, as LSP says). Documents' last edited lines feed the context
from other files (`touch`, `forget`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.workspace import Workspace

from lsp_agent.completion import (
    CompletionConfig,
    CompletionQuery,
    CompletionService,
    OpenDocument,
    open_backend,
)
from lsp_agent.lsp.buffers import relative_path, uri_to_path
from lsp_agent.lsp.documents import StrippedLines

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed
REGISTRATION_ID = "lsp-agent-inline-completion"
OFF_MESSAGE = (
    "inline completions are off: set COMPLETION_MODEL_ID (e.g. `embedded:qwen2.5-coder-1.5b`, "
    "`openai/<name>` for llama-server, `ollama/<name>`)"
)


class CompletionHost:
    """The completion service of one editor session (see the module doc)."""

    def __init__(self, notify: Callable[[str], None]) -> None:
        self.notify = notify
        self.config = CompletionConfig()
        self.service: CompletionService | None = None
        self.root: Path | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @property
    def enabled(self) -> bool:
        return self.service is not None

    def configure(self, config: CompletionConfig, root: Path | None) -> None:
        """Use `config` from now on (a new service when it changed; the old one is closed)."""
        if config == self.config and root == self.root:
            return
        old, self.service = self.service, None
        self.config, self.root = config, root
        if old is not None:
            self._close_later(old)
        if config.enabled:
            repo = root.name if root is not None else "project"
            self.service = CompletionService(
                config, open_backend(config), repo=repo, notify=self.notify
            )
            log.info("inline completions: %s", self.service.backend.label)

    async def warm_up(self) -> None:
        """Load the embedded model before the first keystroke needs it."""
        service = self.service
        if service is None:
            return
        try:
            await service.backend.warm_up()
        except Exception as exc:  # the first request reports what fails, once
            log.warning("inline completions: warm-up failed: %s", exc)

    def status(self) -> dict[str, object]:
        """`lspAgent.status`'s `completions` part."""
        if self.service is None:
            return {"enabled": False}
        return {"enabled": True, **self.service.status()}

    def touch(self, uri: str, line: int) -> None:
        if self.service is not None:
            self.service.recent.touch(uri, line)

    def forget(self, uri: str) -> None:
        if self.service is not None:
            self.service.recent.forget(uri)

    async def answer(
        self, workspace: Workspace, params: types.InlineCompletionParams
    ) -> types.InlineCompletionList:
        service = self.service
        if service is None:
            raise JsonRpcException(OFF_MESSAGE, code=REQUEST_FAILED)
        query = self._query(workspace, params)
        answer = await service.complete(query)
        if not answer.text:
            return types.InlineCompletionList(items=[])
        at = types.Range(start=params.position, end=params.position)
        return types.InlineCompletionList(
            items=[types.InlineCompletionItem(insert_text=answer.text, range=at)]
        )

    def _query(self, workspace: Workspace, params: types.InlineCompletionParams) -> CompletionQuery:
        uri = params.text_document.uri
        document = workspace.text_documents.get(uri)
        if document is None:
            raise JsonRpcInvalidParams(
                f"{uri} is not open: send textDocument/didOpen before asking for completions"
            )
        lines = StrippedLines(document.lines)
        line = params.position.line
        if line > len(lines) or line < 0:
            raise JsonRpcInvalidParams(f"line {line} is past the end of {uri} ({len(lines)} lines)")
        text = lines[line] if line < len(lines) else ""
        character = column_index(text, params.position.character, workspace.position_encoding)
        automatic = params.context.trigger_kind != types.InlineCompletionTriggerKind.Invoked
        return CompletionQuery(
            uri=uri,
            path=self._path(uri),
            lines=lines,
            line=line,
            character=character,
            automatic=automatic,
            documents=self._documents(workspace),
        )

    def _path(self, uri: str) -> str:
        relative = relative_path(self.root, uri)
        if relative is not None:
            return relative
        path = uri_to_path(uri)
        return path.name if path is not None else uri.rsplit("/", 1)[-1]

    def _documents(self, workspace: Workspace) -> dict[str, OpenDocument]:
        return {
            uri: OpenDocument(relative_path(self.root, uri), StrippedLines(document.lines))
            for uri, document in workspace.text_documents.items()
        }

    def _close_later(self, service: CompletionService) -> None:
        try:
            task = asyncio.get_running_loop().create_task(service.close())
        except RuntimeError:  # no loop (tests, shutdown): nothing is running on it either
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        if self.service is not None:
            await self.service.close()
            self.service = None


def column_index(text: str, units: int, encoding: Any) -> int:
    """The index into `text` of a position `units` code units in (clamped to the line)."""
    name = str(getattr(encoding, "value", encoding) or "utf-16").lower()
    if units <= 0:
        return 0
    if name == "utf-32":
        return min(units, len(text))
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += len(char.encode("utf-8")) if name == "utf-8" else (2 if ord(char) > 0xFFFF else 1)
    return len(text)


def first_changed_line(changes: Sequence[Any]) -> int:
    """The first line a `didChange` touched (0 for a whole-document change)."""
    lines = [c.range.start.line for c in changes if getattr(c, "range", None) is not None]
    return min(lines) if lines else 0


def unregistration() -> types.UnregistrationParams:
    return types.UnregistrationParams(
        unregisterations=[
            types.Unregistration(id=REGISTRATION_ID, method=types.TEXT_DOCUMENT_INLINE_COMPLETION)
        ]
    )


def registration(supported: bool) -> types.RegistrationParams | None:
    """The dynamic registration of `textDocument/inlineCompletion`, when the client allows it."""
    if not supported:
        return None
    return types.RegistrationParams(
        registrations=[
            types.Registration(
                id=REGISTRATION_ID,
                method=types.TEXT_DOCUMENT_INLINE_COMPLETION,
                register_options=types.InlineCompletionRegistrationOptions(document_selector=None),
            )
        ]
    )
