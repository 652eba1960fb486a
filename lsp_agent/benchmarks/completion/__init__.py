"""`lsp-agent bench complete`: inline completions on a real model, typed through the language
server over stdio and sent straight to the backend. `held_out` is the text typed (a package the
model cannot have seen), `editor` the bench's editor, `session` the typing session and the
next-line quality positions, `bench` the figures (`measure`) and what each means."""

from lsp_agent.benchmarks.completion.bench import measure
from lsp_agent.benchmarks.completion.held_out import (
    BLOCK_LINES,
    held_out_blocks,
    held_out_lines,
    typing_steps,
)

__all__ = ["BLOCK_LINES", "held_out_blocks", "held_out_lines", "measure", "typing_steps"]
