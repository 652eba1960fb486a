"""Build the agent's model from its `ModelConfig`, and say clearly when its endpoint is unreachable.

`ready_model(config, capabilities=...)` is what a job uses: the model wrapped in `RobustModel`
(the model boundary), ready for the agent.

`MODEL_ID` forms:
- `scripted:PATH` -> `ScriptedModel.from_json(PATH)` (no network);
- `embedded`, `embedded:NAME|PATH` -> `models.embedded.model.build_embedded_model(config)`
  (imported lazily; llama.cpp in-process with grammar-constrained tool calls);
- anything else -> a LiteLLM model id (`ollama_chat/…`, `openai/…`, `anthropic/…`).

LiteLLM calls get temperature, max tokens, `max_retries=0` (failures become observations at
the model boundary, not hidden retries) and, for `ollama/` and `ollama_chat/` ids, `num_ctx`:
LiteLLM puts unknown keyword arguments into Ollama's `options`, so the request body carries
`"options": {"num_ctx": MODEL_NUM_CTX, "num_predict": ..., "temperature": ...}`.
`openai/…` with a `MODEL_API_BASE` and no `OPENAI_API_KEY` sends a placeholder key (local
OpenAI-compatible servers need none, the OpenAI client insists on one).

`MODEL_FALLBACKS` (comma list) switches to LiteLLM's Router: the main model is the first
deployment, each fallback its own group, tried in order when the main one fails (HTTP error,
unreachable, timeout). A fallback may name its server as `ID@http://host:port[/v1]`; without
one it uses `MODEL_API_BASE` when it has the same provider prefix as `MODEL_ID`, else the
provider's default.

`constrained_calls=True` (`MODEL_CONSTRAINED_CALLS`; Ollama and OpenAI-compatible ids) wraps
the model in `ToolCallFormat`: a JSON schema (Ollama's `format`, else `response_format`)
admits exactly one call of an offered tool (see `lsp_agent.models.tool_call_format` for why it is
opt-in).

A single-endpoint LiteLLM model falls back to weaker forms of `tool_choice`, `response_format`
and `parallel_tool_calls` when its server rejects them (`lsp_agent.models.capabilities`); pass
the session's `CapabilityMemory` so what one job learnt holds for the next. OpenAI-compatible
ids ask for one call per reply (`parallel_tool_calls: false`), as the agent acts on one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from lsp_agent.logging_setup import quiet_third_party_imports
from lsp_agent.models.capabilities import CapabilityMemory
from lsp_agent.models.config import OLLAMA_DEFAULT_BASE, OLLAMA_PREFIXES, ModelConfig
from lsp_agent.models.errors import ModelConfigError
from lsp_agent.models.robust import RobustModel
from safety.host_env import restore_process_environ, user_environ

quiet_third_party_imports()

OPENAI_COMPATIBLE_PREFIXES = ("openai/", "hosted_vllm/")
NO_KEY_PLACEHOLDER = "sk-no-key-required"
REACHABILITY_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class ModelEndpoint:
    """A LiteLLM model id and the server it is reached at ("" = the provider's default)."""

    model_id: str
    api_base: str = ""

    @property
    def is_ollama(self) -> bool:
        return self.model_id.startswith(OLLAMA_PREFIXES)

    @property
    def effective_base(self) -> str:
        if self.api_base:
            return self.api_base
        return OLLAMA_DEFAULT_BASE if self.is_ollama else ""


def _provider(model_id: str) -> str:
    return model_id.split("/", 1)[0] if "/" in model_id else ""


def main_endpoint(config: ModelConfig) -> ModelEndpoint:
    return ModelEndpoint(config.model_id, config.effective_api_base())


def fallback_endpoints(config: ModelConfig) -> list[ModelEndpoint]:
    """`MODEL_FALLBACKS` entries, each `ID` or `ID@http(s)://…`."""
    endpoints = []
    for entry in config.model_fallbacks:
        model_id, api_base = entry, ""
        for marker in ("@http://", "@https://"):
            if marker in entry:
                model_id, rest = entry.rsplit(marker, 1)
                api_base = marker[1:] + rest.rstrip("/")
        if not api_base and _provider(model_id) == _provider(config.model_id):
            api_base = config.model_api_base
        endpoints.append(ModelEndpoint(model_id.strip(), api_base))
    return endpoints


def litellm_params(
    endpoint: ModelEndpoint, config: ModelConfig, timeout_s: float | None = None
) -> dict[str, Any]:
    """Keyword arguments for `litellm.completion` (also a Router deployment's `litellm_params`)."""
    params: dict[str, Any] = {
        "model": endpoint.model_id,
        "temperature": config.model_temperature,
        "max_tokens": config.model_max_tokens,
        "max_retries": 0,
        # LiteLLM 1.106 imports its MCP gateway (which needs the absent `mcp` package) for every
        # request that carries tools; this documented internal switch skips that path. The pin
        # and what to re-test on upgrade: the comment above litellm in pyproject.toml.
        "_skip_mcp_handler": True,
    }
    if endpoint.api_base:
        params["api_base"] = endpoint.api_base
    if endpoint.is_ollama:
        params["num_ctx"] = config.model_num_ctx
    needs_key = endpoint.model_id.startswith("openai/") and endpoint.api_base
    if needs_key and not user_environ().get("OPENAI_API_KEY"):
        params["api_key"] = NO_KEY_PLACEHOLDER
    if timeout_s is not None:
        params["timeout"] = timeout_s
    return params


def supports_response_format(model_id: str) -> bool:
    """Providers that take a tool-call JSON schema: Ollama (as `format`) and OpenAI-compatible
    servers (`response_format`: llama.cpp's server turns it into a grammar, vLLM too)."""
    return model_id.startswith(OLLAMA_PREFIXES + OPENAI_COMPATIBLE_PREFIXES)


def is_embedded(model_id: str) -> bool:
    return model_id == "embedded" or model_id.startswith("embedded:")


def ready_model(
    config: ModelConfig, *, capabilities: CapabilityMemory | None = None, inner: Any = None
) -> RobustModel:
    """The job's model: `inner` (a model given by a test or a benchmark) or the one
    `config` names, constrained when MODEL_CONSTRAINED_CALLS says so, behind the model
    boundary. Raises `ModelConfigError` when `config` names no usable model."""
    if inner is None:
        inner = build_model(
            config, constrained_calls=config.model_constrained_calls, capabilities=capabilities
        )
    return RobustModel(inner)


def build_model(
    config: ModelConfig,
    *,
    timeout_s: float | None = None,
    constrained_calls: bool = False,
    capabilities: CapabilityMemory | None = None,
) -> Any:
    """The smolagents `Model` for `config.model_id` (`ready_model` wraps it for the agent)."""
    model_id = config.model_id
    if model_id.startswith("scripted:"):
        return _scripted_model(Path(model_id.removeprefix("scripted:")))
    if is_embedded(model_id):
        return _embedded_model(config)
    model = _litellm_model(config, timeout_s, capabilities or CapabilityMemory())
    if constrained_calls and supports_response_format(model_id):
        from lsp_agent.models.tool_call_format import ToolCallFormat

        return ToolCallFormat(model)
    return model


def _litellm_model(
    config: ModelConfig, timeout_s: float | None, capabilities: CapabilityMemory
) -> Any:
    _quiet_litellm()
    from smolagents.models import REMOVE_PARAMETER

    from lsp_agent.models.native_replay import NativeLiteLLMModel, NativeLiteLLMRouterModel

    main = main_endpoint(config)
    flatten = main.model_id.startswith("ollama")
    if not config.model_fallbacks:
        params = litellm_params(main, config, timeout_s)
        single = NativeLiteLLMModel(
            model_id=params.pop("model"),
            api_base=params.pop("api_base", None),
            api_key=params.pop("api_key", None),
            flatten_messages_as_text=flatten,
            retry=False,
            **params,
        )
        single.capabilities = capabilities.for_endpoint(main.model_id, main.effective_base)
        single.ask_single_call = main.model_id.startswith(OPENAI_COMPATIBLE_PREFIXES)
        return single
    endpoints = [main, *fallback_endpoints(config)]
    names = [main.model_id] + [f"{e.model_id}#fallback{i}" for i, e in enumerate(endpoints[1:], 1)]
    model_list = [
        {"model_name": name, "litellm_params": litellm_params(endpoint, config, timeout_s)}
        for name, endpoint in zip(names, endpoints, strict=True)
    ]
    model = NativeLiteLLMRouterModel(
        model_id=names[0],
        model_list=model_list,
        client_kwargs={"fallbacks": [{names[0]: names[1:]}], "num_retries": 0},
        flatten_messages_as_text=flatten,
        retry=False,
    )
    # smolagents passes api_base=None/api_key=None to Router.completion, which would override
    # each deployment's own values: drop them from the call.
    model.kwargs["api_base"] = REMOVE_PARAMETER
    model.kwargs["api_key"] = REMOVE_PARAMETER
    return model


def _scripted_model(path: Path) -> Any:
    from lsp_agent.models.scripted import ScriptedModel, ScriptError

    try:
        return ScriptedModel.from_json(path)
    except ScriptError as exc:
        raise ModelConfigError(f"MODEL_ID=scripted:{path}: {exc}") from exc


def _embedded_model(config: ModelConfig) -> Any:
    try:
        module = importlib.import_module("lsp_agent.models.embedded.model")
    except ImportError as exc:
        if exc.name not in (None, "lsp_agent.models.embedded.model"):
            raise ModelConfigError(
                f"MODEL_ID=embedded needs the package `{exc.name}`, which is not installed: {exc}"
            ) from exc
        raise ModelConfigError(_EMBEDDED_MISSING) from exc
    build = getattr(module, "build_embedded_model", None)
    if build is None:
        raise ModelConfigError(_EMBEDDED_MISSING)
    return build(config)


_EMBEDDED_MISSING = (
    "MODEL_ID=embedded is not available in this build "
    "(lsp_agent.models.embedded.model.build_embedded_model is missing); "
    "set MODEL_ID to an Ollama or OpenAI-compatible model instead."
)


def _quiet_litellm() -> None:
    """No "Give Feedback / Get Help" banners on stdout (it belongs to JSON-RPC)."""
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    restore_process_environ()  # in case a `.env` was loaded at import after all


def check_model_reachable(
    config: ModelConfig, *, timeout_s: float = REACHABILITY_TIMEOUT_S
) -> str | None:
    """One clear message when no configured endpoint answers; None when fine or not checkable."""
    if config.model_id.startswith("scripted:") or is_embedded(config.model_id):
        return None
    problems = []
    for endpoint in [main_endpoint(config), *fallback_endpoints(config)]:
        problem = endpoint_problem(endpoint, timeout_s)
        if problem is None:
            return None
        problems.append(problem)
    if len(problems) > 1:
        return problems[0] + " None of MODEL_FALLBACKS answered either."
    return problems[0]


def endpoint_problem(endpoint: ModelEndpoint, timeout_s: float) -> str | None:
    """Why `endpoint` cannot serve requests, or None (reachable, or not checkable offline)."""
    base = endpoint.effective_base
    if not base:
        return None
    url = f"{base}/api/tags" if endpoint.is_ollama else f"{base}/models"
    try:
        reply = httpx.get(url, timeout=timeout_s)
    except httpx.TimeoutException:
        return _unreachable(endpoint, base, f"no answer within {timeout_s:g} s")
    except httpx.HTTPError as exc:
        reason = "connection refused" if "refused" in str(exc).lower() else str(exc) or "error"
        return _unreachable(endpoint, base, reason)
    if endpoint.is_ollama and reply.status_code == 200:
        wanted = endpoint.model_id.split("/", 1)[1]
        try:
            names = {str(m.get("name", "")) for m in reply.json().get("models", [])}
        except (ValueError, AttributeError):
            return None
        if wanted not in names and f"{wanted}:latest" not in names:
            return (
                f"Ollama at {base} is running but has no model `{wanted}`. "
                f"Run `ollama pull {wanted}`, or set MODEL_ID to one of: "
                f"{', '.join(sorted(names)) or '(none pulled yet)'}."
            )
    return None


def _unreachable(endpoint: ModelEndpoint, base: str, reason: str) -> str:
    if endpoint.is_ollama:
        name = endpoint.model_id.split("/", 1)[1]
        fix = f"Start Ollama with `ollama serve` and `ollama pull {name}`"
    else:
        fix = f"Start the server for {endpoint.model_id} there"
    return f"Cannot reach the model at {base} ({reason}). {fix}, or set MODEL_ID/MODEL_API_BASE."
