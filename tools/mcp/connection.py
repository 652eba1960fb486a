"""One MCP server process, spoken to over stdio from synchronous tool calls.

The official `mcp` SDK is asyncio; the agent's tools are synchronous and run in the job's
thread. Each connection runs its own event loop in a daemon thread that owns the server
process (`stdio_client`) and the `ClientSession`; tool calls are handed to that loop and
waited on with a timeout. Closing the connection ends the session, and `stdio_client`
ends the process (stdin closed, then terminate, then kill) — no orphans.

The server starts in a fresh empty directory of its own (removed with the connection), with
the user's start-up environment's basic keys and the spec's `env`, and its program resolved
on a PATH without relative entries or entries inside the workspace
(`safety.host_process`): `npx` would otherwise run the workspace's `node_modules` copy of
the package, and `python -m` the workspace's module of that name. It runs under
`tools.mcp.supervisor`: a message larger than 4 MB becomes an error instead of filling
memory, and what the server started (even detached) ends with it.

Why not smolagents' `MCPClient`: it gives no per-call timeout (a hanging server would hang
the job) and its tools would need wrapping anyway; this is the small part of it we need.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import timedelta
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp import types as mcp_types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

from safety import host_process
from tools.mcp.config import McpServerSpec
from tools.mcp.supervisor import supervised

START_TIMEOUT_S = 20.0
CALL_TIMEOUT_S = 30.0
CLOSE_TIMEOUT_S = 10.0
POLL_S = 0.1
STDERR_TAIL_CHARS = 400
REQUEST_TIMEOUT = 408  # the code the SDK's own read timeout uses


class McpServerError(Exception):
    """The server could not start, crashed, hung or refused; the message says which."""


class McpConnection:
    """A started MCP server: its tools, and calls with a timeout."""

    def __init__(
        self,
        spec: McpServerSpec,
        workspace: Path,
        *,
        start_timeout_s: float = START_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        self.spec = spec
        self.workspace = workspace  # never the server's directory; no program is found in it
        self.cwd: Path | None = None  # the server's own empty directory, once started
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.tools: list[mcp_types.Tool] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._ready: Future[None] = Future()
        # closed in close(): the server writes to it for as long as it runs
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._thread = threading.Thread(target=self._run, name=f"mcp-{spec.name}", daemon=True)
        self.dead = ""  # why the server is gone, once it is

    # ---- lifecycle -------------------------------------------------------------------
    def start(self) -> list[mcp_types.Tool]:
        """Start the server and list its tools; `McpServerError` when it cannot."""
        self._thread.start()
        try:
            self._ready.result(timeout=self.start_timeout_s)
        except FutureTimeout:
            tail = self._stderr_tail()
            self.close()
            raise McpServerError(
                f"MCP server {self.spec.name!r} did not answer within "
                f"{self.start_timeout_s:.0f} s{tail}"
            ) from None
        except Exception as exc:
            tail = self._stderr_tail()
            self.close()
            raise McpServerError(
                f"MCP server {self.spec.name!r} did not start: {_reason(exc)}{tail}"
            ) from exc
        return self.tools

    def close(self) -> None:
        """Stop the session and the server process; wait for both."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread.is_alive():
            self._thread.join(CLOSE_TIMEOUT_S)
        self._stderr.close()
        if self.cwd is not None:
            shutil.rmtree(self.cwd, ignore_errors=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # the server died or never started
            self.dead = self.dead or _reason(exc)
            if not self._ready.done():
                self._ready.set_exception(exc)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.cwd = Path(tempfile.mkdtemp(prefix=f"lsp-agent-mcp-{self.spec.name}-"))
        launch = host_process.launch(
            [self.spec.command, *self.spec.args],
            self.cwd,
            env=self.spec.env,
            minimal=True,
            untrusted=[self.workspace],
        )
        argv = supervised(launch.argv, sys.executable)  # bounded messages, no orphans
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], env=launch.env, cwd=launch.cwd
        )
        async with (
            stdio_client(params, errlog=self._stderr) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            self.tools = list(listed.tools)
            self._session = session
            self._ready.set_result(None)
            await self._stop.wait()
        self.dead = self.dead or "stopped"

    # ---- calls -----------------------------------------------------------------------
    def call(
        self, tool: str, arguments: dict[str, Any], cancel: threading.Event | None = None
    ) -> mcp_types.CallToolResult:
        """Call `tool`; `McpServerError` on a dead, hanging or cancelled call."""
        loop, session = self._loop, self._session
        if loop is None or session is None or self.dead or loop.is_closed():
            raise McpServerError(
                f"MCP server {self.spec.name!r} is not running ({self.dead or 'not started'})"
            )
        future = asyncio.run_coroutine_threadsafe(
            session.call_tool(
                tool, arguments, read_timeout_seconds=timedelta(seconds=self.call_timeout_s)
            ),
            loop,
        )
        waited = 0.0
        while True:
            try:
                return future.result(timeout=POLL_S)
            except FutureTimeout:
                waited += POLL_S
                if cancel is not None and cancel.is_set():
                    future.cancel()
                    raise McpServerError("the job was cancelled") from None
                if waited >= self.call_timeout_s + 1:
                    future.cancel()
                    raise McpServerError(
                        f"MCP server {self.spec.name!r} did not answer {tool} within "
                        f"{self.call_timeout_s:.0f} s"
                    ) from None
            except McpError as exc:
                if exc.error.code == mcp_types.CONNECTION_CLOSED:
                    self.dead = "the server process exited"
                    raise McpServerError(
                        f"MCP server {self.spec.name!r} exited while running {tool}"
                        f"{self._stderr_tail()}"
                    ) from exc
                if exc.error.code != REQUEST_TIMEOUT:
                    raise McpServerError(
                        f"MCP server {self.spec.name!r} refused {tool}: {exc.error.message}"
                    ) from exc
                raise McpServerError(
                    f"MCP server {self.spec.name!r} did not answer {tool} within "
                    f"{self.call_timeout_s:.0f} s"
                ) from None
            except Exception as exc:
                if not self._thread.is_alive():
                    self.dead = self.dead or _reason(exc)
                raise McpServerError(
                    f"MCP server {self.spec.name!r} failed on {tool}: {_reason(exc)}"
                    f"{self._stderr_tail()}"
                ) from exc

    def _stderr_tail(self) -> str:
        try:
            self._stderr.flush()
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL_CHARS))
            tail = self._stderr.read().strip()
        except (OSError, ValueError):
            return ""
        return f" (its stderr ends: {tail[-STDERR_TAIL_CHARS:]})" if tail else ""


def _reason(exc: BaseException) -> str:
    """A readable reason, unwrapping anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
