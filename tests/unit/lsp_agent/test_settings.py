"""Settings: every DESIGN key with its default, `.env`, precedence, bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_agent.settings import Settings, env_keys, load_settings

DESIGN_DEFAULTS = {
    "MODEL_ID": "ollama_chat/qwen2.5-coder:14b",
    "MODEL_TEMPERATURE": 0.1,
    "MODEL_MAX_TOKENS": 1024,
    "AGENT_MAX_STEPS": 25,
    "PHOENIX_ENDPOINT": "http://localhost:6006/v1/traces",
    "VALIDATION_MAX_CHARS": 5000,
    "VALIDATION_MAX_LINES": 200,
    "VALIDATION_MAX_LINE_RANGE": 1000,
    "TRUNCATION_MAX_CHARS": 3000,
    "TRUNCATION_MAX_LINES": 150,
    "TRUNCATION_MAX_LIST_ITEMS": 100,
    "MODEL_NUM_CTX": 8192,
}
DESIGN_KEYS_WITHOUT_FIXED_DEFAULT = {
    "MODEL_API_BASE",
    "PHOENIX_ENABLED",
    "LOG_LEVEL",
    "SUPPRESS_WARNINGS",
    "MODEL_FALLBACKS",
    "SANDBOX_BACKEND",
}


def test_every_design_key_exists() -> None:
    assert set(DESIGN_DEFAULTS) | DESIGN_KEYS_WITHOUT_FIXED_DEFAULT <= set(env_keys())


@pytest.mark.parametrize(("key", "default"), sorted(DESIGN_DEFAULTS.items()))
def test_design_defaults(key: str, default: object) -> None:
    settings, errors = load_settings(environ={})
    assert errors == []
    assert getattr(settings, key.lower()) == default


def test_sandbox_backend_default_is_auto_and_accepts_the_design_values() -> None:
    assert Settings().sandbox_backend == "auto"
    for value in ("docker", "local", "none"):
        settings, errors = load_settings(environ={"SANDBOX_BACKEND": value})
        assert (settings.sandbox_backend, errors) == (value, [])


def test_dotenv_is_read_and_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("MODEL_TEMPERATURE=0.5\nAGENT_MAX_STEPS=7\nOTHER=x\n")
    settings, errors = load_settings(workspace=tmp_path, environ={"AGENT_MAX_STEPS": "9"})
    assert errors == []
    assert settings.model_temperature == 0.5
    assert settings.agent_max_steps == 9


def test_editor_overrides_win_and_accept_camel_case(tmp_path: Path) -> None:
    settings, errors = load_settings(
        environ={"MODEL_NUM_CTX": "4096"},
        overrides={"modelNumCtx": 16384, "phoenixEnabled": False, "MODEL_FALLBACKS": ["a", "b"]},
    )
    assert errors == []
    assert settings.model_num_ctx == 16384
    assert settings.phoenix_enabled is False
    assert settings.model_fallbacks == ("a", "b")


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("AGENT_MAX_STEPS", "abc", "whole number"),
        ("MODEL_TEMPERATURE", "-3", "number from 0.0 to 2.0"),
        ("MODEL_MAX_TOKENS", "0", "whole number from 1"),
        ("PHOENIX_ENABLED", "maybe", "true or false"),
        ("LOG_LEVEL", "LOUD", "one of DEBUG"),
        ("SANDBOX_BACKEND", "podman", "one of auto, docker, local, none"),
        ("PHOENIX_ENDPOINT", "localhost:6006", "http:// or https:// URL"),
        ("MODEL_ID", "   ", "non-empty"),
    ],
)
def test_bad_value_names_key_value_and_allowed_and_keeps_default(
    key: str, value: str, allowed: str
) -> None:
    settings, errors = load_settings(environ={key: value})
    assert len(errors) == 1
    message = str(errors[0])
    assert key in message
    assert repr(value) in message
    assert allowed in message
    assert getattr(settings, key.lower()) == getattr(Settings(), key.lower())


def test_bad_value_in_dotenv_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("AGENT_MAX_STEPS=lots\n")
    _, errors = load_settings(workspace=tmp_path, environ={})
    assert [e.key for e in errors] == ["AGENT_MAX_STEPS"]
    assert str(tmp_path / ".env") in str(errors[0])


def test_effective_api_base_fills_in_ollama_default() -> None:
    assert Settings().model_config().effective_api_base() == "http://localhost:11434"
    custom = Settings(model_id="openai/x", model_api_base="http://127.0.0.1:9/v1")
    assert custom.model_config().effective_api_base() == "http://127.0.0.1:9/v1"


def test_each_component_gets_its_own_config_from_the_settings() -> None:
    settings = Settings(
        model_id="openai/m",
        model_temperature=0.5,
        model_fallbacks=("openai/b",),
        phoenix_enabled=False,
        phoenix_project="p",
        validation_max_chars=77,
        truncation_max_lines=9,
        sandbox_timeout_s=12,
    )
    model = settings.model_config()
    assert (model.model_id, model.model_temperature, model.model_fallbacks) == (
        "openai/m",
        0.5,
        ("openai/b",),
    )
    telemetry = settings.telemetry_config()
    assert (telemetry.enabled, telemetry.project) == (False, "p")
    limits = settings.tool_limits()
    assert (limits.max_input_chars, limits.max_output_lines, limits.command_timeout_s) == (
        77,
        9,
        12.0,
    )


def test_sandbox_config_carries_the_four_sandbox_settings():
    from sandbox.config import SandboxConfig

    settings = Settings(
        sandbox_backend="local", sandbox_image="img:9", sandbox_timeout_s=7, check_command="make"
    )
    assert settings.sandbox_config() == SandboxConfig("local", "img:9", 7.0, "make")
