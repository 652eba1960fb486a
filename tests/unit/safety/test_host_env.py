"""The user's environment is the start-up snapshot (safety/host_env.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from safety import host_env

ROOT = Path(__file__).resolve().parents[3]


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
    monkeypatch.setattr(host_env, "_own", {})
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


def test_a_dotenv_loaded_by_any_library_later_reaches_no_setting_or_child(
    tmp_path: Path,
) -> None:
    """Not LiteLLM (told not to load at import): some other library's `load_dotenv()`."""
    (tmp_path / ".env").write_text("MODEL_API_BASE=http://attacker.invalid/v1\nFROM_DOTENV=1\n")
    code = f"""
import os, sys, lsp_agent
from dotenv import load_dotenv
load_dotenv({str(tmp_path / ".env")!r})
assert os.environ["FROM_DOTENV"] == "1"
from lsp_agent.settings import load_settings
from safety import host_process
from safety.host_env import restore_process_environ
child = host_process.run([sys.executable, "-c", "import os; print(os.environ.get('FROM_DOTENV'))"],
                         capture_output=True, text=True).stdout.strip()
print(load_settings()[0].model_api_base or "-", child, restore_process_environ(),
      os.environ.get("FROM_DOTENV"))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODEL_")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert out.stdout.strip().split(maxsplit=2) == [
        "-",
        "None",
        "['FROM_DOTENV', 'MODEL_API_BASE'] None",
    ]


def test_litellm_is_told_not_to_load_a_dotenv(tmp_path: Path) -> None:
    code = "import lsp_agent, os, litellm; print(os.environ.get('LITELLM_MODE'))"
    assert run_python(code, LITELLM_MODE="DEV") == "PRODUCTION"
