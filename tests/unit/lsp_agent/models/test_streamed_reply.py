"""Reading a streamed reply stops at the end of the first complete call, or at a loop."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from lsp_agent.models.streamed_reply import (
    ends_in_long_loop,
    ends_in_loop,
    read_stream,
    trim_loop,
)
from lsp_agent.models.tool_call_parsing.stream_cut import complete_call_end

# What Qwen2.5-Coder-1.5B wrote behind llama-server --jinja with tool_choice "required"
# (recorded): a fenced call, the calls it imagined next, then newlines to max_tokens.
QWEN_REPLY = (
    '```json\n{\n  "name": "read_file",\n  "arguments": {\n    "path": "calc.py"\n  }\n}\n```'
    '\n\n\n```json\n{\n  "name": "propose_patch",\n  "arguments": {\n    "diff": "x"\n  }\n}\n```'
    + "\n"
    * 200
)


def chunk(text: str) -> Any:
    return SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content=text))])


class Stream:
    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.read = 0
        self.closed = False

    def __iter__(self):  # type: ignore[no-untyped-def]
        for piece in self.pieces:
            self.read += 1
            yield chunk(piece)

    def close(self) -> None:
        self.closed = True


def text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content for c in chunks)


def tokens(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_the_stream_is_cut_right_after_the_first_call() -> None:
    stream = Stream(tokens(QWEN_REPLY))
    text, cut = read_stream(stream, text_of)
    assert cut == "after a complete call" and stream.closed
    assert text.rstrip().endswith('"calc.py"\n  }\n}\n```') and "propose_patch" not in text
    assert stream.read < len(stream.pieces) / 4


def test_a_reply_that_ends_at_its_call_is_read_to_its_end() -> None:
    # the server's usage (its prompt cache) only comes with the last chunk
    for reply in ('{"name": "read_file", "arguments": {"path": "a.py"}}', QWEN_REPLY[:81]):
        stream = Stream(tokens(reply))
        text, cut = read_stream(stream, text_of)
        assert cut is None and text == reply, text


def test_a_looping_answer_is_cut() -> None:
    stream = Stream(tokens("final_answer: 42" + ".0" * 400))
    text, cut = read_stream(stream, text_of)
    assert cut == "in a loop" and len(text) < 100


def test_a_reply_that_repeats_a_sentence_or_lines_is_cut() -> None:
    """A text reply ran to max_tokens (1,024 tokens, 78 s) through llama-server in a CI run
    without a loop of at most 12 characters."""
    for looping in (
        "Final answer: 42." + " The answer is 42." * 60,
        "42\n" + "I did not run any command.\nThe answer is 42.\n" * 30,
    ):
        stream = Stream(tokens(looping))
        text, cut = read_stream(stream, text_of)
        assert cut == "in a loop" and len(text) < 200, text
        trimmed = trim_loop(text)  # whole sentences or lines, none of them twice
        assert trimmed.startswith(("Final answer: 42.", "42\n")), trimmed
        assert trimmed.endswith((".", "\n")) and trimmed.count("The answer is") <= 1, trimmed
    assert not ends_in_long_loop("The answer is 42. The answer is 42. It was read in calc.py.")
    assert not ends_in_long_loop("x = 1\nx = 1\ny = 2\n")


def test_a_reply_without_a_call_is_read_to_its_end() -> None:
    stream = Stream(tokens("The value of MAX_ITEMS is 473."))
    text, cut = read_stream(stream, text_of)
    assert cut is None and not stream.closed and text == "The value of MAX_ITEMS is 473."


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ('{"name": "read_file", "arguments": {"path": "a.py"}} and more', 52),
        ('Let me read it.\n<tool_call>\n{"name": "read_file"}\n</tool_call>', 49),
        ('{"answer": "42"}\n\n{"x": 1}', 16),
        ('{"name": "read_file", "arguments": {"path": "a', None),
        ("def f(): return {1: 2}", None),
        ("no call at all", None),
    ],
)
def test_complete_call_end(text: str, end: int | None) -> None:
    assert complete_call_end(text) == end


def test_a_loop_is_trimmed_to_its_first_round() -> None:
    assert trim_loop("final_answer: 42" + ".0" * 100) == "final_answer: 42.0"
    assert trim_loop("x" + "\n" * 80) == "x\n"
    assert trim_loop("no loop here") == "no loop here"


def test_loops_are_short_patterns_over_and_over() -> None:
    assert ends_in_loop("x" + "\n" * 60)
    assert ends_in_loop("42" + ".0" * 30)
    assert not ends_in_loop("A reply of ordinary prose, long enough to be checked, says things.")
    # Qwen2.5-Coder-1.5B in a patch's `new`: a counting loop, 1,085 tokens to max_tokens
    counting = "len(values) /// 2()d" + "".join(f"(1){i % 10}" for i in range(7, 60))
    assert ends_in_loop(counting)
    assert not ends_in_loop("values = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26, 43, 38, 32]")
