"""The agent reads the editor's buffers (unsaved text, incremental `didChange`), the disk
for files that are not open."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import APP, job_end, observation, use_script
from tests.lsp.editor import EditorClient


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(types.Position(l1, c1), types.Position(l2, c2))


def read(path: str) -> list[dict[str, object]]:
    return [{"tool": "read_file", "arguments": {"path": path}}, {"final_answer": "read"}]


async def agent_reads(client: EditorClient, path: str) -> str:
    script = use_script(client, read(path))
    started = await client.run(task=f"read {path}")
    await job_end(client, started["jobId"])
    return observation(script, "read_file")


async def test_unsaved_incremental_edits_are_what_the_agent_reads(
    editor: EditorClient, workspace: Path
) -> None:
    (workspace / "notes.py").write_text('word = "😀 café"\n')
    uri = editor.open("notes.py")
    # after the emoji (two UTF-16 code units) and "caf", replace "é" with "e!"
    column = 11 if editor.encoding == "utf-16" else 10
    editor.type_text(uri, rng(0, column + 3, 0, column + 4), "e!")
    editor.type_text(uri, rng(1, 0, 1, 0), "extra = 1\n")
    seen = await agent_reads(editor, "notes.py")
    assert 'word = \\"😀 cafe!\\"' in seen or 'word = "😀 cafe!"' in seen, seen
    assert "extra = 1" in seen
    assert (workspace / "notes.py").read_text() == 'word = "😀 café"\n'  # unsaved


async def test_several_changes_in_one_notification(editor: EditorClient, workspace: Path) -> None:
    uri = editor.open("app.py")
    editor.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=rng(0, 4, 0, 9), text="hello"),
                types.TextDocumentContentChangePartial(range=rng(5, 13, 5, 14), text="+"),
            ],
        )
    )
    seen = await agent_reads(editor, "app.py")
    assert "def hello(name)" in seen and "return a + b" in seen
    assert (workspace / "app.py").read_text() == APP


async def test_closed_documents_are_read_from_disk(editor: EditorClient, workspace: Path) -> None:
    uri = editor.open("app.py")
    editor.replace_all(uri, "unsaved = True\n")
    assert "unsaved = True" in await agent_reads(editor, "app.py")
    editor.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    seen = await agent_reads(editor, "app.py")
    assert "unsaved" not in seen and "def greet" in seen


async def test_open_file_outside_the_workspace_is_ignored(
    editor: EditorClient, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("secret = 1\n")
    editor.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=outside.as_uri(), language_id="python", version=1, text="secret = 1\n"
            )
        )
    )
    script = use_script(
        editor,
        [
            {"tool": "list_files", "arguments": {"pattern": "**/*"}},
            {"final_answer": "listed"},
        ],
    )
    started = await editor.run(task="list")
    await job_end(editor, started["jobId"])
    listed = observation(script, "list_files")
    assert "app.py" in listed and "elsewhere" not in listed
    assert json.dumps("secret") not in listed
