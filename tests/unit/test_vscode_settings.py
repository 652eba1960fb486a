"""The VS Code extension's settings agree with the server's `Settings`.

`editors/vscode/settings-map.json` is generated from `editors/vscode/src/settingsMap.ts` (the
extension's one list of settings; its build fails when the JSON or package.json is stale). This
test fails when the server and the extension drift apart: a mapped key the server does not know,
a user-facing server setting with no VS Code setting, or a different type, default, choice list
or range.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from lsp_agent.settings import (
    AGENT_TYPES,
    LOG_LEVELS,
    Settings,
    env_keys,
    load_settings,
    resolve,
    setting_fields,
)
from sandbox.config import BACKENDS as SANDBOX_BACKENDS

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"
SETTINGS_MAP: dict[str, Any] = json.loads((VSCODE / "settings-map.json").read_text("utf-8"))
PACKAGE: dict[str, Any] = json.loads((VSCODE / "package.json").read_text("utf-8"))
ENTRIES: list[dict[str, Any]] = SETTINGS_MAP["serverSettings"]
BY_KEY = {entry["serverKey"]: entry for entry in ENTRIES}
FIELDS = {f.name: f for f in setting_fields()}

# Server settings deliberately not offered as VS Code settings: internal tuning knobs and the
# sandbox image. Users set them in their environment or user config (`.env` for the harmless ones).
NOT_IN_VSCODE = {
    "suppress_warnings",
    "validation_max_chars",
    "validation_max_lines",
    "validation_max_line_range",
    "truncation_max_chars",
    "truncation_max_lines",
    "truncation_max_list_items",
    "sandbox_image",
}

# Fields whose value is one of a fixed list (the VS Code setting is an enum of the same list).
CHOICES: dict[str, tuple[str, ...]] = {
    "sandbox_backend": SANDBOX_BACKENDS,
    "log_level": LOG_LEVELS,
    "agent_type": AGENT_TYPES,
}

# Python annotation (a string: the module uses `from __future__ import annotations`) -> JSON type.
JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "tuple[str, ...]": "array",
}


def field_of(entry: dict[str, Any]) -> dataclasses.Field[Any]:
    return FIELDS[entry["serverKey"].lower()]


def as_json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


# The sandbox's keys are parsed by the sandbox's own rules (`sandbox.config`).
SANDBOX_PARSERS = {"parse_backend": "_choice", "parse_timeout_s": "_int_in"}


def parser_kind(name: str) -> str:
    """`_int_in`, `_float_in`, `_choice`, ... : which factory made the field's parser."""
    parse = FIELDS[name].metadata["parse"]
    kind = str(parse.__qualname__).split(".")[0]
    if kind == "_number_in":  # `_int_in` and `_float_in` make their parsers with it
        return "_int_in" if FIELDS[name].type == "int" else "_float_in"
    return SANDBOX_PARSERS.get(kind, kind)


def test_map_is_for_the_lsp_agent_section() -> None:
    assert SETTINGS_MAP["section"] == "lspAgent"
    assert all(entry["setting"].startswith("lspAgent.") for entry in ENTRIES)


def test_every_mapped_key_is_a_server_setting() -> None:
    unknown = sorted(set(BY_KEY) - set(env_keys()))
    assert unknown == [], f"mapped to keys the server does not have: {unknown}"
    assert len(BY_KEY) == len(ENTRIES), "a server key is mapped twice"


def test_every_user_facing_server_setting_has_a_vscode_setting() -> None:
    mapped = {key.lower() for key in BY_KEY}
    missing = sorted(set(FIELDS) - mapped - NOT_IN_VSCODE)
    assert missing == [], (
        f"Settings fields with no VS Code setting: {missing}. Add them to "
        "editors/vscode/src/settingsMap.ts (then `npm run settings-map`) or to NOT_IN_VSCODE here."
    )


def test_exclusions_are_real_and_not_mapped() -> None:
    assert sorted(NOT_IN_VSCODE - set(FIELDS)) == [], "NOT_IN_VSCODE names a field that is gone"
    assert sorted(NOT_IN_VSCODE & {key.lower() for key in BY_KEY}) == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["serverKey"])
def test_type_and_default_match(entry: dict[str, Any]) -> None:
    field = field_of(entry)
    assert JSON_TYPES[str(field.type)] == entry["type"]
    assert entry["default"] == as_json(field.default)
    assert type(entry["default"]) is type(as_json(field.default))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["serverKey"])
