"""`LineDocument`: incremental edits splice lines and give the same text as pygls's own."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_agent.lsp.buffers import OpenBuffers
from lsp_agent.lsp.documents import LineDocument, StrippedLines, lsp_lines

URI = "file:///w/a.py"
TEXT = st.text(alphabet="ab \t\n\ré😀", max_size=60)


def change(sl: int, sc: int, el: int, ec: int, text: str) -> types.TextDocumentContentChangePartial:
    rng = types.Range(types.Position(sl, sc), types.Position(el, ec))
    return types.TextDocumentContentChangePartial(range=rng, text=text)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, list[types.TextDocumentContentChangePartial]]:
    start = draw(TEXT)
    changes = []
    for _ in range(draw(st.integers(1, 6))):
        a = (draw(st.integers(0, 6)), draw(st.integers(0, 8)))
        b = (draw(st.integers(0, 6)), draw(st.integers(0, 8)))
        (sl, sc), (el, ec) = sorted([a, b])
        changes.append(change(sl, sc, el, ec, draw(TEXT)))
    return start, changes


@settings(max_examples=400, deadline=None)
@given(edits())
def test_edits_give_the_same_text_as_pygls(case) -> None:
    start, changes = case
    ours, theirs = LineDocument(URI, start), TextDocument(URI, start)
    for c in changes:
        ours.apply_change(c)
        theirs.apply_change(c)
        assert ours.source == theirs.source
        assert "".join(ours.lines) == ours.source
        assert ours.lines == lsp_lines(ours.source)


def test_an_edit_replaces_only_the_lines_it_touches() -> None:
    doc = LineDocument(URI, "one\ntwo\nthree\n")
    first, third = doc.lines[0], doc.lines[2]
    assert doc.text_snapshot() == "one\ntwo\nthree\n"
    doc.apply_change(change(1, 0, 1, 3, "TWO"))
    assert doc.lines == ["one\n", "TWO\n", "three\n"]
    assert doc.lines[0] is first and doc.lines[2] is third
    assert doc.text_snapshot() == "one\nTWO\nthree\n"


def test_crlf_split_across_an_edit_is_one_line_break() -> None:
    doc = LineDocument(URI, "a\r\nb")
    doc.apply_change(change(0, 1, 1, 0, "\r"))  # replace "\r\n" by "\r"
    assert doc.source == "a\rb" and doc.lines == ["a\r", "b"]
    doc.apply_change(change(1, 0, 1, 0, "\n"))  # "\r" + "\n" meet at the seam
    assert doc.source == "a\r\nb" and doc.lines == ["a\r\n", "b"]


def test_full_change_and_stripped_view() -> None:
    doc = LineDocument(URI, "x")
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="def f():\r\n    pass\n"))
    view = StrippedLines(doc.lines)
    assert len(view) == 2 and view[0] == "def f():" and view[1] == "    pass"
    assert list(view[0:2]) == ["def f():", "    pass"]


def test_buffers_read_the_text_when_a_tool_asks(tmp_path) -> None:
    buffers = OpenBuffers(tmp_path)
    uri = (tmp_path / "a.py").as_uri()
    doc = LineDocument(uri, "a = 1\n")
    buffers.update(uri, doc.text_snapshot, 1)
    assert buffers.get("a.py") == ("a = 1\n", 1)
    doc.apply_change(change(0, 4, 0, 5, "2"))
    buffers.update(uri, doc.text_snapshot, 2)
    assert buffers.documents()["a.py"] == ("a = 2\n", 2)
    assert dict(buffers.documents()) == {"a.py": ("a = 2\n", 2)}


def test_a_deletion_that_joins_a_lone_cr_to_the_next_lines_break() -> None:
    # found by hypothesis in CI: "\r" + "" + "\n" across two seams is one "\r\n" line
    start = "\r\raaaa\n\n"
    ours, theirs = LineDocument(URI, start), TextDocument(URI, start)
    for doc in (ours, theirs):
        doc.apply_change(change(1, 0, 2, 5, ""))
    assert ours.source == theirs.source
    assert ours.lines == lsp_lines(ours.source) == ["\r\n"]
