"""The served model: llama.cpp's llama-server with the reply cap."""

from __future__ import annotations

from pathlib import Path


def test_the_served_model_caps_replies_that_set_no_limit() -> None:
    from lsp_agent.benchmarks.edits.endpoint import SERVED_REPLY_TOKENS
    from lsp_agent.testing.llama_cpp_server import LlamaCppServer

    server = LlamaCppServer(Path("/opt/llama-server"), Path("m.gguf"), alias="m", reply_tokens=7)
    argv = server.command()
    assert argv[0] == "/opt/llama-server" and "--jinja" in argv
    assert argv[argv.index("--n-predict") + 1] == "7"
    assert argv[argv.index("--alias") + 1] == "m"
    assert server.problem() == "no llama-server executable at /opt/llama-server"
    assert SERVED_REPLY_TOKENS == 2048
