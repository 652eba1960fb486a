"""Fixtures of the compliance-suite tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def offline_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`lsp-agent bench models` run in `tmp_path` (returned), no Phoenix, no sandbox."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PHOENIX_ENABLED", raising=False)
    monkeypatch.setenv("SANDBOX_BACKEND", "none")
    return tmp_path
