"""Pick among fixed alternatives (the tool name) by the likelihood of the whole alternative.

Token-by-token constrained sampling judges an alternative by its first token only: after
`{"name": "` SmolLM2-135M gives the one-letter token `f` more weight than `prop`, so masked
sampling writes `final_answer` although the model's probability of the full text
`propose_patch",` is ten times that of `final_answer",`. Here each alternative is scored as
the sum of its tokens' log-probabilities, walking the alternatives' token trie with the
KV cache (shared prefixes are evaluated once), and one is sampled at the model's
temperature (the best one at temperature 0).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import llama_cpp
import numpy as np
import numpy.typing as npt

from lsp_agent.models.embedded.decoder import Decoder, PromptLoad

__all__ = ["choose", "continuation_logprobs", "reply_start"]


def _last_logprobs(decoder: Decoder) -> npt.NDArray[np.double]:
    """Log-probabilities after the last evaluated token (llama.cpp keeps only those)."""
    llama = decoder.llama
    pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
    logits = np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),)).astype(np.double)
    shifted = logits - float(np.max(logits))
    result: npt.NDArray[np.double] = shifted - math.log(float(np.exp(shifted).sum()))
    return result


def continuation_logprobs(
    decoder: Decoder, prompt: Sequence[int], continuations: Sequence[Sequence[int]]
) -> tuple[list[float], PromptLoad]:
    """log P(continuation | prompt) for each token sequence (each non-empty), and how the
    prompt was loaded."""
    load = decoder.load(prompt)
    base = len(prompt)
    stack = [_last_logprobs(decoder)]  # stack[d]: log-probs at position base+d
    path: list[int] = []
    results = [0.0] * len(continuations)
    for index in sorted(range(len(continuations)), key=lambda i: list(continuations[i])):
        sequence = list(continuations[index])
        common = 0
        while common < min(len(path), len(sequence) - 1) and path[common] == sequence[common]:
            common += 1
        del path[common:], stack[common + 1 :]
        decoder.truncate(base + common)
        for token in sequence[common:-1]:
            decoder.llama.eval([token])
            path.append(token)
            stack.append(_last_logprobs(decoder))
        results[index] = float(sum(stack[d][t] for d, t in enumerate(sequence)))
    return results, load


def choose(
    decoder: Decoder,
    prompt: Sequence[int],
    alternatives: Sequence[str],
    *,
    temperature: float,
    penalties: Sequence[float] | None = None,
    rng: random.Random | None = None,
) -> tuple[str, list[float], PromptLoad]:
    """One of `alternatives` (texts continuing `prompt`), every alternative's log-prob, and
    how the prompt was loaded.

    `penalties` (nats, one per alternative) are subtracted before choosing.
    """
    llama = decoder.llama
    sequences = [
        llama.tokenize(a.encode("utf-8"), add_bos=False, special=False) for a in alternatives
    ]
    scores, load = continuation_logprobs(decoder, prompt, sequences)
    if penalties is not None:
        scores = [s - p for s, p in zip(scores, penalties, strict=True)]
    if temperature <= 0.0:
        return alternatives[max(range(len(scores)), key=scores.__getitem__)], scores, load
    top = max(scores)
    weights = [math.exp((s - top) / temperature) for s in scores]
    picked = (rng or random).choices(range(len(alternatives)), weights=weights)[0]
    return alternatives[picked], scores, load


def reply_start(
    decoder: Decoder,
    prompt: Sequence[int],
    is_call_start: Callable[[str], bool],
    *,
    temperature: float,
    top: int = 40,
    rng: random.Random | None = None,
) -> tuple[float, int, PromptLoad]:
    """How likely the reply after `prompt` begins a call, and the token that would begin it
    otherwise (sampled at `temperature` among the others), over the `top` likeliest tokens.

    `is_call_start(piece)` says whether a first token's text begins a call."""
    load = decoder.load(prompt)
    logprobs = _last_logprobs(decoder)
    candidates = np.argsort(-logprobs)[:top]
    call, other, tokens = 0.0, [], []
    for token in (int(t) for t in candidates):
        if decoder.is_end(token):
            continue
        probability = math.exp(float(logprobs[token]))
        piece = decoder.piece([token]).decode("utf-8", errors="ignore")
        if is_call_start(piece):
            call += probability
        else:
            other.append(probability)
            tokens.append(token)
    total = call + sum(other)
    if not tokens:
        return 1.0, int(candidates[0]), load
    if temperature <= 0.0:
        first = tokens[max(range(len(other)), key=other.__getitem__)]
    else:
        weights = [p ** (1.0 / temperature) for p in other]
        first = (rng or random).choices(tokens, weights=weights)[0]
    return call / total, first, load
