"""Inline completions in real, headless Neovim: Neovim 0.12's own `vim.lsp.inline_completion`
and the plugin's ghost text on Neovim 0.7, both against `lsp-agent serve` and a scripted FIM
server on 127.0.0.1 (`tests.fim_stub`): the ghost text appears while typing and <Tab> accepts it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_component
from tests.e2e.test_neovim import NVIMS, PLUGIN, ROOT, nvim_version
from tests.fim_stub import FimStub, fim_stub

SCENARIO = Path(__file__).resolve().parent / "nvim" / "inline_completion.lua"
SOURCE = "import math\n\n\ndef area(radius):\n    return\n"
COMPLETION = " math.pi * radius ** 2"
TIMEOUT_S = 90


@pytest.fixture(params=NVIMS or [None], ids=lambda p: str(p) if p else "no-nvim")
def neovim(request: pytest.FixtureRequest) -> Path:
    path = request.param
    require_component("Neovim", path is not None, "install Debian's neovim and `uv sync`")
    return Path(path)


def reply(body: dict[str, Any]) -> str:
    """The rest of COMPLETION after what is typed on the line (as a FIM model would)."""
    typed = str(body.get("prompt", "")).split("return", 1)[-1]
    return COMPLETION[len(typed) :] if COMPLETION.startswith(typed) else ""


def run(nvim: Path, tmp_path: Path, stub: FimStub) -> dict[str, Any]:
    file = tmp_path / "repo" / "geo.py"
    file.parent.mkdir()
    (file.parent / ".git").mkdir()
    file.write_text(SOURCE)
    out = tmp_path / "result.json"
    settings = {
        "COMPLETION_MODEL_ID": "openai/stub",
        "COMPLETION_API_BASE": stub.url,
        "COMPLETION_DEBOUNCE_MS": 0,
        "MODEL_ID": "scripted:/nonexistent.json",
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
    }
    env = {
        **os.environ,
        "LSP_AGENT_TEST_CMD": json.dumps([sys.executable, "-m", "lsp_agent", "serve"]),
        "LSP_AGENT_TEST_SETTINGS": json.dumps(settings),
        "LSP_AGENT_TEST_FILE": str(file),
        "LSP_AGENT_TEST_LINE": "5",
        "LSP_AGENT_TEST_TYPE": " ma",
        "LSP_AGENT_TEST_EXPECT": "th.pi * radius ** 2",
        "LSP_AGENT_TEST_OUT": str(out),
        "LSP_AGENT_TEST_TIMEOUT_MS": str(TIMEOUT_S * 1000),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    argv = [str(nvim), "--headless", "-u", "NONE", "-i", "NONE"]
    argv += ["--cmd", f"set rtp^={PLUGIN}", "-c", f"luafile {SCENARIO}"]
    proc = subprocess.run(
        argv, cwd=file.parent, env=env, capture_output=True, text=True, timeout=TIMEOUT_S + 60
    )
    assert out.exists(), f"no scenario result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert result.get("ok"), (
        f"{nvim_version(nvim)}: {result.get('error')}\n{json.dumps(result)[:3000]}"
    )
    return result


def test_ghost_text_appears_while_typing_and_tab_accepts_it(neovim: Path, tmp_path: Path) -> None:
    with fim_stub(FimStub(reply)) as stub:
        result = run(neovim, tmp_path, stub)
    newer = "NVIM v0.7" not in nvim_version(neovim)
    assert result["engine"] == ("vim.lsp.inline_completion" if newer else "lsp_agent.completion")
    assert result["advertised"] is True
    assert result["line_typed"] == "    return ma"
    assert result["ghost"] == "th.pi * radius ** 2"
    assert result["line_after"] == "    return math.pi * radius ** 2"
    assert result["cursor"] == [5, len("    return math.pi * radius ** 2")]
    assert not result.get("ghost_after"), "the ghost text is gone once accepted"
    assert any(body.get("prompt", "").endswith("return ma") for _, body in stub.calls)
    deprecated = [n["msg"] for n in result["notes"] if "deprecated" in n["msg"].lower()]
    assert not deprecated, f"the plugin uses deprecated API: {deprecated}"
