"""The ACP methods lsp-agent answers: `initialize`, `session/new`, `session/prompt` and
`session/cancel` (protocol version 1; the SDK routes them and answers anything else with
`Method not found`).

Capabilities are declared as they are: no `session/load`, text and embedded-context
prompts only (an embedded file shown as `read_file` would: `embedded_context`), MCP servers
over stdio only (offered untrusted: tools/mcp, lsp_agent/acp/session.py).
A version-2 front end would reuse `AcpSession` and the host pieces; only this module and
`files` (v2 drops the client file-system methods) speak version-1 specifics.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
)

from lsp_agent import __version__
from lsp_agent.acp.client_calls import ClientCalls, ClientConnection, FileAccess
from lsp_agent.acp.session import JOB_CLIENT, AcpSession, JobRunner, PromptBusy, load_runtime
from lsp_agent.agent.preflight import preflight
from safety.approvals import ApprovalStore
from safety.secret_redaction import contains_private_key, redact_secrets
from safety.sensitive import DEFAULT_SENSITIVE

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1


def prompt_text(blocks: list[Any]) -> str:
    """The user's prompt as task text: text blocks, embedded files, linked resources."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind == "resource":
            parts.append(embedded_context(block.resource))
        elif kind == "resource_link":
            parts.append(f"(see {block.uri})")
    return "\n\n".join(part for part in parts if part.strip())


def embedded_context(resource: Any) -> str:
    """An embedded file as the model may see it: a sensitive file (by name, or holding a
    private key) is not shown, and secrets in the rest are redacted, as `read_file` would."""
    text = getattr(resource, "text", None)
    if text is None:
        return ""
    uri = str(resource.uri)
    path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
    if DEFAULT_SENSITIVE.match(path) is not None or contains_private_key(text):
        return f"(Context from {uri} is not shown: it is a sensitive file.)"
    return f"Context from {uri}:\n{redact_secrets(text)}"


def _mcp_entry(server: Any) -> dict[str, Any]:
    dumped = server.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dict(dumped) if isinstance(dumped, dict) else {"server": dumped}


class LspAgentAcp:
    """The agent side of one ACP connection."""

    def __init__(self, runner: JobRunner | None = None) -> None:
        self.runner = runner
        self.connection: ClientConnection | None = None
        self.files = FileAccess()
        self.sessions: dict[str, AcpSession] = {}
        self.store = ApprovalStore()

    def on_connect(self, conn: Any) -> None:
        self.connection = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any | None = None,
        client_info: Any | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.files = FileAccess(
            read=bool(getattr(fs, "read_text_file", False)),
            write=bool(getattr(fs, "write_text_file", False)),
        )
        name = getattr(client_info, "name", None) or "an ACP client"
        log.info(
            "acp: initialize from %s (protocol %s; fs read=%s write=%s)",
            name,
            protocol_version,
            self.files.read,
            self.files.write,
        )
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=False, sse=False),
            ),
            auth_methods=[],
            agent_info=Implementation(name="lsp-agent", title="lsp-agent", version=__version__),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise RequestError.invalid_params(
                {"details": f"cwd must be an absolute path to a directory: {cwd}"}
            )
        root = root.resolve()
        prepared = await asyncio.to_thread(preflight, root, client=JOB_CLIENT)
        for notice in prepared.notices:
            log.warning("acp: %s", notice)
        settings = prepared.settings
        servers = [_mcp_entry(server) for server in mcp_servers or []]
        if servers:
            names = ", ".join(str(s.get("name", "?")) for s in servers)
            log.info(
                "acp: %d MCP server(s) from the client recorded (%s); their tools are offered "
                "like MCP_CONFIG entries without trust (each call asks first)",
                len(servers),
                names,
            )
        session = AcpSession(
            id=f"sess_{uuid.uuid4().hex[:16]}",
            root=root,
            settings=settings,
            store=self.store,
            notices=prepared.notices,
            mcp_servers=servers,
        )
        self.sessions[session.id] = session
        log.info("acp: session %s in %s with %s", session.id, root, settings.model_id)
        return NewSessionResponse(session_id=session.id)

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"details": f"no session {session_id}"})
        return session

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if self.connection is None:
            raise RequestError.internal_error({"details": "no client connection"})
        text = prompt_text(prompt)
        if not text.strip():
            raise RequestError.invalid_params({"details": "the prompt has no text"})
        try:
            session.begin()
        except PromptBusy as exc:
            raise RequestError.invalid_request({"details": str(exc)}) from None
        client = ClientCalls(self.connection, asyncio.get_running_loop(), session.id, self.files)
        runner = self.runner or load_runtime()
        try:
            stop = await asyncio.to_thread(session.run, text, client, runner)
        except asyncio.CancelledError:  # the connection closed under a running prompt
            session.cancel.set()
            raise
        finally:
            session.busy = False
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            log.warning("acp: session/cancel for an unknown session %s", session_id)
            return
        log.info("acp: session %s cancelled", session_id)
        session.cancel.set()

    def close(self) -> None:
        """The client went away: stop every running job."""
        for session in self.sessions.values():
            session.cancel.set()
