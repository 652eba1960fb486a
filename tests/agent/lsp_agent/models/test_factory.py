"""build_model against scripted endpoints on 127.0.0.1: Ollama num_ctx, OpenAI-compatible
servers with native tool calls, Router fallbacks, and the start-up reachability message."""

from __future__ import annotations

import json
import socket
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from smolagents.models import ChatMessage, MessageRole

from lsp_agent.models.factory import (
    ModelConfigError,
    ModelEndpoint,
    build_model,
    check_model_reachable,
    fallback_endpoints,
    litellm_params,
)
from lsp_agent.models.scripted import ScriptedModel
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedOpenAIServer, SpyTool
from tests.conftest import free_port

USER = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "fix the bug"}])]
READ_CALL = {"tool": "read_file", "arguments": {"path": "a.py"}}


def _tools() -> list[Any]:
    return [SpyTool("read_file", {"path": "string"})]


@pytest.fixture
def closed_port() -> int:
    return free_port()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield int(sock.getsockname()[1])


def test_scripted_model_id_loads_the_script(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([READ_CALL]))
    model = build_model(Settings(model_id=f"scripted:{script}").model_config())
    assert isinstance(model, ScriptedModel)
    assert model.remaining == 1
    with pytest.raises(ModelConfigError, match="scripted:"):
        build_model(Settings(model_id=f"scripted:{tmp_path / 'missing.json'}").model_config())


def test_embedded_dispatches_lazily_and_explains_when_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "lsp_agent.models.embedded.model", None)
    with pytest.raises(ModelConfigError, match="MODEL_ID=embedded is not available"):
        build_model(Settings(model_id="embedded").model_config())
    fake = types.ModuleType("lsp_agent.models.embedded.model")
    seen: list[Any] = []
    fake.build_embedded_model = lambda config: seen.append(config) or "embedded-model"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lsp_agent.models.embedded.model", fake)
    settings = Settings(model_id="embedded")
    assert build_model(settings.model_config()) == "embedded-model"
    assert seen == [settings.model_config()]


def test_ollama_chat_sends_num_ctx_in_options() -> None:
    with ScriptedOpenAIServer([READ_CALL]) as server:
        settings = Settings(
            model_id="ollama_chat/qwen2.5-coder:14b",
            model_api_base=server.base_url,
            model_num_ctx=4096,
        )
        reply = build_model(settings.model_config()).generate(USER, tools_to_call_from=_tools())
        (body,) = server.chat_requests
    assert "/api/chat" in [request.path for request in server.requests]
    assert body["model"] == "qwen2.5-coder:14b"
    assert body["options"]["num_ctx"] == 4096
    assert body["options"]["temperature"] == 0.1
    assert body["options"]["num_predict"] == 1024
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert reply.tool_calls[0].function.name == "read_file"
    assert json.loads(reply.tool_calls[0].function.arguments) == {"path": "a.py"}
    assert reply.token_usage.input_tokens > 0


def test_litellm_params_per_provider() -> None:
    settings = Settings(model_num_ctx=16384, model_temperature=0.3, model_max_tokens=512)
    ollama = litellm_params(ModelEndpoint("ollama/llama3"), settings.model_config())
    assert ollama["num_ctx"] == 16384
    assert (ollama["temperature"], ollama["max_tokens"], ollama["max_retries"]) == (0.3, 512, 0)
    hosted = litellm_params(
        ModelEndpoint("anthropic/claude"), settings.model_config(), timeout_s=30
    )
    assert "num_ctx" not in hosted and "api_base" not in hosted and "api_key" not in hosted
    assert hosted["timeout"] == 30