def test_choices_match(entry: dict[str, Any]) -> None:
    name = entry["serverKey"].lower()
    if name in CHOICES:
        assert entry.get("enum") == list(CHOICES[name])
    else:
        assert "enum" not in entry


def test_security_keys_are_user_scope_settings_with_application_scope() -> None:
    """A repository's `.vscode/settings.json` cannot set a security key: those settings are
    `application` scoped and the extension sends only their user (global) value."""
    security = Settings.security_keys()
    for entry in ENTRIES:
        assert entry["userScope"] is (entry["serverKey"] in security), entry["serverKey"]
    properties = PACKAGE["contributes"]["configuration"]["properties"]
    for entry in ENTRIES:
        scope = properties[entry["setting"]]["scope"]
        assert (scope == "application") is entry["userScope"], entry["setting"]


def test_choice_fields_are_the_known_ones() -> None:
    choice_fields = {name for name in FIELDS if parser_kind(name) == "_choice"}
    assert choice_fields == set(CHOICES)


@pytest.mark.parametrize(
    "entry",
    [e for e in ENTRIES if e["type"] in ("integer", "number")],
    ids=lambda e: e["serverKey"],
)
def test_numeric_ranges_match(entry: dict[str, Any]) -> None:
    key = entry["serverKey"]
    assert parser_kind(key.lower()) in ("_int_in", "_float_in")
    lo, hi = entry["minimum"], entry["maximum"]
    step = 1 if entry["type"] == "integer" else 0.001
    for inside in (lo, hi):
        _, errors = resolve([("editor", {key: inside})])
        assert errors == [], f"{key}={inside} is in the VS Code range but the server rejects it"
    for outside in (lo - step, hi + step):
        _, errors = resolve([("editor", {key: outside})])
        assert errors != [], f"{key}={outside} is outside the VS Code range but the server takes it"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["serverKey"])
def test_package_json_contributes_the_same_schema(entry: dict[str, Any]) -> None:
    prop = PACKAGE["contributes"]["configuration"]["properties"][entry["setting"]]
    assert prop["type"] == entry["type"]
    assert prop["default"] == entry["default"]
    assert prop.get("enum") == entry.get("enum")
    assert prop.get("minimum") == entry.get("minimum")
    assert prop.get("maximum") == entry.get("maximum")


def test_client_only_settings_are_not_server_keys() -> None:
    properties = PACKAGE["contributes"]["configuration"]["properties"]
    assert set(properties) == {e["setting"] for e in ENTRIES} | set(SETTINGS_MAP["clientSettings"])
    for setting in SETTINGS_MAP["clientSettings"]:
        name = setting.removeprefix("lspAgent.").replace(".", "_").lower()
        assert name not in FIELDS


def test_values_as_the_editor_sends_them_are_accepted() -> None:
    """Defaults and sample values, in the JSON form the extension sends, parse without error."""
    payload = {entry["serverKey"]: entry["default"] for entry in ENTRIES}
    settings, errors = load_settings(environ={}, overrides=payload)
    assert errors == []
    assert settings == Settings()
    sample = {
        "MODEL_FALLBACKS": ["openai/a@http://127.0.0.1:8000/v1", "ollama_chat/b"],
        "PHOENIX_ENABLED": False,
        "MODEL_TEMPERATURE": 0,
        "SANDBOX_BACKEND": "local",
        "LOG_LEVEL": "DEBUG",
    }
    settings, errors = load_settings(environ={}, overrides=sample)
    assert errors == []
    assert settings.model_fallbacks == ("openai/a@http://127.0.0.1:8000/v1", "ollama_chat/b")
    assert (settings.phoenix_enabled, settings.model_temperature) == (False, 0.0)
    assert (settings.sandbox_backend, settings.log_level) == ("local", "DEBUG")


def test_null_for_an_unset_vscode_setting_keeps_the_environment_value() -> None:
    """The extension sends `null` for settings the user left alone: `.env`/environment win."""
    payload: dict[str, Any] = {entry["serverKey"]: None for entry in ENTRIES}
    settings, errors = load_settings(
        environ={"MODEL_ID": "openai/from-env", "AGENT_MAX_STEPS": "7"}, overrides=payload
    )
    assert errors == []
    assert (settings.model_id, settings.agent_max_steps) == ("openai/from-env", 7)
