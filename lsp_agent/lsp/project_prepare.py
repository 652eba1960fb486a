"""`lspAgent.prepare`: the editor's consent step for `lsp-agent sandbox prepare`.

The command answers at once. When the workspace declares Python or Node dependencies
that are not prepared, the editor shows a notification saying what will run (Python:
the requirements, what was ignored, where wheels come from and go; Node: `npm ci
--ignore-scripts` on this machine with the user's npm configuration, then the packages'
install scripts in a container with no network) with Prepare / Cancel. Only Prepare
starts the work (sandbox/project_envs/envs.py), off the event loop; the end is shown as a
message. Nothing is downloaded without that answer. A Node lock that points outside the
user's registry is refused (`{"status": "refused"}` with the reason) and never fetched.
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

Preparer = Callable[[Any], list[Path]]  # a ProjectPlan -> the ready environments' paths


class PrepareFlow:
    """At most one prepare at a time per session."""

    def __init__(self, client: EditorClient, preparer: Preparer) -> None:
        self.client = client
        self.preparer = preparer
        self._busy = threading.Lock()

    def start(self, root: Path | None) -> dict[str, Any]:
        from sandbox.project_envs import NOTHING_DECLARED, plan_project, ready_mounts

        if root is None:
            return {"status": "none", "detail": "no workspace folder"}
        prepared = plan_project(root)
        if prepared is None:
            return {"status": "none", "detail": NOTHING_DECLARED}
        if prepared.ready:
            if prepared.refusal:
                return {"status": "refused", "detail": prepared.refusal}
            paths = [str(path) for path in ready_mounts(root)]
            return {"status": "ready", "path": paths[0] if paths else "", "paths": paths}
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
            paths = self.preparer(prepared)
        except Exception as exc:  # PrepareError says what to do; anything else is logged
            log.warning("prepare failed: %s", exc)
            show_message(self.client, types.MessageType.Error, f"lsp-agent: prepare failed: {exc}")
        else:
            ready = ", ".join(str(path) for path in paths)
            refused = f"; node refused: {prepared.refusal}" if prepared.refusal else ""
            kind = types.MessageType.Warning if refused else types.MessageType.Info
            show_message(self.client, kind, f"lsp-agent: project env ready: {ready}{refused}")
        finally:
            self._busy.release()