def test_openai_compatible_server_full_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedOpenAIServer([{**READ_CALL, "text": "Reading it."}]) as server:
        settings = Settings(model_id="openai/scripted", model_api_base=server.openai_base)
        reply = build_model(settings.model_config()).generate(USER, tools_to_call_from=_tools())
        (body,) = server.chat_requests
    assert body["model"] == "scripted"
    assert body["temperature"] == 0.1
    assert body["max_tokens"] == 1024
    assert body["messages"][0]["role"] == "user"
    assert body["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }, "compact tool schemas: no per-argument prose"
    assert body["tool_choice"] == "required"
    assert reply.content == "Reading it."
    assert reply.tool_calls[0].function.name == "read_file"
    assert json.loads(reply.tool_calls[0].function.arguments) == {"path": "a.py"}
    assert reply.token_usage.output_tokens > 0


def test_failures_surface_without_retries_or_stdout_noise(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with ScriptedOpenAIServer([{"error": "boom", "status": 500}, {"text": "second"}]) as server:
        model = build_model(
            Settings(model_id="openai/scripted", model_api_base=server.openai_base).model_config()
        )
        with pytest.raises(Exception, match="boom"):
            model.generate(USER)
        assert len(server.chat_requests) == 1
    assert capfd.readouterr().out == ""


def test_fallback_parsing() -> None:
    settings = Settings(
        model_id="openai/main",
        model_api_base="http://127.0.0.1:1/v1",
        model_fallbacks=(
            "openai/same-server",
            "ollama_chat/qwen:7b",
            "openai/other@http://10.0.0.2:8000/v1/",
        ),
    )
    assert fallback_endpoints(settings.model_config()) == [
        ModelEndpoint("openai/same-server", "http://127.0.0.1:1/v1"),
        ModelEndpoint("ollama_chat/qwen:7b", ""),
        ModelEndpoint("openai/other", "http://10.0.0.2:8000/v1"),
    ]


def test_fallback_answers_when_the_main_endpoint_returns_500() -> None:
    main_turns = [{"error": "main is down", "status": 500}] * 3
    with ScriptedOpenAIServer(main_turns) as main, ScriptedOpenAIServer([READ_CALL] * 3) as backup:
        settings = Settings(
            model_id="openai/main",
            model_api_base=main.openai_base,
            model_fallbacks=(f"ollama_chat/backup@{backup.base_url}",),
            model_num_ctx=2048,
        )
        reply = build_model(settings.model_config()).generate(USER, tools_to_call_from=_tools())
        assert reply.tool_calls[0].function.name == "read_file"
        assert len(main.chat_requests) == 1
        (backup_body,) = backup.chat_requests
    assert backup_body["model"] == "backup"
    assert backup_body["options"]["num_ctx"] == 2048


def test_fallback_answers_when_the_main_endpoint_is_unreachable(closed_port: int) -> None:
    with ScriptedOpenAIServer([{"text": "from the fallback"}]) as backup:
        settings = Settings(
            model_id="openai/main",
            model_api_base=f"http://127.0.0.1:{closed_port}/v1",
            model_fallbacks=(f"openai/backup@{backup.openai_base}",),
        )
        reply = build_model(settings.model_config()).generate(USER)
        assert reply.content == "from the fallback"
        assert backup.chat_requests[0]["model"] == "backup"


# -- reachability ---------------------------------------------------------------------------------
def test_unreachable_ollama_names_the_url_and_the_fix(closed_port: int) -> None:
    base = f"http://127.0.0.1:{closed_port}"
    message = check_model_reachable(
        Settings(model_id="ollama_chat/qwen2.5-coder:14b", model_api_base=base).model_config()
    )
    assert message == (
        f"Cannot reach the model at {base} (connection refused). Start Ollama with "
        "`ollama serve` and `ollama pull qwen2.5-coder:14b`, or set MODEL_ID/MODEL_API_BASE."
    )


def test_unreachable_openai_server(closed_port: int) -> None:
    base = f"http://127.0.0.1:{closed_port}/v1"
    message = check_model_reachable(
        Settings(model_id="openai/local", model_api_base=base).model_config()
    )
    assert message is not None
    assert message.startswith(f"Cannot reach the model at {base} (connection refused).")
    assert "MODEL_API_BASE" in message


def test_silent_server_is_reported_after_the_timeout(silent_port: int) -> None:
    base = f"http://127.0.0.1:{silent_port}/v1"
    message = check_model_reachable(
        Settings(model_id="openai/x", model_api_base=base).model_config(), timeout_s=0.2
    )
    assert message is not None and "no answer within 0.2 s" in message


def test_ollama_without_the_model_pulled() -> None:
    with ScriptedOpenAIServer() as server:
        message = check_model_reachable(
            Settings(
                model_id="ollama_chat/qwen2.5-coder:14b", model_api_base=server.base_url
            ).model_config()
        )
        assert message is not None
        assert "has no model `qwen2.5-coder:14b`" in message
        assert "ollama pull qwen2.5-coder:14b" in message
        assert (
            check_model_reachable(
                Settings(
                    model_id="ollama_chat/scripted", model_api_base=server.base_url
                ).model_config()
            )
            is None
        )


def test_reachable_uncheckable_and_fallback_cases(closed_port: int, tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as server:
        assert (
            check_model_reachable(
                Settings(model_id="openai/x", model_api_base=server.openai_base).model_config()
            )
            is None
        )
        down = f"http://127.0.0.1:{closed_port}/v1"
        with_fallback = Settings(
            model_id="openai/x",
            model_api_base=down,
            model_fallbacks=(f"openai/y@{server.openai_base}",),
        )
        assert check_model_reachable(with_fallback.model_config()) is None
    assert (
        check_model_reachable(Settings(model_id="anthropic/claude-3-5-sonnet").model_config())
        is None
    )
    assert (
        check_model_reachable(Settings(model_id=f"scripted:{tmp_path / 's.json'}").model_config())
        is None
    )
    assert check_model_reachable(Settings(model_id="embedded").model_config()) is None
    both_down = Settings(
        model_id="openai/x",
        model_api_base=f"http://127.0.0.1:{closed_port}/v1",
        model_fallbacks=("openai/z",),
    )
    message = check_model_reachable(both_down.model_config())
    assert message is not None and "None of MODEL_FALLBACKS answered either." in message
