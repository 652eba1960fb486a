"""Warm the agent machinery up before the first job, so that job starts at once.

A job's first model request used to go out 4–5 s after `lspAgent.run`: importing
smolagents and LiteLLM, building the model client and LiteLLM's first pass through its
request path (provider config, cost map, lazy imports) all happened then. The language
server calls `warm_up` in a background thread after `initialize`, so all of that is done
while the user is still reading code. Code actions keep answering meanwhile: they run on
the event loop and need none of it.

Nothing here talks to the network: LiteLLM's request path is exercised with its own
`mock_response`, and the sandbox container is left to the first check.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from lsp_agent.logging_setup import quiet_third_party_imports
from lsp_agent.models.config import ModelConfig
from lsp_agent.settings import Settings
from safety.host_env import restore_process_environ

log = logging.getLogger(__name__)

_PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "final_answer",
        "description": "Give the answer.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
        },
    },
}


def warm_up(settings: Settings) -> float:
    """Import the runtime, set up tracing and build the model client; seconds taken."""
    started = time.monotonic()
    quiet_third_party_imports()
    from lsp_agent.agent.factory import build_agent  # noqa: F401  (the agent and its tools)
    from lsp_agent.agent.services import services
    from lsp_agent.models.factory import build_model, is_embedded

    shared = services()
    shared.start_tracing(settings.telemetry_config())  # its notice waits for the first job
    config = settings.model_config()
    if not config.model_id.startswith("scripted:"):
        build_model(
            config,
            constrained_calls=config.model_constrained_calls,
            capabilities=shared.capabilities,
        )
        if not is_embedded(config.model_id):
            _dry_litellm_request(config)
    restore_process_environ()  # what a library loaded into os.environ is not the user's
    return time.monotonic() - started


def _dry_litellm_request(config: ModelConfig) -> None:
    """One request through LiteLLM's whole request path, answered by LiteLLM itself."""
    import litellm

    from lsp_agent.models.factory import litellm_params, main_endpoint

    params = litellm_params(main_endpoint(config), config, None)
    params.pop("api_key", None)
    litellm.completion(
        messages=[{"role": "user", "content": "warm-up"}],
        tools=[_PROBE_TOOL],
        mock_response="ok",
        **params,
    )
