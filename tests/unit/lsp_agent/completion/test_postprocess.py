"""Where a completion stops and what of it is shown: llama.vim's rules, table-tested."""

from __future__ import annotations

import pytest

from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import FimContext, build_context, choose_anchor
from lsp_agent.completion.postprocess import finish, stop_index

CONFIG = CompletionConfig(model_id="embedded")


def at(text: str, marker: str = "|") -> FimContext:
    """The context at `marker` in `text` (the marker is removed)."""
    before, after = text.split(marker)
    lines = (before + after).split("\n")
    line = before.count("\n")
    character = len(before.rsplit("\n", 1)[-1])
    anchor = choose_anchor(None, "u", lines, line, CONFIG)
    return build_context(
        "f.py", lines, line=line, character=character, anchor=anchor, config=CONFIG
    )


FUNCTION = "def f(items):\n    total = 0\n    |\n    return total\n\n\ndef g():\n    pass\n"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # the block ends at a line less indented than the cursor's block
        (
            "for item in items:\n        total += item\ndef h():\n",
            "for item in items:\n        total += item",
        ),
        # blank lines do not decide; the dedent after them does
        (
            "for x in items:\n\n        total += x\n\nclass A:\n",
            "for x in items:\n\n        total += x",
        ),
        # a line equal to the next line of the document: the gap is filled
        ("total += sum(items)\n    return total\n", "total += sum(items)"),
        # trailing blank lines go
        ("total = sum(items)\n\n\n", "total = sum(items)"),
        # the indentation the model writes on a blank line is already typed
        ("    total = sum(items)", "total = sum(items)"),
    ],
)
def test_multi_line_completions_stop_at_the_block_end(raw: str, expected: str) -> None:
    assert finish(raw, at(FUNCTION)) == expected


def test_with_text_after_the_cursor_only_the_line_is_completed_without_its_rest() -> None:
    ctx = at("value = compute(|)\nnext_line()\n")
    assert stop_index("a, b)\nmore", ctx) == len("a, b)")
    assert finish("a, b)", ctx) == "a, b"  # the model re-typed the ")" already there
    assert finish("a, b\nmore()", ctx) == "a, b"


@pytest.mark.parametrize(
    ("document", "raw"),
    [
        ("x = compute(|)\n", ")"),  # only the rest of the line
        ("def f():\n    |\n    return 1\n", "return 1"),  # only the next line
        ("def f():\n    |\n    return 1\n", "    return 1"),  # with the indentation
        (
            "def f():\n    y = |\n    return 1\n",
            "\n    return 1",
        ),  # an empty first line, then the next lines
        ("def f():\n    a|\n    b = 2\n    c = 3\n", "\n    b = 2\n    c = 3"),
        (
            "def f():\n    |\n    b = 2\n    c = 3\n",
            "b = 2\n    c",
        ),  # next line, then a start of the one after
        ("x = 1|\n", "   \n  "),  # only whitespace
        ("x = 1|\n", ""),
    ],
)
def test_text_that_only_retypes_what_is_there_is_not_shown(document: str, raw: str) -> None:
    assert finish(raw, at(document)) is None


def test_a_useful_completion_is_kept_whole() -> None:
    ctx = at("def area(r):\n    return |\n")
    assert finish("3.14159 * r * r", ctx) == "3.14159 * r * r"
    assert stop_index("3.14159 * r", ctx) is None


def test_the_stop_rule_waits_for_a_line_to_show_its_indent() -> None:
    ctx = at(FUNCTION)
    assert stop_index("x = 1\n  ", ctx) is None  # indentation so far, no text yet
    assert stop_index("x = 1\n  y", ctx) == len("x = 1\n")
