"""Code mode through the real language server over stdio, on the real Docker engine: the
model is a scripted OpenAI-compatible endpoint on 127.0.0.1 whose replies are code. A first
step tries to write app.py directly (it reaches only the container); then one code step
reads app.py, proposes a patch made from what it read and applies it; the editor
approves and writes the edit. The requests show code mode's prompt (tools as functions, no
tool schemas) and the observation the code printed."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types

from lsp_agent.testing import ScriptedOpenAIServer
from tests.e2e.code_mode import code_turn
from tests.lsp.conftest import APP, job_end
from tests.lsp.editor import (
    CLIENTS,
    SERVER_ENV,
    EditorClient,
    real_server,
    scripted_session,
)

pytestmark = pytest.mark.docker

MARKER = f"/tmp/lsp-agent-code-editor-{uuid.uuid4().hex}"
TURNS = [
    code_turn(
        f"""
import os
open("app.py", "w").write("pwned")  # the container's /tmp, not the workspace
os.system("touch {MARKER}")
print("wrote", os.path.abspath("app.py"))
""",
        "Try to write the file directly.",
    ),
    code_turn(
        """
source = read_file(path="app.py")
old = [line.strip() for line in source.splitlines() if "return a - b" in line][0]
patch = propose_patch(path="app.py", old=old, new=old.replace("a - b", "a + b"))
print(apply_patch(patch_id=patch["patch_id"]))
""",
        "Read app.py and fix the line I find.",
    ),
    code_turn('final_answer("add() now adds, in one code step.")'),
]
CODE_ENV = {**SERVER_ENV, "AGENT_TYPE": "code", "SANDBOX_BACKEND": "docker"}


@pytest.fixture
def workspace(tmp_path: Path, sandbox_image: str) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP)
    return root


@pytest.fixture
def model() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(TURNS) as server:
        yield server


@pytest_lsp.fixture(config=real_server(CODE_ENV), params=CLIENTS)
async def code_editor(
    lsp_client: EditorClient, request: pytest.FixtureRequest, workspace: Path, model: Any
) -> AsyncIterator[None]:
    async for _ in scripted_session(lsp_client, workspace, request.param, model):
        yield


async def test_a_code_step_reads_patches_and_applies_in_the_editor(
    code_editor: EditorClient, workspace: Path, model: ScriptedOpenAIServer
) -> None:
    started = await code_editor.run(task="fix add", uri=code_editor.uri("app.py"))
    end = await job_end(code_editor, started["jobId"])
    assert end.type == types.MessageType.Info, end.message
    assert "add() now adds, in one code step." in end.message
    # The direct write reached only the container; the edit came through the tools.
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert not Path(MARKER).exists()
    first, second = model.chat_requests[0], model.chat_requests[2]
    assert "wrote /tmp/app.py" in json.dumps(model.chat_requests[1]["messages"])
    assert "tools" not in first, "code mode sends no tool schemas"
    system = str(first["messages"][0]["content"])
    assert "propose_patch(path, old, new)" in system and "```python" in system, system
    assert "applied: p1" in json.dumps(second["messages"]), json.dumps(second["messages"])
    progress = code_editor.progress_reports[started["progressToken"]]
    shown = json.dumps([getattr(p, "message", "") for p in progress])
    assert "read_file, propose_patch, apply_patch" in shown, shown
