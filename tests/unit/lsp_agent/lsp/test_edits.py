"""`lsp_agent.lsp.edits`: patches as workspace edits, positions in every encoding."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from lsp_agent.lsp.edits import (
    EditError,
    EditOptions,
    LineIndex,
    diff_to_workspace_edit,
    edited_uris,
    hunk_edits,
    units,
    workspace_edit,
)
from tests.lsp.editor import apply_text_edits
from tools.patches.model import FilePatch, PatchResult
from tools.workspace import DiskWorkspace

ENCODINGS = ["utf-16", "utf-8", "utf-32"]
ROOT = Path("/work/ws")


def roundtrip(before: str, after: str, encoding: str) -> str:
    edits = [e for hunk in hunk_edits(before, after, encoding) for e in hunk.edits]
    return apply_text_edits(before, list(edits), encoding)


@pytest.mark.parametrize(
    ("text", "utf16", "utf8", "utf32"),
    [("abc", 3, 3, 3), ("é", 1, 2, 1), ("中文", 2, 6, 2), ("😀", 2, 4, 1), ("a😀é中", 5, 10, 4)],
)
def test_units(text: str, utf16: int, utf8: int, utf32: int) -> None:
    assert [units(text, e) for e in ENCODINGS] == [utf16, utf8, utf32]


def test_line_index_uses_lsp_line_breaks() -> None:
    index = LineIndex("a\r\nb\rc\nd😀x", "utf-16")
    assert index.position(3) == types.Position(1, 0)  # after \r\n
    assert index.position(5) == types.Position(2, 0)  # after a lone \r
    assert index.position(len("a\r\nb\rc\nd😀")) == types.Position(3, 3)
    with pytest.raises(ValueError):
        index.position(100)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_minimal_edit_after_non_ascii(encoding: str) -> None:
    before = 's = "Crème 中文 😀 old"\n'
    after = 's = "Crème 中文 😀 new"\n'
    ((rng, text),) = hunk_edits(before, after, encoding)[0].edits
    column = {"utf-16": 17, "utf-8": 24, "utf-32": 16}[encoding]
    assert (rng.start.line, rng.start.character, rng.end.character) == (0, column, column + 3)
    assert text == "new"


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("one\r\ntwo\r\nthree", "one\r\n2\r\nthree\r\n"),  # CRLF, missing final newline
        ("x\ry\nz\n", "x\rY\nz\n"),  # a lone CR stays inside the tool's line
        ("", "new file\n"),
        ("gone\n", ""),
        ("same\n", "same\n"),
        ("tail", "tail\n"),
        ("a\r\n", "a\n"),
        ("a\n", "a\r\n"),
        ("😀\n" * 3, "😀\n😀😀\n😀\n"),
    ],
)
def test_roundtrip_cases(before: str, after: str, encoding: str) -> None:
    assert roundtrip(before, after, encoding) == after


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_roundtrip_random(encoding: str) -> None:
    rng = random.Random(encoding)
    alphabet = ["a", "b", " ", "é", "中", "😀", "\n", "\r\n", "\r", "x\n"]
    for _ in range(400):
        before = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        after = list(before)
        for _ in range(rng.randrange(1, 5)):
            spot = rng.randrange(0, len(after) + 1)
            after[spot : spot + rng.randrange(0, 3)] = [rng.choice(alphabet)]
        target = "".join(after)
        assert roundtrip(before, target, encoding) == target, (before, target)


def test_one_hunk_per_distant_change() -> None:
    before = "".join(f"line {i}\n" for i in range(40))
    after = before.replace("line 3\n", "LINE 3\n").replace("line 30\n", "LINE 30\n")
    hunks = hunk_edits(before, after)
    assert [h.header for h in hunks] == ["@@ -1,7 +1,7 @@", "@@ -28,7 +28,7 @@"]
    assert FilePatch("f", "f", before, after).hunks[1].header == hunks[1].header


def patch(*files: FilePatch) -> PatchResult:
    return PatchResult(files=tuple(files))


def test_versioned_document_changes_with_annotations() -> None:
    options = EditOptions(change_annotations=True)
    before = "".join(f"n{i}\n" for i in range(30))
    after = before.replace("n2\n", "two\n").replace("n25\n", "twenty-five\n")
    edit = workspace_edit(
        patch(FilePatch("src/m.py", "src/m.py", before, after, base_version=7)), ROOT, options
    )
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == "file:///work/ws/src/m.py"
    assert change.text_document.version == 7
    annotations = edit.change_annotations or {}
    assert list(annotations) == ["src/m.py#1", "src/m.py#2"]
    assert annotations["src/m.py#1"].label == "src/m.py @@ -1,6 +1,6 @@"
    assert all(a.needs_confirmation for a in annotations.values())
    assert [
        e.annotation_id for e in change.edits if isinstance(e, types.AnnotatedTextEdit)
    ] == list(annotations)


def test_versions_override_and_plain_changes() -> None:
    result = patch(FilePatch("a.txt", "a.txt", "x\n", "y\n", base_version=3))
    edit = workspace_edit(result, ROOT, EditOptions(), versions={"a.txt": 9})
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 9
    plain = workspace_edit(
        result, ROOT, EditOptions(document_changes=False, change_annotations=True)
    )
    assert plain.document_changes is None and plain.change_annotations is None
    assert list(plain.changes or {}) == ["file:///work/ws/a.txt"]


def test_file_operations() -> None:
    result = patch(
        FilePatch("new.py", None, None, "print(1)\n"),
        FilePatch("old.py", "old.py", "bye\n", None),
        FilePatch("b.py", "a.py", "keep\n", "kept\n"),
    )
    edit = workspace_edit(result, ROOT, EditOptions(change_annotations=True))
    kinds = [type(c).__name__ for c in edit.document_changes or []]
    assert kinds == [
        "CreateFile",
        "TextDocumentEdit",
        "DeleteFile",
        "RenameFile",
        "TextDocumentEdit",
    ]
    create, _insert, delete, rename, fix = edit.document_changes or []
    assert isinstance(delete, types.DeleteFile) and delete.uri.endswith("/old.py")
    assert isinstance(create, types.CreateFile) and create.options and not create.options.overwrite
    assert isinstance(rename, types.RenameFile)
    assert (rename.old_uri, rename.new_uri) == ("file:///work/ws/a.py", "file:///work/ws/b.py")
    assert isinstance(fix, types.TextDocumentEdit) and fix.text_document.version is None
    assert create.annotation_id == "new.py#create"
    assert edited_uris(edit) == [
        "file:///work/ws/new.py",
        "file:///work/ws/old.py",
        "file:///work/ws/a.py",
        "file:///work/ws/b.py",
    ]
    with pytest.raises(EditError, match="cannot delete files"):
        workspace_edit(result, ROOT, EditOptions(resource_operations=frozenset({"create"})))


def test_options_from_client_presets() -> None:
    code = EditOptions.from_capabilities(client_capabilities("visual-studio-code"), "utf-16")
    assert code == EditOptions("utf-16", True, frozenset({"create", "rename", "delete"}), True)
    nvim = EditOptions.from_capabilities(
        client_capabilities("neovim@v0.7.0"), types.PositionEncodingKind.Utf8
    )
    assert nvim == EditOptions("utf-8", True, frozenset({"create", "rename", "delete"}), False)
    bare = EditOptions.from_capabilities(types.ClientCapabilities(), None)
    assert bare == EditOptions("utf-16", False, frozenset(), False)


def test_diff_to_workspace_edit(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("one\ntwo\n")
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    edit = diff_to_workspace_edit(diff, DiskWorkspace(tmp_path))
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    ((only),) = change.edits
    assert (only.range.start.line, only.range.start.character, only.new_text) == (1, 0, "2")
