"""The served model: llama.cpp's llama-server with the reply cap."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest


def test_the_served_model_caps_replies_that_set_no_limit() -> None:
    from lsp_agent.benchmarks.edits.endpoint import SERVED_REPLY_TOKENS
    from lsp_agent.testing.llama_server import LlamaServer

    binary = Path("/opt/llama-server")
    server = LlamaServer(Path("m.gguf"), "m", binary=binary, reply_tokens=7)
    argv = server.command()
    assert argv[0] == "/opt/llama-server" and "--jinja" in argv
    assert argv[argv.index("--n-predict") + 1] == "7"
    assert argv[argv.index("--alias") + 1] == "m"
    assert "--n-predict" not in LlamaServer(Path("m.gguf"), "m", binary=binary).command()
    assert SERVED_REPLY_TOKENS == 2048


def test_with_peers_an_embedded_model_runs_in_process_for_lsp_agent_and_served_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--model embedded:…` means for lsp-agent what it means for `lsp-agent run`: the model
    in-process; the peers reach the same GGUF through llama-server, behind the meter."""
    from lsp_agent.benchmarks.edits import endpoint
    from lsp_agent.benchmarks.edits.ours import OurModel
    from lsp_agent.models.embedded import loader
    from lsp_agent.testing import llama_server

    started: list[Path] = []

    class Server:
        openai_base = "http://127.0.0.1:9/v1"

        def __init__(self, gguf: Path, alias: str, **_: object) -> None:
            started.append(gguf)

        def __enter__(self) -> Server:
            return self

        def __exit__(self, *_: object) -> None:
            return None

    monkeypatch.setattr(loader, "embedded_gguf", lambda model_id: tmp_path / "Qwen-1.5B.gguf")
    monkeypatch.setattr(llama_server, "LlamaServer", Server)
    with ExitStack() as stack:
        served = endpoint.open_endpoint(
            stack,
            "embedded:qwen2.5-coder-1.5b",
            "",
            with_peers=True,
            max_steps=9,
            llama_server=None,
            log_dir=tmp_path,
        )
        assert started == [tmp_path / "Qwen-1.5B.gguf"]
        assert served.ours == OurModel("embedded:qwen2.5-coder-1.5b", max_steps=9)
        assert not served.ours_metered
        assert served.peer_model == "openai/qwen-1.5b"
        assert served.meter is not None and served.meter.base_url.startswith("http://127.0.0.1")
        alone = endpoint.open_endpoint(
            stack,
            "embedded:x",
            "",
            with_peers=False,
            max_steps=None,
            llama_server=None,
            log_dir=tmp_path,
        )
        assert alone.meter is None and alone.ours.model_id == "embedded:x"
        metered = endpoint.open_endpoint(
            stack,
            "openai/m",
            "http://127.0.0.1:9/v1",
            with_peers=True,
            max_steps=None,
            llama_server=None,
            log_dir=tmp_path,
        )
        assert metered.meter is not None and metered.ours_metered
        assert metered.ours.api_base == metered.meter.base_url
