"""The result cache: the same place answers at once, and so does typing what was shown."""

from __future__ import annotations

from lsp_agent.completion.cache import BEFORE_CHARS, CompletionCache, cursor_text

LINES = ["def area(r):", "    return ", "", "def other():", "    pass"]


def test_the_same_place_is_found_again_and_other_places_are_not() -> None:
    cache = CompletionCache()
    cache.put(cursor_text("u", LINES, 1, 11), "3.14 * r * r")
    assert cache.get(cursor_text("u", LINES, 1, 11)) == "3.14 * r * r"
    assert cache.get(cursor_text("u", LINES, 1, 10)) is None
    assert cache.get(cursor_text("other-uri", LINES, 1, 11)) is None


def test_typing_the_start_of_a_completion_gives_its_rest() -> None:
    cache = CompletionCache()
    cache.put(cursor_text("u", LINES, 1, 11), "3.14 * r * r")
    typed = [*LINES]
    typed[1] = "    return 3.1"
    assert cache.get(cursor_text("u", typed, 1, 14)) == "4 * r * r"
    typed[1] = "    return 3.2"  # not what was shown
    assert cache.get(cursor_text("u", typed, 1, 14)) is None
    typed[1] = "    return 3.14 * r * r"  # all of it typed: nothing left to show
    assert cache.get(cursor_text("u", typed, 1, 23)) is None


def test_typing_across_a_line_break_of_a_multi_line_completion() -> None:
    cache = CompletionCache()
    lines = ["def f(xs):", "    "]
    cache.put(cursor_text("u", lines, 1, 4), "total = 0\n    for x in xs:")
    later = ["def f(xs):", "    total = 0", "    for"]
    assert cache.get(cursor_text("u", later, 2, 7)) == " x in xs:"


def test_an_empty_answer_is_remembered_as_such() -> None:
    cache = CompletionCache()
    cache.put(cursor_text("u", LINES, 1, 11), "")
    assert cache.get(cursor_text("u", LINES, 1, 11)) == ""


def test_the_text_compared_is_bounded() -> None:
    lines = ["x" * 100] * 100
    where = cursor_text("u", lines, 99, 50)
    assert len(where.before) == BEFORE_CHARS and where.before.endswith("x" * 50)
