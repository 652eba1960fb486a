"""tools/patches/hunk_choice.py: which hunks of a patch an editor kept."""

from __future__ import annotations

from tools.patches import FilePatch, hunks_in

LINES = "".join(f"line {n}\n" for n in range(1, 31))


def edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def test_hunks_in_names_the_hunks_an_editor_kept() -> None:
    after = edit(edit(edit(LINES, "line 2\n", "two\n"), "line 15\n", "fifteen\n"), "line 29\n", "")
    file = FilePatch("a.py", "a.py", LINES, after)
    assert len(file.hunks) == 3
    assert hunks_in(file, after) == (1, 2, 3)
    assert hunks_in(file, LINES) == ()
    assert hunks_in(file, edit(LINES, "line 15\n", "fifteen\n")) == (2,)
    assert hunks_in(file, edit(edit(LINES, "line 2\n", "two\n"), "line 29\n", "")) == (1, 3)
    assert hunks_in(file, edit(LINES, "line 9\n", "typed by the user\n")) is None
