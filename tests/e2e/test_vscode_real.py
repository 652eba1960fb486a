"""The VS Code extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3's workbench and
extension host) driven in Debian's headless Chromium by puppeteer-core (tests/e2e/vscode/).

One code-server start serves every scenario: the module fixture builds the extension's .vsix,
installs it in a fresh profile, starts code-server on 127.0.0.1 in its own process group, runs
`tests/e2e/vscode/scenarios.js` once (it walks the scenarios in order, through the UI only) and
stops the whole group. Each test below checks one scenario's record. The model is lsp-agent's
scripted model (`scripted:PATH`); the server is this checkout's `lsp-agent serve`.

Provisioned by `.ci/provision-vscode` (Chromium, code-server under ~/.cache/lsp-agent-ci,
puppeteer-core); missing pieces skip the tests, or fail them under CI=true. On a failure the
screenshots, the driver's log and VS Code's logs (the extension's output channel is
`logs/*/exthost1/lsp-agent.lsp-agent/LSP Agent.log`) stay in the pytest tmp dir named in the
message.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port, require_component
from tests.e2e.editor_scripts import CANCEL_SCRIPT, ORIGINAL, PATCH_SCRIPT, PATCHED
from tests.fim_stub import FimStub, fim_stub

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
DRIVER_DIR = Path(__file__).resolve().parent / "vscode"
CS_VERSION = "4.100.3"
DRIVER_TIMEOUT_S = 420
SECOND_MODEL_SCRIPT: list[dict[str, Any]] = [{"final_answer": "answered by the second model"}]


def code_server_dir() -> Path:
    given = os.environ.get("LSP_AGENT_CODE_SERVER")
    if given:
        return Path(given)
    cache = Path(os.environ.get("LSP_AGENT_CI_CACHE", Path.home() / ".cache" / "lsp-agent-ci"))
    return cache / f"code-server-{CS_VERSION}"


def chromium() -> str | None:
    given = os.environ.get("LSP_AGENT_CHROME")
    if given:
        return given
    return shutil.which("chromium") or shutil.which("chromium-browser")


def lsp_agent_executable() -> Path:
    return Path(sys.executable).parent / "lsp-agent"


@dataclass
class Session:
    """What one run of the driver left: its record, and where the artifacts are."""

    results: dict[str, Any]
    out: Path
    workspace: Path
    logs: Path
    driver_log: str

    def scenario(self, name: str) -> dict[str, Any]:
        record = self.results.get(name)
        where = f"screenshots and the driver's log in {self.out}, VS Code's logs in {self.logs}"
        assert record is not None, f"scenario {name!r} did not run ({where})\n{self.driver_log}"
        assert record.get("ok"), f"scenario {name!r} failed: {record.get('error')} ({where})"
        data: dict[str, Any] = record.get("data", {})
        return data

    def extension_log(self) -> str:
        found = sorted(self.logs.glob("*/exthost*/lsp-agent.lsp-agent/LSP Agent.log"))
        return "\n".join(p.read_text(errors="replace") for p in found)


def _check_components() -> tuple[Path, str]:
    code_server = code_server_dir()
    require_component(
        f"code-server {CS_VERSION}",
        (code_server / ".installed").exists(),
        f"run .ci/provision-vscode (it installs into {code_server})",
    )
    chrome = chromium()
    require_component(
        "Chromium", chrome is not None and Path(chrome).exists(), "apt-get install chromium"
    )
    assert chrome is not None
    require_component(
        "Node.js and npm",
        shutil.which("node") is not None and shutil.which("npm") is not None,
        "apt-get install nodejs npm",
    )
    require_component(
        "puppeteer-core",
        (DRIVER_DIR / "node_modules" / "puppeteer-core" / "package.json").exists(),
        "run .ci/provision-vscode (npm ci in tests/e2e/vscode)",
    )
    require_component(
        "the extension's node_modules",
        (EXTENSION / "node_modules" / "@vscode" / "vsce").exists(),
        "run bash editors/vscode/scripts/check.sh (npm ci)",
    )
    require_component(
        "lsp-agent executable",
        lsp_agent_executable().exists(),
        f"`uv sync` (looked for {lsp_agent_executable()})",
    )
    return code_server, chrome


def _build_vsix(out: Path) -> Path:
    vsix = out / "lsp-agent.vsix"
    argv = ["npx", "--no-install", "vsce", "package", "--no-dependencies"]
    argv += ["--allow-missing-repository", "--out", str(vsix)]
    proc = subprocess.run(argv, cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"vsce package failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return vsix


def completion_reply(body: dict[str, Any]) -> str:
    """The scripted completion model: the rest of the comment the inline scenario types."""
    return "ked by lsp-agent" if str(body.get("prompt", "")).endswith("# chec") else ""


def _write_profile(base: Path, completion_url: str) -> dict[str, Path]:
    paths = {
        "workspace": base / "ws",
        "data": base / "data",
        "extensions": base / "ext",
        "scripts": base / "scripts",
        "xdg": base / "xdg",
    }
    for path in paths.values():
        path.mkdir(parents=True)
    (paths["workspace"] / "pkg").mkdir()
    (paths["workspace"] / "pkg" / "__init__.py").write_text("")
    (paths["workspace"] / "pkg" / "calc.py").write_text(ORIGINAL)
    for name, script in (
        ("patch", PATCH_SCRIPT),
        ("cancel", CANCEL_SCRIPT),
        ("second", SECOND_MODEL_SCRIPT),
    ):
        (paths["scripts"] / f"{name}.json").write_text(json.dumps(script))
    settings = {
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "workbench.enableExperiments": False,
        "workbench.tips.enabled": False,
        "editor.lightbulb.enabled": "on",
        "files.autoSave": "off",
        "lspAgent.server.command": [str(lsp_agent_executable()), "serve"],
        "lspAgent.model.id": f"scripted:{paths['scripts'] / 'patch.json'}",
        "lspAgent.phoenix.enabled": False,
        "lspAgent.sandbox.backend": "none",
        "lspAgent.completion.modelId": "openai/scripted",
        "lspAgent.completion.apiBase": completion_url,
        "lspAgent.completion.debounceMs": 0,
    }
    (paths["data"] / "User").mkdir()
    (paths["data"] / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    return paths


def _stop_group(proc: subprocess.Popen[Any]) -> None:
    """code-server keeps extension hosts (and their servers) after the page closes: end them all."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=15)


