"""The demo's server environment: greedy unless the user chose a temperature."""

from __future__ import annotations

import pytest

from lsp_agent.demo.run import server_environment


def test_the_demo_decodes_greedily_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MODEL_TEMPERATURE", raising=False)
    env = server_environment("embedded")
    assert env["MODEL_ID"] == "embedded"
    assert env["MODEL_TEMPERATURE"] == "0"


def test_a_temperature_the_user_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_TEMPERATURE", "0.7")
    assert server_environment("embedded")["MODEL_TEMPERATURE"] == "0.7"
