"""`lspAgent.undo {jobId?}`: one workspace edit puts back what a job wrote, and only that."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import APP, edit_patch, job_end, use_script
from tests.lsp.editor import EditorClient

NEW_FILE = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n+written by the agent\n+line 2\n"


def two_file_job() -> list[dict[str, object]]:
    return [
        {"tool": "propose_patch", "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
        {"tool": "propose_patch_unified", "arguments": {"diff": NEW_FILE}},
        {"tool": "apply_patch", "arguments": {"patch_id": "p2"}},
        {"final_answer": "fixed add and wrote notes"},
    ]


async def run_job(editor: EditorClient, turns: list[dict[str, object]]) -> int:
    use_script(editor, turns)
    started = await editor.run(task="fix add")
    await job_end(editor, started["jobId"])
    return int(started["jobId"])


async def test_undo_restores_every_file_of_the_last_job_in_one_edit(
    editor: EditorClient, workspace: Path
) -> None:
    job = await run_job(editor, two_file_job())
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert (workspace / "notes.txt").exists()
    status = await editor.command("lspAgent.status")
    assert status["lastJob"]["changedFiles"] == ["app.py", "notes.txt"]
    # the user keeps working in the file, away from the job's lines
    uri = editor.open("app.py")
    editor.type_text(uri, types.Range(types.Position(0, 0), types.Position(0, 0)), "# mine\n")
    sent_before = len(editor.edits)

    result = await editor.command("lspAgent.undo")

    assert result["status"] == "applied" and result["jobId"] == job
    assert sorted(result["restored"]) == ["app.py", "notes.txt"]
    assert result["changedSince"] == []
    assert len(editor.edits) == sent_before + 1  # one workspace/applyEdit
    undo = editor.edits[-1]
    assert undo.label == f"lsp-agent undo of job {job}: app.py, notes.txt"
    assert undo.edit.change_annotations is None  # no per-hunk confirmation for an undo
    assert editor.documents[uri][0] == "# mine\n" + APP  # the user's line stays
    assert (workspace / "app.py").read_text() == "# mine\n" + APP
    assert not (workspace / "notes.txt").exists()
    assert any(f"undid job {job}" in m.message for m in editor.messages)
    assert (await editor.command("lspAgent.status"))["lastJob"]["undone"] is True
    again = await editor.command("lspAgent.undo", {"jobId": job})
    assert again["status"] == "nothing" and "undone already" in again["message"]


async def test_files_changed_since_are_named_and_left_alone(
    editor: EditorClient, workspace: Path
) -> None:
    job = await run_job(editor, two_file_job())
    uri = editor.open("app.py")
    line = APP.splitlines().index("    return a - b")
    rng = types.Range(types.Position(line, 11), types.Position(line, 16))
    editor.type_text(uri, rng, "b + a")  # the user rewrote the job's line
    users_text = editor.documents[uri][0]

    result = await editor.command("lspAgent.undo", {"jobId": job})

    assert result["status"] == "applied" and result["restored"] == ["notes.txt"]
    assert result["changedSince"] == [
        {"path": "app.py", "reason": "the lines the job wrote were edited since"}
    ]
    assert editor.documents[uri][0] == users_text
    assert not (workspace / "notes.txt").exists()


async def test_nothing_to_undo_is_said_and_nothing_is_sent(
    editor: EditorClient, workspace: Path
) -> None:
    for no_argument in ((), ({},), ([],)):  # Lua clients send an empty table as []
        with pytest.raises(JsonRpcException, match="no job to undo yet"):
            await editor.command("lspAgent.undo", *no_argument)
    job = await run_job(editor, [{"final_answer": "app.py adds nothing"}])
    result = await editor.command("lspAgent.undo", {"jobId": job})
    assert result["status"] == "nothing" and "changed no file" in result["message"]
    assert editor.edits == []
    with pytest.raises(JsonRpcException, match="no job 99"):
        await editor.command("lspAgent.undo", {"jobId": 99})
    with pytest.raises(JsonRpcException, match=r"lspAgent.undo takes one object argument"):
        await editor.command("lspAgent.undo", {"jobId": "first"})


async def test_an_undo_the_user_declines_changes_nothing(
    editor: EditorClient, workspace: Path
) -> None:
    await run_job(editor, edit_patch("app.py", "return a - b", "return a + b"))
    editor.apply_mode = "decline"
    result = await editor.command("lspAgent.undo")
    assert result["status"] == "rejected"
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert (await editor.command("lspAgent.status"))["lastJob"]["undone"] is False
