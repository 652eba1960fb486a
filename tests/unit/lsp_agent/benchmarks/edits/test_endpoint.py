"""The served model: llama.cpp's llama-server with the reply cap."""

from __future__ import annotations

from pathlib import Path


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
