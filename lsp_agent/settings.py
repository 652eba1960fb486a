"""Typed settings: one object, every key with a default, read from the user's scope and `.env`.

Precedence (later wins): defaults < the user config file (`~/.config/lsp-agent/config.env`)
< `.env` in the workspace < process environment (as it was at start-up,
`safety.host_env`: never what a library loaded into it later) < editor overrides (LSP
`initializationOptions` / `workspace/configuration`, which the shipped editor clients fill
from the user's own settings only).

Security keys (`Settings.security_keys()`: where code runs, where data goes, what is allowed)
come from the user's scope only. In a workspace `.env` they are ignored, and reported as an
`IgnoredSetting`, unless the user trusted that exact file (`lsp-agent trust DIR`,
`safety.user_scope`).

A bad value never stops the program: the field keeps its default and a `SettingError`
naming the key, the value and what is allowed is returned beside the settings, so the
server can tell the editor and the CLI can print it.

This module imports nothing of the project at import time but the user scope and the
sandbox's own key definitions (`sandbox.config`, cheap), so the front ends and the agent may
read settings without pulling in pygls or models.
Components never read it: each gets its own config object built here
(`model_config()`, `telemetry_config()`, `tool_limits()`, `sandbox_config()`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dotenv import dotenv_values

from safety.host_env import user_environ
from safety.user_scope import TrustStore, user_config_file
from sandbox.config import DEFAULT as SANDBOX_DEFAULT
from sandbox.config import SandboxConfig, parse_backend, parse_text, parse_timeout_s

if TYPE_CHECKING:
    from lsp_agent.agent.telemetry import TelemetryConfig
    from lsp_agent.completion.config import CompletionConfig
    from lsp_agent.models.config import ModelConfig
    from tools.base import ToolLimits

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
AGENT_TYPES = ("tool_calling", "code")
TRUST_HINT = "run `lsp-agent trust {dir}` to trust this exact file"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class SettingError:
    """One rejected value: which key, what was given, what is allowed, where it came from."""

    key: str
    value: str
    allowed: str
    source: str

    def __str__(self) -> str:
        return (
            f"{self.key}={self.value!r} (from {self.source}) is not valid: "
            f"expected {self.allowed}. Using the default instead."
        )


@dataclass(frozen=True)
class IgnoredSetting:
    """A security key in an untrusted workspace `.env`: not applied, reported once."""

    key: str
    source: str
    directory: str

    def __str__(self) -> str:
        return (
            f"{self.key} in {self.source} is ignored: it decides where code runs, where data "
            "goes or what is allowed, and this workspace file is not trusted. Set it in your "
            "environment, your user config or your editor's user settings, or "
            + TRUST_HINT.format(dir=self.directory)
            + "."
        )


SettingProblem = SettingError | IgnoredSetting


class _Invalid(ValueError):
    """Raised by a parser; the message says what is allowed."""


def _number_in(convert: Callable[[str], Any], what: str, lo: float, hi: float) -> Any:
    def parse(raw: str) -> Any:
        try:
            value = convert(raw.strip())
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise _Invalid(f"{what} from {lo} to {hi}")
        return value

    return parse


def _int_in(lo: int, hi: int) -> Callable[[str], int]:
    parse: Callable[[str], int] = _number_in(int, "a whole number", lo, hi)
    return parse


def _float_in(lo: float, hi: float) -> Callable[[str], float]:
    parse: Callable[[str], float] = _number_in(float, "a number", lo, hi)
    return parse


def _boolean(raw: str) -> bool:
    text = raw.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise _Invalid("true or false (also 1/0, yes/no, on/off)")


def _choice(options: tuple[str, ...], *, upper: bool = False) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        text = raw.strip().upper() if upper else raw.strip().lower()
        if text not in options:
            raise _Invalid("one of " + ", ".join(options))
        return text

    return parse


def _text(raw: str) -> str:
    return raw.strip()


def _nonempty(raw: str) -> str:
    text = raw.strip()
    if not text:
        raise _Invalid("a non-empty string")
    return text


def _url_or_empty(raw: str) -> str:
    text = raw.strip()
    if text and not re.match(r"^https?://[^\s/]+", text):
        raise _Invalid("an http:// or https:// URL, or empty")
    return text.rstrip("/")


def _url(raw: str) -> str:
    text = _url_or_empty(raw)
    if not text:
        raise _Invalid("an http:// or https:// URL")
    return text


def _completion_model(raw: str) -> str:
    """Empty (completions off) or a model id one of the completion backends serves."""
    text = raw.strip()
    if not text:
        return ""
    from lsp_agent.completion.config import MODEL_ID_FORMS, CompletionModelError, backend_kind

    try:
        backend_kind(text)
    except CompletionModelError:
        raise _Invalid(MODEL_ID_FORMS) from None
    return text


def _comma_list(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


EDIT_FORMATS = ("search_replace", "unified_diff", "whole_file", "whole_function")


def _edit_formats(raw: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(part.lower() for part in _comma_list(raw)))
    if not names or any(name not in EDIT_FORMATS for name in names):
        raise _Invalid("a comma-separated list of " + ", ".join(EDIT_FORMATS))
    return names


def _field(default: Any, parse: Callable[[str], Any], doc: str, *, user_only: bool = False) -> Any:
    return field(default=default, metadata={"parse": parse, "doc": doc, "user_only": user_only})


def _user(default: Any, parse: Callable[[str], Any], doc: str) -> Any:
    """A security key: read from the user's scope (or a trusted workspace `.env`) only."""
    return _field(default, parse, doc, user_only=True)


