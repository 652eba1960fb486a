"""Shared fixtures: a temporary workspace and an editor client per client preset."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.lsp.editor import (
    CLIENTS,
    FAKE_SERVER,
    SERVER_ENV,
    EditorClient,
    make_editor_client,
    start_editor,
    wait_for,
)

APP = 'def greet(name):\n    return "hello " + name\n\n\ndef add(a, b):\n    return a - b\n'
_scripts = itertools.count(1)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP)
    return root


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=FAKE_SERVER, client_factory=make_editor_client, server_env=SERVER_ENV
    ),
    params=CLIENTS,
)
async def editor(lsp_client: EditorClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.init_result = await start_editor(lsp_client, workspace, request.param)
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=FAKE_SERVER, client_factory=make_editor_client, server_env=SERVER_ENV
    ),
    params=CLIENTS,
)
async def raw_editor(lsp_client: EditorClient, request: pytest.FixtureRequest):
    """A client not yet initialized: the test calls `start_editor` with its own options."""
    lsp_client.preset = request.param
    yield
    await lsp_client.shutdown_session()


def use_script(client: EditorClient, turns: list[dict[str, Any]]) -> Path:
    """Point the server's model at a scripted run of `turns` (outside the workspace)."""
    assert client.root is not None
    path = client.root.parent / f"script-{next(_scripts)}.json"
    path.write_text(json.dumps(turns))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lspAgent": {"modelId": f"scripted:{path}"}})
    )
    return path


def trace(script: Path) -> list[dict[str, Any]]:
    return json.loads(script.with_name(script.name + ".trace.json").read_text())


def observation(script: Path, tool: str) -> str:
    return next(str(t["observation"]) for t in reversed(trace(script)) if t.get("tool") == tool)


async def job_end(client: EditorClient, job_id: int) -> types.ShowMessageParams:
    """The showMessage that ends job `job_id`."""
    marker = f"(job {job_id})"
    await wait_for(
        lambda: any(marker in m.message for m in client.messages), f"job {job_id} to end"
    )
    return next(m for m in client.messages if marker in m.message)


def edit_patch(path: str, old: str, new: str) -> list[dict[str, Any]]:
    """A script: propose a search/replace patch, apply it, answer."""
    return [
        {"tool": "propose_patch", "arguments": {"path": path, "old": old, "new": new}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {"final_answer": "done"},
    ]
