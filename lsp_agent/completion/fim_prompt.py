"""The embedded model's fill-in-the-middle prompt, built from its own special tokens.

llama-cpp-python's `suffix=` path writes FIM token ids that are hard-coded to 0, so the prompt
is assembled here as token ids, from the ids llama.cpp reads from the GGUF file
(`sharing.Vocabulary`): the same layout as llama-server's `/infill`, which is the repo-level
format of Qwen2.5-Coder (arXiv 2409.12186) and StarCoder2:

    <|repo_name|>REPO\\n
    <|file_sep|>other/file.py\\n ...its lines...       (one per extra chunk)
    <|file_sep|>this/file.py\\n
    <|fim_prefix|>PREFIX<|fim_suffix|>SUFFIX<|fim_middle|>MIDDLE

Per family: a model with FIM tokens but no `<|file_sep|>` (CodeLlama) gets no other files; a
model without FIM tokens (SmolLM2) continues PREFIX+MIDDLE only. Text from files is tokenized
with special tokens read as plain text, so a file that contains `<|fim_middle|>` cannot forge one.

The prompt fits `budget` tokens: other files go first, then PREFIX loses its oldest tokens.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_agent.completion.backends.base import FimRequest
from lsp_agent.models.embedded.sharing import Vocabulary

Tokenize = Callable[[str], list[int]]


def fim_tokens(
    request: FimRequest, vocab: Vocabulary, tokenize: Tokenize, budget: int
) -> list[int]:
    """The prompt for `request` as token ids, at most `budget` of them."""
    ctx = request.context
    head = [vocab.bos] if vocab.add_bos and vocab.bos >= 0 else []
    prefix = tokenize(ctx.prefix)
    middle = tokenize(ctx.middle)
    if not vocab.has_fim:
        body = prefix + middle
        return head + body[max(0, len(body) - (budget - len(head))) :]
    suffix = tokenize(ctx.suffix)
    tail = [vocab.fim_suffix, *suffix, vocab.fim_middle, *middle]
    repo = _repo_tokens(request, vocab, tokenize)
    room = budget - len(head) - len(tail) - 1  # 1: <|fim_prefix|>
    if len(repo) + len(prefix) > room:
        repo = _repo_tokens(request, vocab, tokenize, with_extras=False)
    if len(repo) + len(prefix) > room:
        repo = []
    keep = max(0, room - len(repo))
    prefix = prefix[max(0, len(prefix) - keep) :]
    return head + repo + [vocab.fim_prefix, *prefix, *tail]


def _repo_tokens(
    request: FimRequest, vocab: Vocabulary, tokenize: Tokenize, *, with_extras: bool = True
) -> list[int]:
    """`<|repo_name|>` with the other files and this file's name, where the model has them."""
    if vocab.file_sep < 0:
        return []
    out: list[int] = []
    if vocab.repo_name >= 0:
        out += [vocab.repo_name, *tokenize(request.repo + "\n")]
    if with_extras:
        for chunk in request.extras:
            out += [vocab.file_sep, *tokenize(chunk.path + "\n"), *tokenize(chunk.text)]
    out += [vocab.file_sep, *tokenize(request.context.path + "\n")]
    return out
