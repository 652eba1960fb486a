"""Which model every agent talks to, and the metering relay in front of it.

- `--model scripted`: lsp-agent alone, playing the example solutions (no endpoint).
- `--model openai/NAME` with `MODEL_API_BASE`: that OpenAI-compatible server, for all agents.
- `--model embedded:…`: lsp-agent runs it in-process, as `lsp-agent run` does; with peers,
  the same GGUF is also served by llama.cpp's `llama-server` (`--llama-server PATH`,
  `$LLAMA_SERVER` or on PATH; `--jinja`) on 127.0.0.1 for the peers.
- any other LiteLLM id (`ollama_chat/…`): lsp-agent alone (peers: use Ollama's `/v1` API
  as `openai/NAME`).
Every request to an endpoint goes through `ModelMeter`, which counts them; lsp-agent's
in-process model counts its own (the job's figures).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.benchmarks.edits.model_meter import ModelMeter
from lsp_agent.benchmarks.edits.ours import SCRIPTED, OurModel
from lsp_agent.benchmarks.runner import BenchError

SERVED_CONTEXT_TOKENS = 16384  # one slot; lsp-agent still keeps to its MODEL_NUM_CTX
# A reply whose request sets no limit (aider, mini-swe-agent) stops here: a whole exercise
# file is far shorter, and a 1.5B model that repeats itself would write until the context
# is full (an hour on 2 cores). lsp-agent sends its own MODEL_MAX_TOKENS (1,024).
SERVED_REPLY_TOKENS = 2048


@dataclass(frozen=True)
class Endpoint:
    ours: OurModel
    peer_model: str = ""  # the LiteLLM id the peers use (openai/NAME); "" without an endpoint
    meter: ModelMeter | None = None

    @property
    def ours_metered(self) -> bool:
        """Whether lsp-agent's requests go through the meter (not an in-process model)."""
        return self.meter is not None and bool(self.ours.api_base)


def llama_server_binary(given: Path | None) -> Path | None:
    """`--llama-server`, else `$LLAMA_SERVER`, else `llama-server` on PATH; absolute."""
    name = str(given) if given else os.environ.get("LLAMA_SERVER") or "llama-server"
    if "/" in name:
        return Path(name).expanduser().absolute()
    found = shutil.which(name)
    return Path(found) if found else None


def open_endpoint(
    stack: ExitStack,
    model_id: str,
    api_base: str,
    *,
    with_peers: bool,
    max_steps: int | None,
    llama_server: Path | None,
    log_dir: Path,
) -> Endpoint:
    """Start what the model needs (a server, the relay) on `stack`; raise BenchError if the
    peers cannot reach the model."""
    if model_id.startswith("openai/"):
        if not api_base:
            raise BenchError(f"--model {model_id} needs MODEL_API_BASE (its /v1 URL)", 2)
        return _metered(stack, model_id, api_base, max_steps)
    if not with_peers:
        return Endpoint(OurModel(model_id, max_steps=max_steps))
    if model_id == SCRIPTED or not model_id.startswith("embedded"):
        raise BenchError(
            "the peers need an OpenAI-compatible endpoint: --model openai/NAME with "
            "MODEL_API_BASE, or --model embedded:… with llama.cpp's llama-server",
            2,
        )
    return _served(stack, model_id, max_steps, llama_server, log_dir)


def _served(
    stack: ExitStack, model_id: str, max_steps: int | None, given: Path | None, log_dir: Path
) -> Endpoint:
    from lsp_agent.models.embedded.loader import embedded_gguf
    from lsp_agent.testing.llama_server import LlamaServer
    from lsp_agent.testing.server_process import ModelServerError

    gguf = embedded_gguf(model_id)
    alias = gguf.stem.lower()
    log_dir.mkdir(parents=True, exist_ok=True)
    server = LlamaServer(
        gguf,
        alias,
        binary=llama_server_binary(given),  # None: the provisioned one (llama_server_build)
        log_path=log_dir / "llama-server.log",
        context_tokens=SERVED_CONTEXT_TOKENS,
        reply_tokens=SERVED_REPLY_TOKENS,
    )
    try:
        stack.enter_context(server)
    except ModelServerError as exc:
        raise BenchError(str(exc)) from None
    served = _metered(stack, f"openai/{alias}", server.openai_base, max_steps)
    # lsp-agent runs the model in-process, as `lsp-agent run` does; the peers are served
    return dataclasses.replace(served, ours=OurModel(model_id, max_steps=max_steps))


def _metered(stack: ExitStack, model_id: str, upstream: str, max_steps: int | None) -> Endpoint:
    socket_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lsp-agent-model-")))
    socket_dir.chmod(0o755)  # the peer containers' user must reach the socket inside
    meter = stack.enter_context(ModelMeter(upstream, socket_dir))
    ours = OurModel(model_id, api_base=meter.base_url, max_steps=max_steps)
    return Endpoint(ours, peer_model=model_id, meter=meter)
