"""The language server: thin handlers that take the server first and delegate to modules.

Features: `textDocument/codeAction` (`lsp_agent.lsp.code_actions`), the `lspAgent.*` commands
(`lsp_agent.lsp.commands`, run by `lsp_agent.lsp.job_host`), progress cancel, document sync
into `lsp_agent.lsp.buffers`, and `textDocument/inlineCompletion` while completions are
configured (`lsp_agent.lsp.inline_completion`). Malformed requests are answered by
`lsp_agent.lsp.protocol`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from lsp_agent import __version__
from lsp_agent.agent.job_types import Notice
from lsp_agent.lsp import commands
from lsp_agent.lsp.bridge import LoopBridge
from lsp_agent.lsp.buffers import OpenBuffers
from lsp_agent.lsp.client_setup import JOB_CLIENT, ClientSetup
from lsp_agent.lsp.code_actions import AGENT_KIND, code_actions
from lsp_agent.lsp.commands import CommandError
from lsp_agent.lsp.documents import StrippedLines, use_line_documents
from lsp_agent.lsp.inline_completion import (
    CompletionHost,
    first_changed_line,
    registration,
    unregistration,
)
from lsp_agent.lsp.jobs import JobRefused
from lsp_agent.lsp.project_prepare import PrepareFlow
from lsp_agent.lsp.protocol import AgentProtocol
from lsp_agent.settings import Settings

if TYPE_CHECKING:
    from lsp_agent.lsp.job_host import JobHost, JobRunner

log = logging.getLogger(__name__)


REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed
ERROR_MESSAGE_INTERVAL_S = 60.0
WARM_UP_SWITCH_INTERVAL_S = 0.0005


class LspAgentServer(LanguageServer):
    """pygls server holding the settings, open buffers and jobs of one editor session."""

    def __init__(self, runner: Callable[[], JobRunner] | None = None) -> None:
        super().__init__(name="lsp-agent", version=__version__, protocol_cls=AgentProtocol)
        # Read at `initialize` and on `didChangeConfiguration` (`reload_settings`), only.
        self.settings = Settings()
        self.notices: tuple[Notice, ...] = ()
        self.notices_shown: set[str] = set()
        self.workspace_root: Path | None = None
        self.editor_overrides: dict[str, Any] = {}
        self.bridge = LoopBridge(self)
        self.buffers = OpenBuffers()
        self.setup = ClientSetup()
        self.runner = runner
        self._host: JobHost | None = None
        self._prepare: PrepareFlow | None = None
        self._last_error_shown = 0.0
        self.warm_up_state = "not started"
        self.completions = CompletionHost(notify=self.show_warning)
        self.completion_registered = ""  # "static" (at initialize), "dynamic" or ""
        self.background_tasks: set[asyncio.Future[None]] = set()
        commands.register_argument_types(self.protocol._converter)

    @property
    def host(self) -> JobHost:
        """The jobs of this session (the job machinery is imported on first use)."""
        if self._host is None:
            from lsp_agent.lsp.job_host import JobHost, load_runtime

            host = JobHost(
                self.bridge,
                self.buffers,
                settings=self.settings,
                runner=self.runner or load_runtime,
            )
            host.configure(self.workspace_root, self.setup)
            self._host = host
        return self._host

    @property
    def prepare_flow(self) -> PrepareFlow:
        """`lspAgent.prepare`: consent in the editor, then the project environment."""
        if self._prepare is None:
            self._prepare = PrepareFlow(self.bridge, self._prepare_env)
        return self._prepare

    def _prepare_env(self, prepared: Any) -> list[Path]:
        from sandbox.docker import image_tag
        from sandbox.project_envs import prepare_project

        return prepare_project(prepared, image_tag(self.settings.sandbox_config()))

    def show_warning(self, message: str) -> None:
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"lsp-agent: {message}")
        )

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log every error; show a handler bug to the user at most once a minute."""
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)
        if getattr(source, "__name__", "") != "FeatureNotificationError":
            return
        now = time.monotonic()
        if now - self._last_error_shown >= ERROR_MESSAGE_INTERVAL_S:
            self._last_error_shown = now
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error,
                    message=f"lsp-agent: internal error: {error} (details in the log)",
                )
            )

    def reload_settings(self) -> None:
        """Read the settings (user config, `.env`, the environment, the editor's overrides)
        and the notices about them: the job preflight every front end shares."""
        from lsp_agent.agent.preflight import preflight

        prepared = preflight(
            self.workspace_root, client=JOB_CLIENT, overrides=self.editor_overrides
        )
        self.settings, self.notices = prepared.settings, prepared.notices
        if self._host is not None:
            self._host.settings = self.settings
        self.completions.configure(self.settings.completion_config(), self.workspace_root)

    def report_notices(self) -> None:
        """Tell the editor the preflight's notices: a bad value each time the settings are
        read, an ignored security key or a refused workspace policy rule once per session."""
        for notice in self.notices:
            if notice.kind != "setting":
                if notice.text in self.notices_shown:
                    continue
                self.notices_shown.add(notice.text)
            log.warning("%s", notice)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"lsp-agent: {notice}"
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
    ls.bridge.attach()
    use_line_documents(ls.workspace)
    ls.workspace_root = workspace_root_of(params)
    ls.editor_overrides = editor_overrides(params.initialization_options)
    ls.reload_settings()
    encoding = ls.workspace.position_encoding
    ls.setup = ClientSetup.from_initialize(params, encoding)
    ls.buffers.set_root(ls.workspace_root)
    if ls.completions.enabled:
        _add_inline_completion(ls)
        ls.completion_registered = "static"
    log.info(
        "initialize: root=%s model=%s encoding=%s",
        ls.workspace_root,
        ls.settings.model_id,
        encoding,
    )