@dataclass(frozen=True)
class Settings:
    """Every setting the project reads. Field `model_id` is read from key `MODEL_ID`, etc."""

    model_id: str = _user(
        "ollama_chat/qwen2.5-coder:14b",
        _nonempty,
        "LiteLLM model id (`ollama_chat/…`, `openai/…`), `embedded`, or `scripted:PATH`.",
    )
    model_api_base: str = _user(
        "",
        _url_or_empty,
        "Model server URL; empty means the provider's default (Ollama: http://localhost:11434).",
    )
    model_temperature: float = _field(0.1, _float_in(0.0, 2.0), "Sampling temperature.")
    model_max_tokens: int = _field(1024, _int_in(1, 32768), "Most tokens one reply may have.")
    model_num_ctx: int = _field(
        8192,
        _int_in(512, 1_048_576),
        "Context window sent to Ollama explicitly (it truncates silently otherwise).",
    )
    model_fallbacks: tuple[str, ...] = _user(
        (),
        _comma_list,
        "Comma-separated model ids tried in order when the main model fails; "
        "`ID@http://host:port/v1` names another server.",
    )
    model_constrained_calls: bool = _field(
        True,
        _boolean,
        "Constrain each reply to one valid tool call with a JSON schema (paths limited to the "
        "workspace's files, patch ids to the run's; on: Qwen2.5-Coder-1.5B through llama-server "
        "passed 17 of 22 suite runs with it, 14 without): Ollama `format`; "
        "`response_format` `json_schema` for OpenAI-compatible servers that take it "
        "(llama.cpp `llama-server`, vLLM, LM Studio); servers that refuse it get `json_object` "
        "with the calls listed in the prompt, then none (llama-cpp-python: `json_object`, "
        'ignored by its function-calling handler). See "Model servers". '
        "The embedded model always uses its grammar.",
    )
    agent_max_steps: int = _field(25, _int_in(1, 500), "Most agent steps in one job.")
    phoenix_enabled: bool = _user(True, _boolean, "Export traces to Arize Phoenix.")
    phoenix_endpoint: str = _user(
        "http://localhost:6006/v1/traces",
        _url,
        "Phoenix OTLP/HTTP traces endpoint.",
    )
    phoenix_project: str = _user("lsp-agent", _nonempty, "Phoenix project the traces go to.")
    validation_max_chars: int = _field(5000, _int_in(1, 10_000_000), "Largest tool input.")
    validation_max_lines: int = _field(200, _int_in(1, 1_000_000), "Most lines in a tool input.")
    validation_max_line_range: int = _field(
        1000,
        _int_in(1, 1_000_000),
        "Most lines one read_file call may ask for.",
    )
    truncation_max_chars: int = _field(3000, _int_in(100, 10_000_000), "Longest tool output.")
    truncation_max_lines: int = _field(150, _int_in(5, 1_000_000), "Most lines of tool output.")
    truncation_max_list_items: int = _field(100, _int_in(1, 100_000), "Most items in a list.")
    log_level: str = _field("INFO", _choice(LOG_LEVELS, upper=True), "Log level (to stderr).")
    suppress_warnings: bool = _field(True, _boolean, "Hide noisy library warnings.")
    sandbox_backend: str = _user(
        SANDBOX_DEFAULT.backend,
        parse_backend,
        "Where patches are checked: docker, local (no isolation), none; "
        "auto = docker when available, else no checks (never this machine).",
    )
    sandbox_image: str = _user(
        SANDBOX_DEFAULT.image,
        parse_text,
        "Sandbox image; empty means the versioned image `lsp-agent sandbox build` makes.",
    )
    sandbox_timeout_s: int = _user(
        int(SANDBOX_DEFAULT.timeout_s), parse_timeout_s, "Seconds one sandbox command may run."
    )
    check_command: str = _user(
        SANDBOX_DEFAULT.check_command,
        parse_text,
        "Command that checks a patch in the sandbox (e.g. `pytest -q`); empty = auto.",
    )
    policy_file: str = _user(
        "", _text, "Your own command-policy rules (TOML) over the built-in ones; may loosen them."
    )
    mcp_config: str = _user(
        "", _text, 'Path to a `{"mcpServers": {...}}` JSON file of MCP tool servers.'
    )
    agent_type: str = _user(
        "tool_calling",
        _choice(AGENT_TYPES),
        "`tool_calling` (JSON tool calls) or `code` (the model writes Python, run in the "
        "Docker sandbox; tool calling without it).",
    )
    agent_planning_interval: int = _field(
        0,
        _int_in(0, 100),
        "Plan first and again every N steps (one extra model call each); 0 = no planning.",
    )
    agent_subagents: tuple[str, ...] = _user(
        (),
        _comma_list,
        "Comma-separated helper agents the main agent may call as tools (`explorer`: read-only).",
    )
    agent_memory: bool = _user(False, _boolean, "Remember facts about the repository between jobs.")
    agent_edit_formats: tuple[str, ...] = _field(
        ("search_replace", "unified_diff"),
        _edit_formats,
        "How the agent may write changes (comma list): `search_replace` (propose_patch), "
        "`unified_diff` (propose_patch_unified), `whole_file` (propose_file: the whole new "
        "text of a file up to 200 lines), `whole_function` (propose_function: one Python "
        "function or class written anew).",
    )
    completion_model_id: str = _user(
        "",
        _completion_model,
        "Inline completions (ghost text) from this model; empty = off. `embedded[:NAME|:PATH]` "
        "(in-process, shares the agent's copy), `openai/<name>` (llama.cpp `llama-server`, "
        "its `/infill`) or `ollama/<name>`.",
    )
    completion_api_base: str = _user(
        "",
        _url_or_empty,
        "Server for inline completions; empty = the default (llama-server "
        "http://127.0.0.1:8080, Ollama http://localhost:11434).",
    )
    completion_max_tokens: int = _field(
        128, _int_in(1, 2048), "Most tokens one inline completion may have."
    )
    completion_prompt_ms: int = _field(
        0,
        _int_in(0, 600_000),
        "Time budget for reading a completion's prompt; past it the request answers nothing "
        "and the next one goes on from there (0 = no limit).",
    )
    completion_predict_ms: int = _field(
        500,
        _int_in(0, 600_000),
        "Time budget for writing a completion: past it, it ends at the next line break "
        "(0 = no limit).",
    )
    completion_debounce_ms: int = _field(
        100, _int_in(0, 10_000), "Wait this long after a keystroke before asking the model."
    )

    @staticmethod
    def env_key(name: str) -> str:
        return name.upper()

    @staticmethod
    def security_keys() -> frozenset[str]:
        """Keys only the user's scope (or a trusted workspace `.env`) may set."""
        return frozenset(
            Settings.env_key(f.name) for f in setting_fields() if f.metadata["user_only"]
        )

    # ---- each component's own config object: components never read `Settings` --------------
    def model_config(self) -> ModelConfig:
        """The model boundary's config: the MODEL_* keys."""
        from lsp_agent.models.config import ModelConfig

        # The config's fields are the MODEL_* settings, by their own names.
        names = [f.name for f in dataclasses.fields(ModelConfig)]
        return ModelConfig(**{name: getattr(self, name) for name in names})

    def telemetry_config(self) -> TelemetryConfig:
        """Tracing's config: the PHOENIX_* keys."""
        from lsp_agent.agent.telemetry import TelemetryConfig

        return TelemetryConfig(
            enabled=self.phoenix_enabled,
            endpoint=self.phoenix_endpoint,
            project=self.phoenix_project,
        )

    def tool_limits(self) -> ToolLimits:
        """The tools' input and output bounds: VALIDATION_*, TRUNCATION_*, SANDBOX_TIMEOUT_S."""
        from tools.base import ToolLimits

        return ToolLimits(
            max_input_chars=self.validation_max_chars,
            max_input_lines=self.validation_max_lines,
            max_line_range=self.validation_max_line_range,
            max_output_chars=self.truncation_max_chars,
            max_output_lines=self.truncation_max_lines,
            max_list_items=self.truncation_max_list_items,
            command_timeout_s=float(self.sandbox_timeout_s),
        )

    def completion_config(self) -> CompletionConfig:
        """The inline-completion component's own config object, built from these settings."""
        from lsp_agent.completion.config import CompletionConfig

        return CompletionConfig(
            model_id=self.completion_model_id,
            api_base=self.completion_api_base,
            max_tokens=self.completion_max_tokens,
            prompt_ms=self.completion_prompt_ms,
            predict_ms=self.completion_predict_ms,
            debounce_ms=self.completion_debounce_ms,
            agent_model_id=self.model_id,
            agent_num_ctx=self.model_num_ctx,
        )

    def sandbox_config(self) -> SandboxConfig:
        """The sandbox's own config object, built from these settings."""
        return SandboxConfig(
            backend=self.sandbox_backend,
            image=self.sandbox_image,
            timeout_s=float(self.sandbox_timeout_s),
            check_command=self.check_command,
        )


