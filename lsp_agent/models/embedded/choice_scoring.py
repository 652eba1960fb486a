"""Pick among fixed alternatives (the tool name) by the likelihood of the whole alternative.

Token-by-token constrained sampling judges an alternative by its first token only: after
`{"name": "` SmolLM2-135M gives the one-letter token `f` more weight than `prop`, so masked
sampling writes `final_answer` although the model's probability of the full text
`propose_patch",` is ten times that of `final_answer",`. Here each alternative is scored as
the sum of its tokens' log-probabilities, with the KV cache (shared prefixes are evaluated
once), best first (`best_first_logprobs`: alternatives too unlikely to matter are left at
their bound), and one is sampled at the model's temperature (the best one at temperature 0).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import llama_cpp
import numpy as np
import numpy.typing as npt

from lsp_agent.models.embedded.decoder import Decoder, PromptLoad

__all__ = ["best_first_logprobs", "choose", "continuation_logprobs", "reply_start"]

# Alternatives whose bound is this many temperatures below the best are not scored in full:
# their weight, exp(-margin / temperature), is below 1e-9.
SAMPLING_MARGIN = 21.0


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


def best_first_logprobs(
    decoder: Decoder,
    prompt: Sequence[int],
    continuations: Sequence[Sequence[int]],
    penalties: Sequence[float],
    margin: float,
) -> tuple[list[float], PromptLoad]:
    """Penalised log-probabilities of the continuations, found best first.

    A prefix's log-probability bounds every continuation that starts with it (each token
    adds a log-probability <= 0), so the search extends the continuation with the best
    bound until a finished one beats every bound left by `margin`: those left are not
    worth scoring (their value is their bound). Most tool choices are clear after the
    first token or two: a few evaluations instead of one per token of every name."""
    load = decoder.load(prompt)
    base = len(prompt)
    cache: dict[tuple[int, ...], npt.NDArray[np.double]] = {(): _last_logprobs(decoder)}
    path: list[int] = []
    sequences = [list(c) for c in continuations]
    done = [0] * len(sequences)  # tokens scored so far
    scores = [-penalty for penalty in penalties]

    def logprobs_after(prefix: tuple[int, ...]) -> npt.NDArray[np.double]:
        if prefix not in cache:
            common = 0
            while common < min(len(path), len(prefix)) and path[common] == prefix[common]:
                common += 1
            del path[common:]
            decoder.truncate(base + common)
            for token in prefix[common:]:
                decoder.llama.eval([token])
                path.append(token)
                cache[tuple(path)] = _last_logprobs(decoder)
        return cache[prefix]

    while True:
        open_ = [i for i, s in enumerate(sequences) if done[i] < len(s)]
        finished = [scores[i] for i, s in enumerate(sequences) if done[i] == len(s)]
        if not open_:
            break
        best_open = max(open_, key=scores.__getitem__)
        if finished and max(finished) >= scores[best_open] + margin:
            break
        sequence, k = sequences[best_open], done[best_open]
        scores[best_open] += float(logprobs_after(tuple(sequence[:k]))[sequence[k]])
        done[best_open] = k + 1
    return scores, load


def choose(
    decoder: Decoder,
    prompt: Sequence[int],
    alternatives: Sequence[str],
    *,
    temperature: float,
    penalties: Sequence[float] | None = None,
    rng: random.Random | None = None,
) -> tuple[str, list[float], PromptLoad]:
    """One of `alternatives` (texts continuing `prompt`), every alternative's log-prob (an
    upper bound for those too unlikely to score in full), and how the prompt was loaded.

    `penalties` (nats, one per alternative) are subtracted before choosing.
    """
    llama = decoder.llama
    sequences = [
        llama.tokenize(a.encode("utf-8"), add_bos=False, special=False) for a in alternatives
    ]
    margin = SAMPLING_MARGIN * temperature
    scores, load = best_first_logprobs(
        decoder, prompt, sequences, penalties or [0.0] * len(sequences), margin
    )
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
