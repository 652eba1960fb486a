"""The embedded model's FIM prompt: the repo-level layout from the model's own special tokens,
per family, bounded, and immune to special-token text in files."""

from __future__ import annotations

from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor
from lsp_agent.completion.fim_prompt import fim_tokens
from lsp_agent.completion.neighbours import ExtraChunk
from lsp_agent.models.embedded.sharing import Vocabulary

# Special tokens above every character's code point; -1: the model has none.
PRE, SUF, MID, REPO, SEP, BOS = range(0x110000, 0x110006)
QWEN_LIKE = Vocabulary(
    fim_prefix=PRE,
    fim_suffix=SUF,
    fim_middle=MID,
    repo_name=REPO,
    file_sep=SEP,
    bos=-1,
    add_bos=False,
)
NAMES = {PRE: "<PRE>", SUF: "<SUF>", MID: "<MID>", REPO: "<REPO>", SEP: "<SEP>", BOS: "<BOS>"}


def tokenize(text: str) -> list[int]:
    """One token per character (the special-token text stays characters)."""
    return [ord(c) for c in text]


def render(tokens: list[int]) -> str:
    return "".join(NAMES.get(t) or chr(t) for t in tokens)


def request(extras: tuple[ExtraChunk, ...] = ()) -> FimRequest:
    lines = ["def f(x):", "    return x", "", "print(f(1))"]
    config = CompletionConfig(model_id="embedded")
    anchor = choose_anchor(None, "u", lines, 1, config)
    ctx = build_context("pkg/f.py", lines, line=1, character=10, anchor=anchor, config=config)
    return FimRequest(context=ctx, extras=extras, repo="demo")


def test_the_repo_level_layout_of_qwen_and_starcoder2() -> None:
    extra = (ExtraChunk("pkg/g.py", "G = 1\n"),)
    prompt = render(fim_tokens(request(extra), QWEN_LIKE, tokenize, 10_000))
    assert prompt == (
        "<REPO>demo\n<SEP>pkg/g.py\nG = 1\n<SEP>pkg/f.py\n"
        "<PRE>def f(x):\n<SUF> x\n\nprint(f(1))\n<MID>    return"
    )


def test_a_model_without_file_separators_gets_no_other_files() -> None:
    codellama_like = Vocabulary(PRE, SUF, MID, -1, -1, BOS, True)
    prompt = render(
        fim_tokens(request((ExtraChunk("g.py", "G = 1\n"),)), codellama_like, tokenize, 10_000)
    )
    assert prompt == "<BOS><PRE>def f(x):\n<SUF> x\n\nprint(f(1))\n<MID>    return"


def test_a_model_without_fim_tokens_continues_the_text_before_the_cursor() -> None:
    smollm_like = Vocabulary(-1, -1, -1, 4, -1, -1, False)
    assert render(fim_tokens(request(), smollm_like, tokenize, 10_000)) == "def f(x):\n    return"


def test_the_budget_drops_other_files_first_then_the_oldest_prefix() -> None:
    extra = (ExtraChunk("pkg/g.py", "G = 1\n" * 20),)
    full = fim_tokens(request(extra), QWEN_LIKE, tokenize, 10_000)
    without_extras = fim_tokens(request(), QWEN_LIKE, tokenize, 10_000)
    tight = fim_tokens(request(extra), QWEN_LIKE, tokenize, len(without_extras))
    assert len(full) > len(without_extras) and tight == without_extras
    tighter = render(fim_tokens(request(extra), QWEN_LIKE, tokenize, 30))
    assert "<SEP>" not in tighter and tighter.startswith("<PRE>")
    assert tighter.endswith("<MID>    return") and len(tighter) <= 30 + 3 * 4


def test_special_token_text_in_a_file_stays_text() -> None:
    lines = ["s = '<|fim_middle|>'", ""]
    config = CompletionConfig(model_id="embedded")
    ctx = build_context(
        "f.py",
        lines,
        line=1,
        character=0,
        anchor=choose_anchor(None, "u", lines, 1, config),
        config=config,
    )
    tokens = fim_tokens(FimRequest(context=ctx), QWEN_LIKE, tokenize, 10_000)
    assert tokens.count(QWEN_LIKE.fim_middle) == 1
