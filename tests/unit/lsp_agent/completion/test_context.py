"""The FIM context around the cursor: PREFIX / MIDDLE / SUFFIX, the sticky anchor, the indent."""

from __future__ import annotations

from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor

CONFIG = CompletionConfig(model_id="embedded")
LINES = [
    "import math",
    "",
    "def area(radius):",
    '    """The area."""',
    "    return math.pi * radius",
    "",
    "def other():",
    "    pass",
]


def context_at(lines: list[str], line: int, character: int, config: CompletionConfig = CONFIG):
    anchor = choose_anchor(None, "u", lines, line, config)
    return build_context(
        "geo.py", lines, line=line, character=character, anchor=anchor, config=config
    )


def test_the_cursor_line_goes_to_middle_and_its_rest_opens_suffix() -> None:
    ctx = context_at(LINES, 4, 10)  # "    return| math.pi * radius"
    assert ctx.prefix == "import math\n\ndef area(radius):\n" + '    """The area."""\n'
    assert ctx.middle == "    return"
    assert ctx.suffix == " math.pi * radius\n\ndef other():\n    pass\n"
    assert ctx.line_prefix == "    return" and ctx.line_suffix == " math.pi * radius"
    assert ctx.single_line and ctx.indent == 4
    assert ctx.next_lines == ("", "def other():", "    pass")


def test_a_blank_line_is_left_out_of_middle_and_takes_the_indent_above() -> None:
    lines = [*LINES[:5], "    ", *LINES[5:]]
    ctx = context_at(lines, 5, 4)
    assert ctx.middle == "" and ctx.suffix.startswith("\n\ndef other")
    assert ctx.blank_line and not ctx.single_line
    assert ctx.indent == 4  # the line above: "    return math.pi * radius"


def test_windows_are_bounded_in_lines_and_characters_at_line_starts() -> None:
    lines = [f"line_{i} = {i}" for i in range(100)]
    config = CompletionConfig(model_id="embedded", prefix_lines=10, suffix_lines=3, prefix_chars=60)
    ctx = context_at(lines, 50, 0, config)
    assert ctx.prefix.startswith("line_4") and ctx.prefix.endswith("line_49 = 49\n")
    assert len(ctx.prefix) <= 60 and ctx.prefix.count("\n") == len(ctx.prefix.splitlines())
    assert ctx.suffix == "line_50 = 50\nline_51 = 51\nline_52 = 52\nline_53 = 53\n"


def test_the_anchor_stays_while_typing_and_pressing_enter_so_only_middle_grows() -> None:
    lines = ["def f(x):", "    y = x", ""]
    first = choose_anchor(None, "u", lines, 2, CONFIG)
    lines[2] = "    z = y"
    lines.append("")
    later = choose_anchor(first, "u", lines, 3, CONFIG)
    assert later == first
    before = build_context("f.py", lines, line=2, character=9, anchor=first, config=CONFIG)
    after = build_context("f.py", lines, line=3, character=0, anchor=later, config=CONFIG)
    assert before.prefix == after.prefix == "def f(x):\n    y = x\n"
    assert after.middle.startswith(before.middle)  # the prompt only grows at its end


def test_the_anchor_moves_when_the_cursor_leaves_its_window_or_the_prefix_changed() -> None:
    lines = [f"x{i} = {i}" for i in range(40)]
    anchor = choose_anchor(None, "u", lines, 10, CONFIG)
    assert choose_anchor(anchor, "u", lines, 10 + CONFIG.middle_lines, CONFIG) == anchor
    assert choose_anchor(anchor, "u", lines, 11 + CONFIG.middle_lines, CONFIG).line == 19
    assert choose_anchor(anchor, "u", lines, 9, CONFIG).line == 9  # above the anchor
    assert choose_anchor(anchor, "other", lines, 12, CONFIG).line == 12
    lines[5] = "changed = True"
    assert choose_anchor(anchor, "u", lines, 12, CONFIG).line == 12
