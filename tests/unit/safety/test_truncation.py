"""Table tests for output truncation (safety.truncation)."""

from __future__ import annotations

import pytest

from safety.truncation import list_truncation_note, truncate_list, truncate_output


def lines(n: int, width: int = 10) -> str:
    return "".join(f"{i:0{width - 1}d}\n" for i in range(1, n + 1))


@pytest.mark.parametrize(
    ("text", "max_chars", "max_lines"),
    [
        ("", 3000, 150),
        ("short", 3000, 150),
        (lines(150), 3000, 150),
        ("x" * 3000, 3000, 150),
        (lines(5), 50, 5),
    ],
)
def test_not_truncated(text: str, max_chars: int, max_lines: int) -> None:
    assert truncate_output(text, max_chars, max_lines) == (text, False)


def test_defaults_match_settings() -> None:
    out, cut = truncate_output(lines(151))
    assert cut and "1 more lines" in out
    out, cut = truncate_output("y" * 3001)
    assert cut


@pytest.mark.parametrize(
    ("n_lines", "max_chars", "max_lines", "shown", "removed"),
    [
        (200, 100_000, 150, 150, 50),
        (400, 100_000, 100, 100, 300),
        (100, 95, 150, 9, 91),
        (10, 30, 150, 3, 7),
    ],
)
def test_truncates_by_lines_and_chars(
    n_lines: int, max_chars: int, max_lines: int, shown: int, removed: int
) -> None:
    text = lines(n_lines)
    out, cut = truncate_output(text, max_chars, max_lines)
    assert cut
    body, note = out.rsplit("\n[", 1)
    assert body.splitlines() == text.splitlines()[:shown]
    assert f"{removed} more lines" in note
    assert len(body) <= max_chars


def test_note_with_path_gives_exact_read_file_call() -> None:
    out, cut = truncate_output(lines(400), max_lines=150, path="src/big.py")
    assert cut
    assert out.endswith('To see more: read_file(path="src/big.py", start_line=151, end_line=300)]')


def test_note_continues_from_first_line() -> None:
    out, _ = truncate_output(lines(300), max_lines=150, path="a.py", first_line=201)
    assert "start_line=351, end_line=500" in out


def test_note_without_path_suggests_narrowing() -> None:
    out, _ = truncate_output(lines(300), max_lines=10)
    assert "290 more lines" in out and "Narrow the output" in out
    assert "read_file" not in out


def test_single_huge_line_is_cut_by_characters() -> None:
    text = "z" * 10_000
    out, cut = truncate_output(text, max_chars=100, path="min.js")
    assert cut
    assert out.startswith("z" * 100 + "\n[")
    assert "very long" in out and 'read_file_snippet(path="min.js"' in out
    assert "9900 characters" in out


def test_counts_characters_removed() -> None:
    text = lines(20)
    out, _ = truncate_output(text, max_chars=10_000, max_lines=5)
    assert f"({len(text) - 50} characters)" in out


def test_bad_limits_raise() -> None:
    with pytest.raises(ValueError):
        truncate_output("x", max_chars=0)
    with pytest.raises(ValueError):
        truncate_list([1], max_items=-1)


@pytest.mark.parametrize(
    ("items", "max_items", "kept", "cut"),
    [
        ([], 100, [], False),
        (list(range(100)), 100, list(range(100)), False),
        (list(range(101)), 100, list(range(100)), True),
        (["a", "b", "c"], 2, ["a", "b"], True),
        (("x", "y"), 5, ["x", "y"], False),
        (list(range(5)), 0, [], True),
    ],
)
def test_truncate_list(items, max_items: int, kept: list[object], cut: bool) -> None:
    assert truncate_list(items, max_items) == (kept, cut)


def test_truncate_list_default_is_100() -> None:
    kept, cut = truncate_list(list(range(250)))
    assert len(kept) == 100 and cut


def test_list_note() -> None:
    note = list_truncation_note(250, 100, what="files")
    assert "showing 100 of 250 files" in note and "150 not shown" in note
