"""A block that opens itself again, or opens with its thought, runs as the code it means
(`code_mode.block_text`)."""

from __future__ import annotations

from lsp_agent.agent.code_mode.block_text import block_code

CLASS = "class BankAccount:\n    def __init__(self):\n        self.balance = 0"


def test_a_block_opened_again_runs_from_its_last_opening() -> None:
    # bank-account: "thought: …\n```python\nclass BankAccount: …" in one block
    assert block_code(f"thought: I need to add checks.\n```python\n{CLASS}") == CLASS
    assert block_code(f"x = (\n```py\n\n{CLASS}\n") == CLASS


def test_leading_thought_lines_are_dropped_when_the_rest_parses() -> None:
    assert block_code(f"Thought: write the class\n\n{CLASS}") == CLASS
    assert block_code(f"thoughts: the first one\nThinking: and two\n{CLASS}") == CLASS


def test_a_block_of_only_a_thought_means_no_code() -> None:
    assert block_code("thought: I need to modify BankAccount.") == ""
    assert block_code("Thought: a\n```python\n") == ""


def test_code_that_parses_or_that_nothing_mends_is_left_as_it_is() -> None:
    assert block_code("thought = 1\nprint(thought)") == "thought = 1\nprint(thought)"
    assert block_code("x = (") == "x = ("
    assert block_code("thought: a\nx = (") == "thought: a\nx = ("  # the rest does not parse
    assert block_code("    return number") == "    return number"  # continued_body's case
