"""How a past code step reads in code mode's history (`code_mode.messages`)."""

from __future__ import annotations

from smolagents.memory import ActionStep
from smolagents.monitoring import Timing

from lsp_agent.agent.code_mode.agent import CODE_BLOCK_TAGS
from lsp_agent.agent.code_mode.messages import code_step_messages
from lsp_agent.models.messages import message_text


def step(output: str) -> ActionStep:
    return ActionStep(
        step_number=1,
        timing=Timing(start_time=0.0),
        model_output=output,
        code_action="print(1)",
        observations="1",
    )


def test_a_reply_reads_with_one_closing_fence() -> None:
    # smolagents adds the closing tag to a reply that does not end with it: one the model
    # closed itself ("\n```", then its end token) would read "\n```\n```".
    closed = "Thought: x\n```python\nprint(1)\n```" + CODE_BLOCK_TAGS[1]
    cut = "Thought: x\n```python\nprint(1)" + CODE_BLOCK_TAGS[1]
    for output in (closed, cut):
        reply = code_step_messages(step(output), ["read_file"])[0]
        assert message_text(reply.content) == "Thought: x\n```python\nprint(1)\n```"


def test_the_closing_tag_does_not_match_an_opening_fence() -> None:
    # A stop sequence: "\n```" also matched "\n```python" and cut every reply that began
    # with its thought before its code.
    opening, closing = CODE_BLOCK_TAGS
    assert closing not in f"Thought: I will read it.\n{opening}\nprint(1)\n"
    assert closing in "print(1)\n```\n"
