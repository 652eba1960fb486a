"""`lspAgent.prepare` over stdio: the editor is told what will run and nothing runs unasked."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig

from tests.lsp.editor import (
    FAKE_SERVER,
    SERVER_ENV,
    EditorClient,
    make_editor_client,
    start_editor,
    wait_for,
)

DATA_HOME = Path(tempfile.mkdtemp(prefix="lsp-agent-prepare-test-"))


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=FAKE_SERVER,
        client_factory=make_editor_client,
        server_env={**SERVER_ENV, "XDG_DATA_HOME": str(DATA_HOME)},
    ),
)
async def editor(lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    # Declared dependencies with nothing to download: Prepare needs no network or Docker.
    (root / "pyproject.toml").write_text(f'[project]\nname = "w{tmp_path.name[-6:]}"\n')
    (root / "requirements-dev.txt").write_text("--index-url http://127.0.0.1:9/simple\n")
    lsp_client.init_result = await start_editor(lsp_client, root, "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


async def test_cancel_downloads_nothing_and_prepare_makes_the_env_ready(
    editor: EditorClient,
) -> None:
    assert editor.root is not None
    status = await editor.command("lspAgent.status")
    assert status["projectEnv"].startswith("python: not prepared")

    editor.answers = ["Cancel"]
    assert await editor.command("lspAgent.prepare") == {"status": "asking"}
    await wait_for(lambda: any("cancelled" in m.message for m in editor.messages), "cancel")
    question = editor.message_requests[-1]
    assert "prepare the project environment" in question.message
    assert "ignored:      requirements-dev.txt: --index-url" in question.message
    assert [action.title for action in question.actions or []] == ["Prepare", "Cancel"]
    assert not any((DATA_HOME / "lsp-agent" / "envs").glob("*/.lsp-agent-env.json"))

    editor.answers = ["Prepare"]
    assert await editor.command("lspAgent.prepare") == {"status": "asking"}
    await wait_for(lambda: any("env ready" in m.message for m in editor.messages), "ready")
    status = await editor.command("lspAgent.status")
    assert status["projectEnv"].startswith("python: ready")
    again = await editor.command("lspAgent.prepare")
    assert again["status"] == "ready"


async def test_the_node_question_says_what_runs_and_a_foreign_lock_is_refused_unasked(
    editor: EditorClient,
) -> None:
    assert editor.root is not None
    root = Path(editor.root)
    (root / "package.json").write_text('{"name": "w", "dependencies": {"is-number": "^7"}}')
    lock = {
        "lockfileVersion": 3,
        "packages": {"": {"name": "w"}, "node_modules/is-number": {"version": "7.0.0"}},
    }
    (root / "package-lock.json").write_text(json.dumps(lock))
    editor.answers = ["Cancel"]
    assert await editor.command("lspAgent.prepare") == {"status": "asking"}
    await wait_for(lambda: any("cancelled" in m.message for m in editor.messages), "cancel")
    question = editor.message_requests[-1].message
    assert "npm ci --ignore-scripts" in question
    assert "the repository's .npmrc is not read" in question
    assert "`npm rebuild` in a container with no network" in question
    assert not any((DATA_HOME / "lsp-agent" / "envs").glob("node-*"))

    # The lock now sends the download elsewhere: refused before any question.
    lock["packages"]["node_modules/is-number"]["resolved"] = "http://127.0.0.1:9/x.tgz"
    (root / "package-lock.json").write_text(json.dumps(lock))
    (root / "pyproject.toml").unlink()
    (root / "requirements-dev.txt").unlink()
    asked = len(editor.message_requests)
    refused = await editor.command("lspAgent.prepare")
    assert refused["status"] == "refused"
    assert "http://127.0.0.1:9/x.tgz" in refused["detail"]
    assert len(editor.message_requests) == asked
    status = await editor.command("lspAgent.status")
    assert status["projectEnv"].startswith("node: cannot prepare (refused")


@pytest.fixture(autouse=True, scope="module")
def _cleanup():
    yield
    import shutil

    shutil.rmtree(DATA_HOME, ignore_errors=True)
