"""The demo's headless editor applies workspace edits the way an editor does."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_agent.demo.editor import DemoEditor, apply_text_edits, offset_at


def edit(line: int, start: int, end: int, text: str) -> types.TextEdit:
    return types.TextEdit(
        range=types.Range(types.Position(line, start), types.Position(line, end)), new_text=text
    )


def test_positions_count_utf16_code_units() -> None:
    text = "a😀b\nx = 1\r\ny"
    assert offset_at(text, types.Position(0, 3)) == 2  # the emoji is two UTF-16 units
    assert offset_at(text, types.Position(1, 5)) == len("a😀b\nx = 1")
    assert offset_at(text, types.Position(2, 0)) == text.index("y")
    assert offset_at(text, types.Position(9, 0)) == len(text)


def test_edits_apply_from_the_end_so_offsets_hold() -> None:
    text = "return sum(values) / (len(values) + 1)\n"
    out = apply_text_edits(text, [edit(0, 21, 38, "len(values)"), edit(0, 0, 6, "yield")])
    assert out == "yield sum(values) / len(values)\n"


def test_a_versioned_edit_is_refused_when_the_buffer_moved(tmp_path: Path) -> None:
    path = tmp_path / "calc.py"
    path.write_text("a = 1\n")
    editor = DemoEditor(lambda line: None)
    uri = path.resolve().as_uri()
    editor.documents[uri] = ("a = 1\n", 3)
    change = types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=2),
        edits=[edit(0, 4, 5, "2")],
    )
    result = editor.apply_edit(types.WorkspaceEdit(document_changes=[change]))
    assert result.applied is False and path.read_text() == "a = 1\n"


def test_approval_questions_get_apply_for_patches_and_reject_for_commands() -> None:
    shown: list[str] = []
    editor = DemoEditor(shown.append)

    def ask(*titles: str) -> str:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message="lsp-agent (a1): question?",
            actions=[types.MessageActionItem(title=t) for t in titles],
        )
        return editor.answer(params).title

    assert ask("Apply", "Show diff", "Reject") == "Apply"
    assert ask("Run", "Reject") == "Reject"
    assert len(editor.questions) == 2 and shown[0].endswith("-> Apply")