def setting_fields() -> list[dataclasses.Field[Any]]:
    return list(dataclasses.fields(Settings))


def env_keys() -> list[str]:
    return [Settings.env_key(f.name) for f in setting_fields()]


def _normalise_key(key: str) -> str:
    """`modelId`, `model_id`, `MODEL_ID` and `model-id` all name `model_id`."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).replace("-", "_")
    return snake.lower()


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def resolve(
    layers: list[tuple[str, Mapping[str, Any]]],
    base: Settings | None = None,
) -> tuple[Settings, list[SettingProblem]]:
    """Apply layers (source name, key -> value) in order over `base` (defaults if None)."""
    names = {f.name: f for f in setting_fields()}
    values: dict[str, Any] = {}
    errors: list[SettingProblem] = []
    for source, mapping in layers:
        for raw_key, raw_value in mapping.items():
            if raw_value is None:
                continue
            name = _normalise_key(str(raw_key))
            spec = names.get(name)
            if spec is None:
                continue
            text = _as_text(raw_value)
            try:
                values[name] = spec.metadata["parse"](text)
            except ValueError as exc:  # `_Invalid`, or the sandbox's parsers' ValueError
                errors.append(SettingError(Settings.env_key(name), text, str(exc), source))
    start = base if base is not None else Settings()
    return dataclasses.replace(start, **values), errors


def load_settings(
    workspace: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[Settings, list[SettingProblem]]:
    """Read the user config file, `.env` from `workspace` (if any), the environment, then
    editor overrides. Security keys of an untrusted `.env` are left out and reported."""
    env = user_environ() if environ is None else environ
    known = set(env_keys())
    layers: list[tuple[str, Mapping[str, Any]]] = []
    ignored: list[SettingProblem] = []
    user_file = user_config_file(env)
    if user_file is not None and user_file.is_file():
        layers.append((str(user_file), _read_env_file(user_file, known)))
    if workspace is not None:
        dotenv_path = workspace / ".env"
        if dotenv_path.is_file():
            file_values = _read_env_file(dotenv_path, known)
            if not TrustStore.of(env).is_trusted(dotenv_path):
                security = Settings.security_keys()
                ignored = [
                    IgnoredSetting(key, str(dotenv_path), str(workspace))
                    for key in file_values
                    if key in security
                ]
                file_values = {k: v for k, v in file_values.items() if k not in security}
            layers.append((str(dotenv_path), file_values))
    layers.append(("environment", {k: v for k, v in env.items() if k in known}))
    if overrides:
        layers.append(("editor settings", overrides))
    settings, errors = resolve(layers)
    return settings, [*ignored, *errors]


def user_scope_settings(
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings, list[SettingProblem]]:
    """The settings of the user's scope alone: user config file and environment, no workspace."""
    return load_settings(workspace=None, environ=environ)


