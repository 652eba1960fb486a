"""The user's environment is the start-up snapshot (safety/host_env.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from safety import host_env

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, **env: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, **env},
    )
    return out.stdout.strip()


def test_importing_lsp_agent_takes_the_snapshot_before_anything_else() -> None:
    code = (
        "import os; import lsp_agent; os.environ['LATER'] = 'x';"
        "from safety.host_env import user_environ; e = user_environ();"
        "print('LATER' in e, e.get('EARLY'))"
    )
    assert run_python(code, EARLY="y") == "False y"


def test_restore_puts_back_what_a_library_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = {"KEEP": "1", "CHANGED": "user", "GONE": "g"}
    monkeypatch.setitem(host_env._taken, "environ", snapshot)
    monkeypatch.setattr(os, "environ", {"KEEP": "1", "CHANGED": "library", "ADDED": "library"})
    assert host_env.restore_process_environ() == ["ADDED", "CHANGED", "GONE"]
    assert os.environ == snapshot


def test_own_keys_survive_a_restore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(host_env._taken, "environ", {})
    monkeypatch.setattr(os, "environ", {})
    monkeypatch.setattr(host_env, "_own", {})
    host_env.set_own("LITELLM_MODE", "PRODUCTION")
    os.environ["FROM_DOTENV"] = "x"
    assert host_env.restore_process_environ() == ["FROM_DOTENV"]
    assert os.environ == {"LITELLM_MODE": "PRODUCTION"}
