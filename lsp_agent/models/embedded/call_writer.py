"""Write a chosen tool's arguments one at a time, each as the model likes it best.

After the tool is chosen (`choice_scoring`), the arguments are written in the tool's declared
order, in the one shape the grammar defines (`{"path": "calc.py", "old": "…"}}`):

- which optional argument comes next, or whether the arguments end, is chosen by the
  likelihood of the whole key (`, "start_line": ` against `}}`), not token by token;
- an argument with choices (a repository path, a patch id, or, through a callable that sees
  the arguments written so far, a line of the file just named) is chosen among them by the
  likelihood of the whole value: token-by-token masking judges two lines that begin alike
  (`return sum(values) / …`, `return sum(v * w …`) by their first differing token, and a
  1.5B model took the wrong one after reasoning correctly about the right one;
- any other value is written under a grammar for that value alone (`tool_grammar`), which
  ends it: a string at its closing quote, a number at its last digit.

A key ends at its colon and the value brings the space before it (` "calc.py"`): the
tokenizer joins a space to the quote after it, so a prompt ending in a lone space token made
every value unlikely (Qwen2.5-Coder gave `"config.py"` -26.6 nats after `"path": ` and
-7.1 after `"path":`, and read `.gitignore` when told to read config.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lsp_agent.models.embedded.choice_scoring import choose
from lsp_agent.models.embedded.decoder import Decoder
from lsp_agent.models.embedded.tool_grammar import ArgumentSpec, ToolSpec, value_grammar
from lsp_agent.models.streamed_reply import ends_in_loop

__all__ = ["Choices", "WrittenArguments", "write_arguments"]

# Choices per argument name: fixed values, or values that depend on the arguments so far.
Choices = Mapping[str, Sequence[str] | Callable[[Mapping[str, Any]], Sequence[str]]]
CLOSE = "}}"
VALUE_LEAD = " "  # between a key's colon and its value, written with the value


@dataclass
class WrittenArguments:
    text: str  # from the first key to the closing "}}" (or where writing stopped)
    sampled: int  # tokens the model sampled
    chosen: int  # tokens of keys and values chosen by likelihood
    complete: bool


def _stop(text: str) -> bool:
    return ends_in_loop(text)


def write_arguments(
    decoder: Decoder,
    tokenize: Callable[[str], list[int]],
    lead: Sequence[int],
    head: str,
    spec: ToolSpec,
    *,
    choices: Choices,
    temperature: float,
    max_tokens: int,
) -> WrittenArguments:
    """The arguments after the tokens `lead` (the prompt) and the call's `head` (text)."""
    text, values = "", dict[str, Any]()

    def before() -> list[int]:
        return [*lead, *tokenize(head + text)]

    sampled = chosen = 0
    remaining = list(spec.arguments)
    while remaining:
        candidates: list[ArgumentSpec] = []
        for argument in remaining:
            candidates.append(argument)
            if argument.required:
                break
        closable = all(not a.required for a in remaining)
        separator = ", " if values else ""
        keys = [f'{separator}"{a.name}":' for a in candidates] + ([CLOSE] if closable else [])
        if len(keys) == 1:
            key = keys[0]
        else:
            key, _, _ = choose(decoder, before(), keys, temperature=temperature)
        chosen += len(tokenize(key))
        if key == CLOSE:
            return WrittenArguments(text + CLOSE, sampled, chosen, True)
        argument = candidates[keys.index(key)]
        remaining = remaining[remaining.index(argument) + 1 :]
        text += key
        options = _options(argument, choices, values)
        if options:
            encoded = [VALUE_LEAD + json.dumps(o, ensure_ascii=False) for o in options]
            value, _, _ = choose(decoder, before(), encoded, temperature=temperature)
            chosen += len(tokenize(value))
        else:
            generation = decoder.generate(
                before(),
                max_tokens=max(max_tokens - sampled, 1),
                temperature=temperature,
                grammar=value_grammar(argument, lead=VALUE_LEAD),
                stop=_stop,
            )
            sampled += len(generation.tokens)
            value = generation.text
            if generation.finish_reason != "stop":  # cut short: no valid call
                return WrittenArguments(text + value, sampled, chosen, False)
        text += value
        values[argument.name] = json.loads(value)
    return WrittenArguments(text + CLOSE, sampled, chosen, True)


def _options(argument: ArgumentSpec, choices: Choices, values: Mapping[str, Any]) -> Sequence[str]:
    """The values `argument` may take, when they are fixed (else an empty list)."""
    if argument.choices:
        return argument.choices
    found = choices.get(argument.name)
    if callable(found):
        return list(found(values))
    return ()