def on_initialized(ls: LspAgentServer, params: types.InitializedParams) -> None:
    ls.report_notices()
    _warm_up_completions(ls)
    if ls.runner is None:  # the real runtime; an injected one (tests) needs no warm-up
        ls.warm_up_state = "running"
        threading.Thread(
            target=_warm_up, args=(ls, ls.settings), name="lsp-agent-warm-up", daemon=True
        ).start()


def _warm_up(ls: LspAgentServer, settings: Settings) -> None:
    """Imports, tracing and the model client, done before the first job needs them.

    Meanwhile the interpreter switches threads every 0.5 ms instead of 5 ms, so the event
    loop waits less for the GIL the imports hold: code actions stay quick during warm-up."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(WARM_UP_SWITCH_INTERVAL_S)
    try:
        from lsp_agent.agent.warmup import warm_up

        seconds = warm_up(settings)
    except Exception as exc:  # the first job does the same work and reports what fails
        ls.warm_up_state = "failed"
        log.warning("warm-up failed (the first job will try again): %s", exc)
        return
    finally:
        sys.setswitchinterval(interval)
    ls.warm_up_state = f"done in {seconds:.1f} s"
    log.info("warm-up %s", ls.warm_up_state)


def on_did_change_configuration(
    ls: LspAgentServer, params: types.DidChangeConfigurationParams
) -> None:
    if params.settings:
        ls.editor_overrides = {**ls.editor_overrides, **editor_overrides(params.settings)}
    ls.reload_settings()
    ls.report_notices()
    _register_completions(ls)


def on_shutdown(ls: LspAgentServer, params: Any) -> None:
    if ls._host is not None:
        ls._host.shutdown()
    _in_background(ls, ls.completions.close())


# ---- inline completions ----------------------------------------------------------------------
async def on_inline_completion(
    ls: LspAgentServer, params: types.InlineCompletionParams
) -> types.InlineCompletionList:
    return await ls.completions.answer(ls.workspace, params)


def _add_inline_completion(ls: LspAgentServer) -> None:
    """Register the handler with pygls (once; pygls advertises it if done before `initialize`
    is answered)."""
    if types.TEXT_DOCUMENT_INLINE_COMPLETION not in ls.protocol.fm.features:
        ls.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())(
            on_inline_completion
        )


def _in_background(ls: LspAgentServer, work: Coroutine[Any, Any, None]) -> None:
    task = asyncio.ensure_future(work)
    ls.background_tasks.add(task)
    task.add_done_callback(ls.background_tasks.discard)


def _warm_up_completions(ls: LspAgentServer) -> None:
    if ls.completions.enabled:
        _in_background(ls, ls.completions.warm_up())


def _register_completions(ls: LspAgentServer) -> None:
    """Completions turned on or off by the editor's settings after `initialize`."""
    if ls.completions.enabled and not ls.completion_registered:
        params = registration(ls.setup.inline_completion_registration)
        if params is None:
            ls.show_warning(
                "inline completions were configured after start-up and this editor cannot "
                "add them now: restart the lsp-agent server to use them"
            )
            return
        _add_inline_completion(ls)
        ls.completion_registered = "dynamic"
        ls.client_register_capability(params)
        _warm_up_completions(ls)
    elif not ls.completions.enabled and ls.completion_registered == "dynamic":
        ls.completion_registered = ""
        ls.client_unregister_capability(unregistration())


