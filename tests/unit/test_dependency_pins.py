"""Pinned dependencies and their workarounds are written down next to the pins, and the
notes stay true: when a pin moves, a test here fails and says what to re-test."""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import tomllib
from pathlib import Path

from lsp_agent.cli import phoenix_server
from lsp_agent.models.factory import ModelEndpoint, litellm_params
from lsp_agent.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
REQUIREMENTS = ROOT / "lsp_agent" / "cli" / "phoenix-requirements.txt"


def comment_above(text: str, line_start: str) -> str:
    """The block of `#` comment lines right above the line starting with `line_start`."""
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip().startswith(line_start))
    block: list[str] = []
    for line in reversed(lines[:index]):
        if not line.strip().startswith("#"):
            break
        block.insert(0, line.strip().lstrip("#").strip())
    return " ".join(block)


def locked_version(name: str) -> str:
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    return next(str(p["version"]) for p in lock["package"] if p["name"] == name)


def test_litellm_pin_names_its_workaround_and_the_workaround_is_in_place() -> None:
    note = comment_above(PYPROJECT.read_text(encoding="utf-8"), '"litellm')
    locked = locked_version("litellm")
    minor = ".".join(locked.split(".")[:2])
    assert f"PIN litellm {minor}.x" in note, f"uv.lock has litellm {locked}: update the note"
    assert "_skip_mcp_handler" in note and "lsp_agent/models/factory.py" in note
    assert importlib.metadata.version("litellm") == locked
    params = litellm_params(
        ModelEndpoint("openai/x", "http://127.0.0.1:9/v1"), Settings().model_config()
    )
    assert params["_skip_mcp_handler"] is True, "the note describes a switch that is gone"


def test_openai_pin_is_written_down_with_its_reason() -> None:
    note = comment_above(PYPROJECT.read_text(encoding="utf-8"), '"litellm')
    locked = locked_version("openai")
    assert f"openai {locked}" in note, f"uv.lock has openai {locked}: update the note"
    assert "openai>=2.20,<3" in note and "phoenix-requirements.txt" in note
    assert importlib.metadata.version("openai") == locked
    litellm_requires = importlib.metadata.requires("litellm") or []
    wanted = re.compile(r"openai\s*(<3\.0\.0,\s*>=2\.20\.0|>=2\.20\.0,\s*<3)")
    assert any(wanted.match(r) for r in litellm_requires), litellm_requires


def test_phoenix_environment_pin_is_written_down() -> None:
    text = REQUIREMENTS.read_text(encoding="utf-8")
    pins = dict(
        line.split(";")[0].strip().split("==", 1)
        for line in text.splitlines()
        if line and not line.startswith("#")
    )
    header = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    phoenix = ".".join(pins["arize-phoenix"].split(".")[:2])
    assert f"arize-phoenix {phoenix} needs openai>=3" in header
    assert int(pins["openai"].split(".")[0]) >= 3, "the reason for a separate environment"
    assert "lsp_agent/cli/phoenix-requirements.txt" in comment_above(
        PYPROJECT.read_text(encoding="utf-8"), '"arize-phoenix-otel'
    )


def test_comments_do_not_rename_the_phoenix_environment() -> None:
    requirement_lines = "".join(
        line
        for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines(keepends=True)
        if not line.startswith("#")
    )
    digest = hashlib.sha256(requirement_lines.encode()).hexdigest()[:12]
    assert phoenix_server.environment_dir().name == f"phoenix-env-{digest}"


def test_the_mcp_switch_is_still_needed_with_the_installed_mcp() -> None:
    """LiteLLM 1.106's MCP client does not import with our `mcp` 1.x: the switch stays.
    When this fails, the gateway imports again: re-test without `_skip_mcp_handler`."""
    import pytest

    assert importlib.metadata.version("mcp").startswith("1.")
    with pytest.raises(ImportError, match=r"cannot import name .* from 'mcp"):
        importlib.import_module("litellm.experimental_mcp_client.client")
