"""Approved patches reach the files as workspace edits (versioned documentChanges, one
change annotation per hunk with the editor's preview, a dialog otherwise); rejected and
failed edits leave every byte as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.conftest import APP, edit_patch, job_end, observation, use_script
from tests.lsp.editor import EditorClient, start_editor

LONG = "".join(f"line {i}\n" for i in range(1, 41))


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def is_vscode(client: EditorClient) -> bool:
    return client.preset.startswith("visual-studio-code")


async def test_approved_patch_changes_the_file(editor: EditorClient, workspace: Path) -> None:
    script = use_script(editor, edit_patch("app.py", "return a - b", "return a + b"))
    started = await editor.run(task="fix add", uri=editor.uri("app.py"))
    end = await job_end(editor, started["jobId"])
    assert end.type == types.MessageType.Info and "done" in end.message
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")
    assert observation(script, "apply_patch").startswith("applied: p1")
    (edit,) = editor.edits
    assert edit.label == "lsp-agent: app.py"
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version is None  # not open in the editor
    if is_vscode(editor):  # the refactor preview decides; no dialog
        assert editor.message_requests == []
        assert all(isinstance(e, types.AnnotatedTextEdit) for e in change.edits)
    else:
        (question,) = editor.message_requests
        assert [a.title for a in question.actions or []] == ["Apply", "Show diff", "Reject"]
        assert "(a1): Apply p1 to app.py?" in question.message
        assert edit.edit.change_annotations is None
        assert all(not isinstance(e, types.AnnotatedTextEdit) for e in change.edits)


async def test_one_annotation_per_hunk_in_the_preview(
    editor: EditorClient, workspace: Path
) -> None:
    (workspace / "long.txt").write_text(LONG)
    diff = (
        "--- a/long.txt\n+++ b/long.txt\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
        "@@ -30,3 +30,3 @@\n line 30\n-line 31\n+LINE 31\n line 32\n"
    )
    await run_unified(editor, diff, "shout", "ok")
    assert (workspace / "long.txt").read_text() == LONG.replace("line 3\n", "LINE 3\n").replace(
        "line 31\n", "LINE 31\n"
    )
    (edit,) = editor.edits
    if not is_vscode(editor):
        assert edit.edit.change_annotations is None
        return
    annotations = edit.edit.change_annotations or {}
    assert [a.label for a in annotations.values()] == [
        "long.txt @@ -1,6 +1,6 @@",
        "long.txt @@ -28,7 +28,7 @@",
    ]
    assert all(a.needs_confirmation for a in annotations.values())
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert [e.annotation_id for e in change.edits] == list(annotations)
    assert [(e.range.start.line, e.new_text) for e in change.edits] == [(2, "LINE"), (30, "LINE")]


async def test_open_document_edit_names_its_version(editor: EditorClient, workspace: Path) -> None:
    uri = editor.open("app.py")
    editor.type_text(uri, types.Range(types.Position(0, 0), types.Position(0, 0)), "# hi\n")
    use_script(editor, edit_patch("app.py", "return a - b", "return a + b"))
    started = await editor.run(task="fix add", uri=uri)
    await job_end(editor, started["jobId"])
    (edit,) = editor.edits
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == 2
    assert (workspace / "app.py").read_text() == "# hi\n" + APP.replace("a - b", "a + b")


@pytest.mark.parametrize("answer", ["Reject", None])
async def test_rejected_in_the_dialog_changes_no_byte(
    raw_editor: EditorClient, workspace: Path, answer: str | None
) -> None:
    await start_editor(raw_editor, workspace, raw_editor.preset, tweak=no_preview)
    (workspace / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree")  # CRLF, no final newline
    before = snapshot(workspace)
    script = use_script(
        raw_editor,
        [
            {"tool": "propose_patch", "arguments": {"path": "crlf.txt", "old": "two", "new": "2"}},
            {
                "tool": "propose_patch",
                "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"},
            },
            {"tool": "apply_patch", "arguments": {"patch_id": "p2"}},
            {"final_answer": "asked"},
        ],
    )
    raw_editor.answers = [answer]
    started = await raw_editor.run(task="two files")
    await job_end(raw_editor, started["jobId"])
    assert raw_editor.edits == []
    assert snapshot(workspace) == before
    rejected = observation(script, "apply_patch")
    assert "rejected" in rejected
    assert ("rejected in the editor" if answer else "dismissed") in rejected


async def test_declined_preview_or_failed_edit_changes_no_byte(
    editor: EditorClient, workspace: Path
) -> None:
    before = snapshot(workspace)
    editor.apply_mode = "decline"
    script = use_script(editor, edit_patch("app.py", "return a - b", "return a + b"))
    first = await editor.run(task="fix add")
    await job_end(editor, first["jobId"])
    assert snapshot(workspace) == before
    assert observation(script, "apply_patch").startswith(
        "rejected: p1 was not applied: the edit was declined in the editor"
    )
    editor.apply_mode = "fail"
    script = use_script(editor, edit_patch("app.py", "return a - b", "return a + b"))
    second = await editor.run(task="fix add again")
    await job_end(editor, second["jobId"])
    assert snapshot(workspace) == before
    failed = observation(script, "apply_patch")
    assert "failed: p1 was not applied: the editor could not apply it: disk full (test)" in failed


def no_preview(capabilities: types.ClientCapabilities) -> None:
    edit = capabilities.workspace.workspace_edit if capabilities.workspace else None
    if edit is not None:
        edit.change_annotation_support = None


def with_show_document(capabilities: types.ClientCapabilities) -> None:
    no_preview(capabilities)
    capabilities.window = types.WindowClientCapabilities(
        work_done_progress=True, show_document=types.ShowDocumentClientCapabilities(support=True)
    )


async def test_show_diff_opens_the_patch_then_asks_again(
    raw_editor: EditorClient, workspace: Path
) -> None:
    await start_editor(raw_editor, workspace, raw_editor.preset, tweak=with_show_document)
    use_script(raw_editor, edit_patch("app.py", "return a - b", "return a + b"))
    raw_editor.answers = ["Show diff", "Apply"]
    started = await raw_editor.run(task="fix add")
    await job_end(raw_editor, started["jobId"])
    assert len(raw_editor.message_requests) == 2
    (shown,) = raw_editor.shown_documents
    assert shown.uri.endswith(".diff") and shown.take_focus
    diff = Path(shown.uri.removeprefix("file://")).read_text()
    assert "-    return a - b\n+    return a + b\n" in diff
    assert (workspace / "app.py").read_text() == APP.replace("a - b", "a + b")


async def test_show_diff_without_show_document_logs_it(
    raw_editor: EditorClient, workspace: Path
) -> None:
    def no_show(capabilities: types.ClientCapabilities) -> None:
        no_preview(capabilities)
        capabilities.window = types.WindowClientCapabilities(work_done_progress=True)

    await start_editor(raw_editor, workspace, raw_editor.preset, tweak=no_show)
    use_script(raw_editor, edit_patch("app.py", "return a - b", "return a + b"))
    raw_editor.answers = ["Show diff", "Reject"]
    started = await raw_editor.run(task="fix add")
    await job_end(raw_editor, started["jobId"])
    assert raw_editor.shown_documents == []
    assert any("+    return a + b" in m.message for m in raw_editor.log_messages)
    assert (workspace / "app.py").read_text() == APP


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
async def test_non_ascii_positions(
    raw_editor: EditorClient, workspace: Path, encoding: str
) -> None:
    text = 'title = "Crème brûlée 中文 😀 done"\nsecond = "😀😀 x"\n'
    (workspace / "intl.py").write_text(text)
    result = await start_editor(raw_editor, workspace, raw_editor.preset, encodings=[encoding])
    assert result.capabilities.position_encoding == encoding
    raw_editor.open("intl.py")
    old, new = '😀 done"\nsecond = "😀😀 x', '🎉 finished"\nsecond = "😀😀 y'
    use_script(
        raw_editor,
        [
            {"tool": "propose_patch", "arguments": {"path": "intl.py", "old": old, "new": new}},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "ok"},
        ],
    )
    started = await raw_editor.run(task="celebrate")
    await job_end(raw_editor, started["jobId"])
    assert (workspace / "intl.py").read_text() == text.replace(old, new)
    (edit,) = raw_editor.edits
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    (only,) = change.edits
    start, end = {"utf-16": (25, 16), "utf-8": (32, 20), "utf-32": (25, 14)}[encoding]
    assert (only.range.start.line, only.range.start.character) == (0, start)
    assert (only.range.end.line, only.range.end.character) == (1, end)
    assert only.new_text == '🎉 finished"\nsecond = "😀😀 y'


async def test_create_rename_and_delete_files(editor: EditorClient, workspace: Path) -> None:
    (workspace / "old.txt").write_text("keep me\n")
    (workspace / "gone.txt").write_text("bye\n")
    diff = (
        "diff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+def new():\n+    return 1\n"
        "diff --git a/old.txt b/renamed.txt\nrename from old.txt\nrename to renamed.txt\n"
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    )
    script = await run_unified(editor, diff, "shuffle files", "files moved")
    assert observation(script, "apply_patch").startswith("applied"), trace_of(script)
    assert (workspace / "pkg" / "new.py").read_text() == "def new():\n    return 1\n"
    assert (workspace / "renamed.txt").read_text() == "keep me\n"
    assert not (workspace / "old.txt").exists() and not (workspace / "gone.txt").exists()
    (edit,) = editor.edits
    kinds = [type(c).__name__ for c in edit.edit.document_changes or []]
    assert kinds == ["CreateFile", "TextDocumentEdit", "RenameFile", "DeleteFile"]


async def test_file_operations_need_client_support(
    raw_editor: EditorClient, workspace: Path
) -> None:
    def no_resource_ops(capabilities: types.ClientCapabilities) -> None:
        edit = capabilities.workspace.workspace_edit if capabilities.workspace else None
        assert edit is not None
        edit.resource_operations = None
        edit.document_changes = True

    await start_editor(raw_editor, workspace, raw_editor.preset, tweak=no_resource_ops)
    before = snapshot(workspace)
    new_file = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
    script = await run_unified(raw_editor, new_file, "create", "could not")
    assert snapshot(workspace) == before and raw_editor.edits == []
    assert "cannot create files" in observation(script, "apply_patch")


async def run_unified(editor: EditorClient, diff: str, task: str, answer: str) -> Path:
    """A job `task` whose model proposes `diff` (propose_patch_unified), applies it and
    answers `answer`; its script, once the job has ended."""
    script = use_script(
        editor,
        [
            {"tool": "propose_patch_unified", "arguments": {"diff": diff}},
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": answer},
        ],
    )
    started = await editor.run(task=task)
    await job_end(editor, started["jobId"])
    return script


def trace_of(script: Path) -> str:
    return script.with_name(script.name + ".trace.json").read_text()