# ---- documents -------------------------------------------------------------------------------
def _sync(ls: LspAgentServer, uri: str) -> None:
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        read = getattr(document, "text_snapshot", None)
        ls.buffers.update(uri, read or document.source, document.version)


def on_did_open(ls: LspAgentServer, params: types.DidOpenTextDocumentParams) -> None:
    _sync(ls, params.text_document.uri)
    ls.completions.touch(params.text_document.uri, 0)


def on_did_change(ls: LspAgentServer, params: types.DidChangeTextDocumentParams) -> None:
    _sync(ls, params.text_document.uri)
    ls.completions.touch(params.text_document.uri, first_changed_line(params.content_changes))


def on_did_close(ls: LspAgentServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.buffers.remove(params.text_document.uri)
    ls.completions.forget(params.text_document.uri)


# ---- code actions ----------------------------------------------------------------------------
def on_code_action(ls: LspAgentServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    document = ls.workspace.text_documents.get(params.text_document.uri)
    lines = StrippedLines([] if document is None else document.lines)
    return code_actions(params, lines, can_prompt=ls.setup.can_prompt)


# ---- commands --------------------------------------------------------------------------------
def _command(work: Callable[[], Any]) -> Any:
    """Run a command; bad arguments and refusals become JSON-RPC errors."""
    try:
        return work()
    except CommandError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    except JobRefused as exc:
        raise JsonRpcException(str(exc), code=REQUEST_FAILED) from exc


def cmd_run(ls: LspAgentServer, request: commands.RunRequest) -> Any:
    return _command(lambda: ls.host.run(request))


def cmd_cancel(ls: LspAgentServer, request: commands.CancelRequest) -> Any:
    return _command(lambda: ls.host.cancel(request.job_id))


def cmd_approve(ls: LspAgentServer, answer: commands.ApprovalAnswer) -> Any:
    return _command(lambda: ls.host.answer(answer.ident, True))


def cmd_reject(ls: LspAgentServer, answer: commands.RejectAnswer) -> Any:
    return _command(lambda: ls.host.answer(answer.ident, False, answer.reason))


def cmd_status(ls: LspAgentServer, *ignored: object) -> Any:
    """`lspAgent.status` takes no argument; clients that send one are not refused."""
    return _command(
        lambda: {
            **ls.host.status(),
            "warmUp": ls.warm_up_state,
            "completions": ls.completions.status(),
        }
    )


def cmd_prepare(ls: LspAgentServer, *ignored: object) -> Any:
    """`lspAgent.prepare` takes no argument: the workspace's declared dependencies."""
    return _command(lambda: ls.prepare_flow.start(ls.workspace_root))


def on_progress_cancel(ls: LspAgentServer, params: types.WorkDoneProgressCancelParams) -> None:
    if ls._host is not None:
        ls._host.cancel_token(params.token)


def create_server(runner: Callable[[], JobRunner] | None = None) -> LspAgentServer:
    """Build the server and register its features.

    `runner` returns the job function (default: `lsp_agent.agent.runtime.run_job`,
    imported when the first job starts)."""
    server = LspAgentServer(runner)
    server.feature(types.INITIALIZE)(on_initialize)
    server.feature(types.INITIALIZED)(on_initialized)
    server.feature(types.SHUTDOWN)(on_shutdown)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(on_did_change_configuration)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(on_did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(on_did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(on_did_close)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.RefactorRewrite,
                AGENT_KIND,
            ],
            resolve_provider=False,
        ),
    )(on_code_action)
    server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)(on_progress_cancel)
    for name, handler in (
        (commands.RUN, cmd_run),
        (commands.CANCEL, cmd_cancel),
        (commands.APPROVE, cmd_approve),
        (commands.REJECT, cmd_reject),
        (commands.STATUS, cmd_status),
        (commands.PREPARE, cmd_prepare),
    ):
        server.command(name)(handler)
    return server
