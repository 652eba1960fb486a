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
from collections.abc import Sequence

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp import Llama

__all__ = ["choose", "continuation_logprobs", "load_prompt"]


def _last_logprobs(llama: Llama) -> npt.NDArray[np.double]:
    """Log-probabilities after the last evaluated token (llama.cpp keeps only those)."""
    pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
    logits = np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),)).astype(np.double)
    shifted = logits - float(np.max(logits))
    result: npt.NDArray[np.double] = shifted - math.log(float(np.exp(shifted).sum()))
    return result


def _truncate(llama: Llama, length: int) -> None:
    """Forget every evaluated token from `length` on (as `Llama.generate` does)."""
    llama.n_tokens = length
    llama._ctx.kv_cache_seq_rm(-1, length, -1)


def load_prompt(llama: Llama, tokens: Sequence[int]) -> None:
    """Evaluate `tokens`, reusing the cached prefix (the last logits are then theirs)."""
    cached = llama.input_ids[: llama.n_tokens].tolist()
    common = 0
    for old, new in zip(cached, tokens, strict=False):
        if old != new:
            break
        common += 1
    common = min(common, len(tokens) - 1)  # re-evaluate at least one token: fresh logits
    _truncate(llama, common)
    llama.eval(list(tokens[common:]))


def continuation_logprobs(
    llama: Llama, prompt: Sequence[int], continuations: Sequence[Sequence[int]]
) -> list[float]:
    """log P(continuation | prompt) for each token sequence (each non-empty)."""
    load_prompt(llama, prompt)
    base = len(prompt)
    stack = [_last_logprobs(llama)]  # stack[d]: log-probs at position base+d
    path: list[int] = []
    results = [0.0] * len(continuations)
    for index in sorted(range(len(continuations)), key=lambda i: list(continuations[i])):
        sequence = list(continuations[index])
        common = 0
        while common < min(len(path), len(sequence) - 1) and path[common] == sequence[common]:
            common += 1
        del path[common:], stack[common + 1 :]
        _truncate(llama, base + common)
        for token in sequence[common:-1]:
            llama.eval([token])
            path.append(token)
            stack.append(_last_logprobs(llama))
        results[index] = float(sum(stack[d][t] for d, t in enumerate(sequence)))
    return results


def choose(
    llama: Llama,
    prompt: Sequence[int],
    alternatives: Sequence[str],
    *,
    temperature: float,
    penalties: Sequence[float] | None = None,
    rng: random.Random | None = None,
) -> tuple[str, list[float]]:
    """One of `alternatives` (texts continuing `prompt`), and every alternative's log-prob.

    `penalties` (nats, one per alternative) are subtracted before choosing.
    """
    sequences = [
        llama.tokenize(a.encode("utf-8"), add_bos=False, special=False) for a in alternatives
    ]
    scores = continuation_logprobs(llama, prompt, sequences)
    if penalties is not None:
        scores = [s - p for s, p in zip(scores, penalties, strict=True)]
    if temperature <= 0.0:
        return alternatives[max(range(len(scores)), key=scores.__getitem__)], scores
    top = max(scores)
    weights = [math.exp((s - top) / temperature) for s in scores]
    picked = (rng or random).choices(range(len(alternatives)), weights=weights)[0]
    return alternatives[picked], scores
