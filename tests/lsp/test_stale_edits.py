"""A patch is never written over text it was not made for: re-based when the user's edit
leaves it applicable, refused with a hint when not, refused when the document moves while
the edit is in flight. Refused edits change no byte."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import APP, job_end, observation, trace, use_script
from tests.lsp.editor import EditorClient, wait_for


def at(line: int, character: int = 0) -> types.Range:
    return types.Range(types.Position(line, character), types.Position(line, character))


def script_with_pause(flag: Path, applies: int = 1) -> list[dict[str, object]]:
    return [
        {"tool": "propose_patch", "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"}},
        {"tool": "pause", "arguments": {"until": str(flag)}},
        *[{"tool": "apply_patch", "arguments": {"patch_id": "p1"}}] * applies,
        {"final_answer": "finished"},
    ]


async def paused(client: EditorClient, token: str) -> None:
    await wait_for(
        lambda: any(
            "pause" in (getattr(r, "message", "") or "")
            for r in client.progress_reports.get(token, [])
        ),
        "the job to pause",
    )


async def test_user_edit_elsewhere_rebases_then_applies(
    editor: EditorClient, workspace: Path
) -> None:
    uri = editor.open("app.py")
    flag = workspace.parent / "go"
    script = use_script(editor, script_with_pause(flag, applies=2))
    started = await editor.run(task="fix add", uri=uri)
    await paused(editor, started["progressToken"])
    editor.type_text(uri, at(0), "# the user typed this\n")
    await editor.command("lspAgent.status")  # answered after the server took the change
    flag.touch()
    await job_end(editor, started["jobId"])
    first, second = [t["observation"] for t in trace(script) if t.get("tool") == "apply_patch"]
    assert "patch_stale" in first and "re-based on the current text" in first
    assert second.startswith("applied: p1")
    assert (workspace / "app.py").read_text() == "# the user typed this\n" + APP.replace(
        "a - b", "a + b"
    )
    (edit,) = editor.edits  # only the re-based patch was sent, against the new version
    (change,) = edit.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 2


async def test_user_edit_on_the_same_line_refuses_with_a_hint(
    editor: EditorClient, workspace: Path
) -> None:
    uri = editor.open("app.py")
    flag = workspace.parent / "go"
    script = use_script(editor, script_with_pause(flag))
    started = await editor.run(task="fix add", uri=uri)
    await paused(editor, started["progressToken"])
    line = APP.splitlines().index("    return a - b")
    editor.type_text(uri, types.Range(types.Position(line, 13), types.Position(line, 14)), "*")
    await editor.command("lspAgent.status")  # answered after the server took the change
    flag.touch()
    await job_end(editor, started["jobId"])
    refused = observation(script, "apply_patch")
    assert "patch_stale" in refused and "no longer applies" in refused
    assert "read_file" in refused  # the recovery hint
    assert editor.edits == []
    assert (workspace / "app.py").read_bytes() == APP.encode()


async def test_document_moving_while_the_edit_is_in_flight_fails_cleanly(
    editor: EditorClient, workspace: Path
) -> None:
    uri = editor.open("app.py")
    editor.apply_mode = "type-first"  # the user types before the editor applies the edit
    script = use_script(
        editor,
        [
            {
                "tool": "propose_patch",
                "arguments": {"path": "app.py", "old": "a - b", "new": "a + b"},
            },
            {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
            {"final_answer": "tried"},
        ],
    )
    started = await editor.run(task="fix add", uri=uri)
    await job_end(editor, started["jobId"])
    failed = observation(script, "apply_patch")
    assert "stale: app.py changed in the editor while the edit was pending" in failed
    assert (workspace / "app.py").read_bytes() == APP.encode()
    assert editor.documents[uri][0] == "# typed\n" + APP  # the user's text, not the patch


async def test_file_changed_on_disk_is_not_overwritten(
    editor: EditorClient, workspace: Path
) -> None:
    flag = workspace.parent / "go"
    script = use_script(editor, script_with_pause(flag))
    started = await editor.run(task="fix add")
    await paused(editor, started["progressToken"])
    changed = APP.replace("a - b", "a // b")
    (workspace / "app.py").write_text(changed)
    flag.touch()
    await job_end(editor, started["jobId"])
    assert "no longer applies" in observation(script, "apply_patch")
    assert editor.edits == []
    assert (workspace / "app.py").read_text() == changed