def _wait_for_health(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"code-server did not come up:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def vscode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    code_server, chrome = _check_components()
    base = tmp_path_factory.mktemp("vscode_real")
    out = base / "out"
    out.mkdir()
    completions = contextlib.ExitStack()
    stub = completions.enter_context(fim_stub(FimStub(completion_reply)))
    paths = _write_profile(base, stub.url)
    vsix = _build_vsix(base)
    entry = code_server / "out" / "node" / "entry.js"
    port = free_port()
    (base / "config.yaml").write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    argv = ["node", str(entry), "--config", str(base / "config.yaml")]
    argv += ["--user-data-dir", str(paths["data"]), "--extensions-dir", str(paths["extensions"])]
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(paths["xdg"] / "config"),
        "XDG_DATA_HOME": str(paths["xdg"] / "data"),
        "XDG_CACHE_HOME": str(paths["xdg"] / "cache"),
    }
    install = subprocess.run(
        [*argv, "--install-extension", str(vsix)], env=env, capture_output=True, timeout=120
    )
    assert install.returncode == 0, install.stderr.decode(errors="replace")[-2000:]
    log_path = out / "code-server.log"
    flags = ["--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"]
    flags += ["--disable-getting-started-override", str(paths["workspace"])]
    with open(log_path, "wb") as log_handle:
        proc = subprocess.Popen(
            [*argv, *flags],
            env=env,
            stdout=log_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for_health(url, proc, log_path)
        spec = {
            "url": f"{url}/?folder={paths['workspace']}",
            "out": str(out),
            "chrome": chrome,
            "file": str(paths["workspace"] / "pkg" / "calc.py"),
            "original": ORIGINAL,
            "patched": PATCHED,
            "scripts": {p.stem: str(p) for p in paths["scripts"].glob("*.json")},
            "settingsFile": str(paths["data"] / "User" / "settings.json"),
        }
        driver_log = _run_driver(spec, out)
        results_path = out / "results.json"
        results = json.loads(results_path.read_text()) if results_path.exists() else {}
    finally:
        _stop_group(proc)
        completions.close()
    yield Session(
        results=results,
        out=out,
        workspace=paths["workspace"],
        logs=paths["data"] / "logs",
        driver_log=driver_log[-4000:],
    )


def _run_driver(spec: dict[str, Any], out: Path) -> str:
    """Runs scenarios.js in its own process group (it and its Chromium end together)."""
    driver = subprocess.Popen(
        ["node", str(DRIVER_DIR / "scenarios.js")],
        cwd=DRIVER_DIR,
        env={**os.environ, "LSP_AGENT_E2E": json.dumps(spec)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = driver.communicate(timeout=DRIVER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _stop_group(driver)
        output = (driver.stdout.read() if driver.stdout else "") + "\n(the driver timed out)"
    finally:
        _stop_group(driver)
    (out / "driver.log").write_text(output)
    return output


def test_activation_starts_the_server_and_the_status_bar_says_idle(vscode: Session) -> None:
    data = vscode.scenario("activation")
    assert "idle" in data["status"]
    assert "initialize: root=" in vscode.extension_log()


def test_ghost_text_is_accepted_with_tab_and_the_status_bar_toggles_completions(
    vscode: Session,
) -> None:
    data = vscode.scenario("inline_completion")
    assert "ked by lsp-agent" in data["ghost"]
    assert data["disk_after"] == PATCHED
    assert data["toggle"] == ["on", "off", "on"]
    assert data["setting_off"] is False


def test_lightbulb_action_runs_the_agent_and_accept_applies_in_one_click(
    vscode: Session,
) -> None:
    data = vscode.scenario("lightbulb_accept")
    assert "Agent: refactor selection" in data["actions"]
    invoked = " | ".join(data["invoked"])
    for title in ("Agent: explain", "Agent: write a test for this function", "Agent: ask…"):
        assert title in invoked, f"Ctrl+. lacks {title!r}: {invoked}"

    assert data["question"].startswith("LSP Agent: apply the agent's patch to pkg/calc.py?")
    assert data["buttons"] == ["Accept", "Review hunks…", "Reject"]
    assert data["diff_right"].count("# checked by lsp-agent") == 1
    assert data["disk_after"] == PATCHED
    assert "done" in data["status_after"]


def test_palette_task_then_review_hunks_applies_the_ticked_hunks(vscode: Session) -> None:
    data = vscode.scenario("palette_review")
    assert data["checkboxes_before"] and not any(data["checkboxes_before"]), (
        "VS Code's Refactor Preview starts with the hunks unticked"
    )
    assert all(data["checkboxes_ticked"])
    assert data["disk_after"] == PATCHED


def test_reject_leaves_the_file_byte_identical_and_the_agent_is_told(vscode: Session) -> None:
    data = vscode.scenario("reject")
    assert data["disk_after"] == ORIGINAL
    assert data["disk_after_bytes_equal"] is True
    assert "[rejected]" in vscode.extension_log()


def test_apply_with_nothing_ticked_is_not_a_silent_rejection(vscode: Session) -> None:
    data = vscode.scenario("empty_preview")
    assert data["warning"].startswith("Nothing was applied: no change was ticked")
    assert data["warning_buttons"] == ["Accept", "Review hunks…", "Reject"]
    assert data["disk_after_bytes_equal"] is True


def test_cancel_from_the_status_bar_stops_the_job(vscode: Session) -> None:
    data = vscode.scenario("cancel")
    assert data["status_running"].startswith("Agent: ")
    assert "cancelled" in data["status_after"]
    assert data["review_opened"] is False
    assert data["disk_after_bytes_equal"] is True


def test_a_user_setting_reaches_the_server(vscode: Session) -> None:
    data = vscode.scenario("setting")
    assert "answered by the second model" in data["answer"]
    log = vscode.extension_log()
    assert "model=scripted:" in log and "patch.json" in log, "the model id at initialize"
