"""A string argument ends where the model closes it, also when its closing quote comes in one
token with the call's next characters (Qwen2.5-Coder's `"}}`, `",`): the value grammar admits
that token and the writer keeps the value alone (`call_writer._string_value`).

Before, the grammar refused `"}}`, the model's likeliest token after `"calc`, and the masked
fallback took `}}` as string text: Qwen2.5-Coder-1.5B then wrote 1,200 characters into
`package` (`"calc}} a short summary: …"`) and never called the tool with `calc`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from lsp_agent.models.embedded.call_writer import _options, _string_value, replaced_snippets
from lsp_agent.models.embedded.decoder import Generation
from lsp_agent.models.embedded.grammar_sampler import (
    ConstrainedLlama,
    grammar_accepts,
    quiet_llama,
)
from lsp_agent.models.embedded.tool_grammar import ArgumentSpec, value_grammar
from lsp_agent.models.errors import ModelConfigError
from tests.conftest import require_component

QWEN = "embedded:qwen2.5-coder-1.5b"
PACKAGE = ArgumentSpec("package", "string", True)


@pytest.fixture(scope="module")
def qwen_vocab() -> Iterator[ConstrainedLlama]:
    from lsp_agent.models.embedded.loader import embedded_gguf

    try:
        path = embedded_gguf(QWEN)
    except ModelConfigError as exc:
        require_component("Qwen2.5-Coder-1.5B (the qwen extra)", False, str(exc))
    llama = quiet_llama(path, vocab_only=True, n_ctx=64)
    yield llama
    llama.close()


def tokens(vocab: ConstrainedLlama, text: str) -> list[int]:
    return list(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def pieces(vocab: ConstrainedLlama, ids: Sequence[int]) -> list[str]:
    return [vocab.detokenize([i]).decode("utf-8") for i in ids]


@pytest.mark.parametrize("text", [' "calc"}}', ' "calc"}}\n', ' "calc.py",', ' "x"},'])
def test_a_token_that_closes_the_string_and_the_call_is_admitted(
    qwen_vocab: ConstrainedLlama, text: str
) -> None:
    # the closing quote is not a token of its own here: the old grammar had to refuse it
    assert not any(p == '"' for p in pieces(qwen_vocab, tokens(qwen_vocab, text))[1:])
    assert grammar_accepts(qwen_vocab, value_grammar(PACKAGE, lead=" ", tail=True), text)
    assert not grammar_accepts(qwen_vocab, value_grammar(PACKAGE, lead=" "), text)


def test_the_tail_is_short_and_only_after_a_closed_string(qwen_vocab: ConstrainedLlama) -> None:
    grammar = value_grammar(PACKAGE, lead=" ", tail=True)
    assert grammar_accepts(qwen_vocab, grammar, ' "calc"')
    assert not grammar_accepts(qwen_vocab, grammar, ' "calc"}} and then some words')
    assert not grammar_accepts(qwen_vocab, grammar, ' "calc}}')
    number = ArgumentSpec("start_line", "integer", False)
    assert value_grammar(number, lead=" ", tail=True) == value_grammar(number, lead=" ")


def test_the_value_is_kept_without_what_its_last_token_ran_on_into(
    qwen_vocab: ConstrainedLlama,
) -> None:
    ids = tokens(qwen_vocab, ' "calc"}}\n')

    def piece(some: Sequence[int]) -> bytes:
        return bytes(qwen_vocab.detokenize(list(some)))

    written = Generation(' "calc"}}\n', ids, "cut")
    value, rest = _string_value(written, piece)
    assert value.text == ' "calc"'
    assert value.finish_reason == "stop"
    assert rest == '"'  # written again, as text, after the kept tokens
    assert piece(value.tokens).decode() + rest == ' "calc"'


def test_an_unfinished_string_is_left_as_it_is(qwen_vocab: ConstrainedLlama) -> None:
    ids = tokens(qwen_vocab, ' "calc is the')
    written = Generation(' "calc is the', ids, "length")
    value, rest = _string_value(written, lambda some: bytes(qwen_vocab.detokenize(list(some))))
    assert value is written
    assert rest == ""


def test_an_escaped_quote_does_not_end_the_value(qwen_vocab: ConstrainedLlama) -> None:
    text = ' "say \\"hi\\" twice",'
    ids = tokens(qwen_vocab, text)
    value, rest = _string_value(
        Generation(text, ids, "cut"), lambda some: bytes(qwen_vocab.detokenize(list(some)))
    )
    assert value.text == ' "say \\"hi\\" twice"'
    assert value.text.endswith(rest)


CALC = [
    "def weighted_total(values, weights):",
    "    return sum(v * w for v, w in zip(values, weights))",
    "def average(values):",
    "    return sum(values) / (len(values) + 1)",
]
OLD = ArgumentSpec("old", "string", True)


def test_the_snippet_a_thought_will_replace_is_suggested_first() -> None:
    # L6 (2026-11-28): thought "So I will replace `len(values) + 1` with `len(values)` in the
    # `average` function", then wrote `old` as weighted_total's return line
    said = (
        "The current implementation divides by the length of the list plus one.\n"
        " So I will replace `len(values) + 1` with `len(values)` in the `average` function."
    )
    options, exhaustive = _options(OLD, {"old": lambda _: CALC}, {"path": "calc.py"}, said)
    assert not exhaustive
    assert list(options) == ["len(values) + 1", *CALC]


@pytest.mark.parametrize(
    "said",
    [
        "So I will replace `len(values) - 1` with `len(values)`.",  # not text of the file
        "The `average` function divides by `len(values) + 1`.",  # not said to be replaced
        "So I will replace ` ` with `x`.",
        "",
    ],
)
def test_only_file_text_the_thought_replaces_is_suggested(said: str) -> None:
    options, _ = _options(OLD, {"old": lambda _: CALC}, {"path": "calc.py"}, said)
    assert list(options) == CALC


def test_replaced_snippets_are_in_order_without_repeats() -> None:
    said = "Replace `a + 1` with `a`. Then replace `b` and replace `a + 1` again."
    assert replaced_snippets(said) == ["a + 1", "b"]


class LoopingDecoder:
    """Writes one string value that runs into a loop, or to the token limit."""

    def __init__(self, finish: str) -> None:
        self.finish = finish

    def generate(self, prompt: Sequence[int], **options: object) -> Generation:
        return Generation(' "' + "ab" * 40, [1] * 40, self.finish)

    def piece(self, tokens: Sequence[int]) -> bytes:
        return b"ab" * len(tokens)


@pytest.mark.parametrize("finish", ["cut", "length"])
def test_a_value_cut_short_says_whether_it_looped_or_ran_to_the_limit(finish: str) -> None:
    """A call cut as a loop is no reply that ran to `max_tokens` (`bench models` counts
    those by the finish "length")."""
    from lsp_agent.models.embedded.call_writer import write_arguments
    from lsp_agent.models.embedded.tool_grammar import ToolSpec

    written = write_arguments(
        LoopingDecoder(finish),  # type: ignore[arg-type]
        lambda text: [0] * len(text),
        [],
        '{"name": "final_answer", "arguments": {',
        ToolSpec("final_answer", (ArgumentSpec("answer", "string", True),)),
        choices={},
        temperature=0.1,
        max_tokens=40,
    )
    assert not written.complete and written.finish == finish
