"""`lspAgent.prepare`: the editor's consent step for `lsp-agent sandbox prepare`.

The command answers at once. When the workspace declares Python dependencies that are
not prepared, the editor shows a notification saying what will run (the requirements,
what was ignored, where wheels come from and go) with Prepare / Cancel. Only Prepare
starts the work (sandbox/project_env.py), off the event loop; the end is shown as a
message. Nothing is downloaded without that answer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_agent.lsp.editor_client import EditorClient, show_message

log = logging.getLogger(__name__)

PREPARE = "Prepare"
CANCEL = "Cancel"

Preparer = Callable[[Any], Path]  # a PreparePlan -> the ready environment's path


class PrepareFlow:
    """At most one prepare at a time per session."""

    def __init__(self, client: EditorClient, preparer: Preparer) -> None:
        self.client = client
        self.preparer = preparer
        self._busy = threading.Lock()

    def start(self, root: Path | None) -> dict[str, Any]:
        from sandbox.project_env import plan

        if root is None:
            return {"status": "none", "detail": "no workspace folder"}
        prepared = plan(root)
        if prepared is None:
            return {"status": "none", "detail": "no declared Python dependencies"}
        if (prepared.target / ".lsp-agent-env.json").is_file():
            return {"status": "ready", "path": str(prepared.target)}
        if not self._busy.acquire(blocking=False):
            return {"status": "running"}
        lines = "\n".join(prepared.describe())
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=f"lsp-agent: prepare the project environment for patch checks?\n{lines}",
            actions=[types.MessageActionItem(title=PREPARE), types.MessageActionItem(title=CANCEL)],
        )
        try:
            future = self.client.request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        except Exception:
            self._busy.release()
            raise
        future.add_done_callback(lambda answered: self._answered(prepared, answered))
        return {"status": "asking"}

    def _answered(self, prepared: Any, future: Future[Any]) -> None:
        answer = None if future.cancelled() or future.exception() else future.result()
        if getattr(answer, "title", None) != PREPARE:
            self._busy.release()
            show_message(self.client, types.MessageType.Info, "lsp-agent: prepare cancelled")
            return
        threading.Thread(
            target=self._prepare, args=(prepared,), name="lsp-agent-prepare", daemon=True
        ).start()

    def _prepare(self, prepared: Any) -> None:
        try:
            path = self.preparer(prepared)
        except Exception as exc:  # PrepareError says what to do; anything else is logged
            log.warning("prepare failed: %s", exc)
            show_message(self.client, types.MessageType.Error, f"lsp-agent: prepare failed: {exc}")
        else:
            show_message(
                self.client, types.MessageType.Info, f"lsp-agent: project env ready: {path}"
            )
        finally:
            self._busy.release()
