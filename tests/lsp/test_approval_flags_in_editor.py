"""A patch to the editor's own configuration is flagged in what the editor shows: the
`workspace/applyEdit` label (VS Code's refactor preview) or the dialog."""

from __future__ import annotations

from pathlib import Path

from tests.lsp.conftest import edit_patch, job_end, use_script
from tests.lsp.editor import EditorClient


async def test_a_patch_to_vscode_settings_is_flagged(editor: EditorClient, workspace: Path) -> None:
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text('{"a": 1}\n')
    use_script(editor, edit_patch(".vscode/settings.json", '"a": 1', '"a": 2'))
    started = await editor.run(task="change a setting")
    await job_end(editor, started["jobId"])
    shown = [e.label or "" for e in editor.edits] + [m.message for m in editor.message_requests]
    assert any(
        "CHANGES AGENT/EDITOR CONFIGURATION: .vscode/settings.json" in text for text in shown
    ), shown
