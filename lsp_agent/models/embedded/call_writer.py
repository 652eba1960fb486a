"""Write a chosen tool's arguments one at a time, each as the model likes it best.

After the tool is chosen (`choice_scoring`), the arguments are written in the tool's declared
order, in the one shape the grammar defines (`{"path": "calc.py", "old": "…"}}`):

- which optional argument comes next, or whether the arguments end, is chosen by the
  likelihood of the whole key (`, "start_line": ` against `}}`), not token by token;
- an argument with choices (a repository path, a patch id, or, through a callable that sees
  the arguments written so far, a snippet the task quotes from the file just named or a
  line of it) is chosen among them by the likelihood of the whole value: token-by-token
  masking judges two lines that begin alike (`return sum(values) / …`, `return sum(v * w …`)
  by their first differing token, and a 1.5B model took the wrong one after reasoning
  correctly about the right one;
- any other value is written under a grammar for that value alone (`tool_grammar`), which
  ends it: a string at its closing quote, a number at its last digit. Lines of the file
  (for `old`) are suggestions, not the only values: the model also writes `old` itself,
  and a snippet it wrote that is text of the file competes with the lines (SmolLM2-135M,
  told to replace `(len(values) + 1)`, got `def average(values):` when only whole lines
  were allowed: the sum of log-probabilities favours short lines; where it wrote `"path",`
  instead, the quoted snippet among the suggestions still wins).

Tokens the model sampled are kept as it sampled them, and text written for it since (the
call's head, keys, chosen values) is tokenized on its own after them: re-tokenizing the
whole call merged the model's `"` `,` into `",` and its ` {` `"` into ` {"`, and
SmolLM2-135M then copied `old` into `new` (`len(values) + 1` for `len(values)`).

A key ends at its colon and the value brings the space before it (` "calc.py"`): the
tokenizer joins a space to the quote after it, so a prompt ending in a lone space token made
every value unlikely (Qwen2.5-Coder gave `"config.py"` -26.6 nats after `"path": ` and
-7.1 after `"path":`, and read `.gitignore` when told to read config.py).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lsp_agent.models.embedded.choice_scoring import choose
from lsp_agent.models.embedded.decoder import Decoder, Generation
from lsp_agent.models.embedded.tool_grammar import ArgumentSpec, ToolSpec, value_grammar
from lsp_agent.models.streamed_reply import ends_in_loop

log = logging.getLogger(__name__)

__all__ = ["Choices", "WrittenArguments", "write_arguments"]

# Choices per argument name: fixed values, or values that depend on the arguments so far.
Choices = Mapping[str, Sequence[str] | Callable[[Mapping[str, Any]], Sequence[str]]]
CLOSE = "}}"
_DECODER = json.JSONDecoder()
VALUE_LEAD = " "  # between a key's colon and its value, written with the value


@dataclass
class WrittenArguments:
    text: str  # from the first key to the closing "}}" (or where writing stopped)
    sampled: int  # tokens the model sampled
    chosen: int  # tokens of keys and values chosen by likelihood
    complete: bool
    # why writing stopped: "stop" (complete), "cut" (a value ran into a loop), "length"
    # (the token limit)
    finish: str = "stop"


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
    said: str = "",
) -> WrittenArguments:
    """The arguments after the tokens `lead` (the prompt and what the model `said` before the
    call) and the call's `head` (text).

    A value the model wrote keeps its own tokens; text written for the model is tokenized
    after them: the head on its own, then keys and chosen values together (see the module
    doc)."""
    text, values = "", dict[str, Any]()
    kept, pending = [*lead, *tokenize(head)], ""  # tokens so far, text written since

    def written() -> list[int]:
        return [*kept, *tokenize(pending)]

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
            key, _, _ = choose(decoder, written(), keys, temperature=temperature)
        chosen += len(tokenize(key))
        if key == CLOSE:
            return WrittenArguments(text + CLOSE, sampled, chosen, True)
        argument = candidates[keys.index(key)]
        remaining = remaining[remaining.index(argument) + 1 :]
        text += key
        pending += key
        options, exhaustive = _options(argument, choices, values, said)
        own: Generation | None = None
        rest = ""  # text of the value after the tokens kept (a token that ran past its end)
        if not exhaustive:  # a free value, or one the options only suggest
            own, rest, count = _write_value(
                decoder, written(), argument, max(max_tokens - sampled, 1), temperature
            )
            sampled += count
            if own.finish_reason != "stop":  # cut short: no valid call
                if not options:
                    return WrittenArguments(
                        text + own.text, sampled, chosen, False, own.finish_reason
                    )
                own = None
        if options:
            encoded = [VALUE_LEAD + json.dumps(o, ensure_ascii=False) for o in options]
            if own is not None and own.text not in encoded and _within(own.text, options):
                encoded.append(own.text)
            value, scores, _ = choose(decoder, written(), encoded, temperature=temperature)
            log.debug("%s: %s", argument.name, dict(zip(encoded, scores, strict=True)))
            if own is None or value != own.text:
                own = None
                chosen += len(tokenize(value))
        if own is not None:
            kept, pending = [*written(), *own.tokens], rest
            value = own.text
        else:
            pending += value
        text += value
        values[argument.name] = json.loads(value)
    return WrittenArguments(text + CLOSE, sampled, chosen, True)


def _write_value(
    decoder: Decoder,
    prompt: Sequence[int],
    argument: ArgumentSpec,
    max_tokens: int,
    temperature: float,
) -> tuple[Generation, str, int]:
    """The model's value for `argument` under its grammar: the value (a string cut at its
    closing quote, `_string_value`), its text after the tokens kept, and tokens sampled."""
    string = argument.type == "string"
    own = decoder.generate(
        prompt,
        max_tokens=max_tokens,
        temperature=temperature,
        grammar=value_grammar(argument, lead=VALUE_LEAD, tail=True),
        stop=_string_stop if string else _stop,
    )
    log.debug("%s written: %r (%s)", argument.name, own.text, own.finish_reason)
    sampled = len(own.tokens)
    if not string:
        return own, "", sampled
    value, rest = _string_value(own, decoder.piece)
    return value, rest, sampled


def _string_end(text: str) -> int | None:
    """Where the JSON string that `text` begins (after `VALUE_LEAD`) ends, if it has."""
    start = text.find('"')
    if start < 0:
        return None
    try:
        _, end = _DECODER.raw_decode(text, start)
    except ValueError:
        return None
    return end


def _string_stop(text: str) -> bool:
    return _string_end(text) is not None or ends_in_loop(text)


def _string_value(
    own: Generation, piece: Callable[[Sequence[int]], bytes]
) -> tuple[Generation, str]:
    """A written string value alone: `own` cut at its closing quote, with the tokens wholly
    inside the value, and the value's text after them (the closing quote, when the model
    wrote it in one token with what follows: `"}}`). Unfinished: `own` as it is."""
    end = _string_end(own.text)
    if end is None:
        return own, ""
    value = own.text[:end]
    size = len(value.encode("utf-8"))
    tokens: list[int] = []
    used = 0
    for token in own.tokens:
        length = len(piece([token]))
        if used + length > size:
            break
        tokens.append(token)
        used += length
    rest = value.encode("utf-8")[used:].decode("utf-8", errors="replace")
    return replace(own, text=value, tokens=tokens, finish_reason="stop"), rest


def _options(
    argument: ArgumentSpec, choices: Choices, values: Mapping[str, Any], said: str = ""
) -> tuple[Sequence[str], bool]:
    """The values `argument` may take, and whether they are all it may take: fixed choices
    (an enum of the grammar) are; values from a callable (the lines of the file named, for
    `old`) only suggest, since any snippet of the file is as good a value as a whole line.
    Before them come the snippets the model `said` it will replace that are their text."""
    if argument.choices:
        return argument.choices, True
    found = choices.get(argument.name)
    if callable(found):
        suggested = list(found(values))
        named = [s for s in replaced_snippets(said) if s not in suggested]
        return [*(s for s in named if _within(json.dumps(s), suggested)), *suggested], False
    return (), False


# What a thought says it will replace: the edit tools' thought lead ends in "So I will
# replace `", and the model names the text (`len(values) + 1`) before it writes `old`.
_REPLACED = re.compile(r"\breplace\s+`([^`\n]+)`", re.IGNORECASE)


def replaced_snippets(said: str) -> list[str]:
    """The snippets `said` names after "replace", in order, without repeats. Qwen2.5-Coder-
    1.5B thought "So I will replace `len(values) + 1` with `len(values)` in the `average`
    function" and then wrote `old` as weighted_total's return line (L6): the line its
    thought named was not among the suggestions, only the whole line that holds it."""
    found: list[str] = []
    for match in _REPLACED.finditer(said):
        snippet = match.group(1)
        if snippet.strip() and snippet not in found:
            found.append(snippet)
    return found


def _within(encoded: str, lines: Sequence[str]) -> bool:
    """Whether a value the model wrote (JSON) is text of the suggested `lines`."""
    value = json.loads(encoded)
    return isinstance(value, str) and bool(value.strip()) and value in "\n".join(lines)