def _read_env_file(path: Path, known: set[str]) -> dict[str, str | None]:
    return {k: v for k, v in dotenv_values(path).items() if k in known}


def describe() -> list[tuple[str, str, str, bool]]:
    """(KEY, default as text, description, user scope only) for every setting."""
    rows = []
    for f in setting_fields():
        default = _as_text(f.default) if f.default not in ("", ()) else "(empty)"
        rows.append(
            (Settings.env_key(f.name), default, str(f.metadata["doc"]), f.metadata["user_only"])
        )
    return rows


def markdown_table() -> str:
    """The settings table of docs/configuration.md, generated from the settings object."""
    lines = ["| Key | Default | Scope | Meaning |", "| --- | --- | --- | --- |"]
    for key, default, doc, user_only in describe():
        scope = "user" if user_only else "any"
        lines.append(f"| `{key}` | `{default}` | {scope} | {doc} |")
    return "\n".join(lines)


def env_example() -> str:
    """The text of `.env.example`: every key, commented out at its default."""
    out = [
        "# lsp-agent settings. Put them in ~/.config/lsp-agent/config.env (your user config),",
        "# your environment, or `.env` in your workspace; uncomment what you change.",
        "# Precedence: defaults < user config < .env < environment < editor settings.",
        "# Keys marked [user scope] are ignored in a workspace `.env` until you trust that",
        "# exact file with `lsp-agent trust DIR`.",
        "",
    ]
    for key, default, doc, user_only in describe():
        value = "" if default == "(empty)" else default
        mark = " [user scope]" if user_only else ""
        out += [f"# {doc}{mark}", f"# {key}={value}", ""]
    return "\n".join(out)
