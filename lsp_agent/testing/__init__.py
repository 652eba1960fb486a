"""Test doubles shipped with the package: a scripted endpoint, a spy tool, sample repositories.

- `ScriptedOpenAIServer(turns)`: OpenAI- and Ollama-compatible HTTP endpoint on 127.0.0.1
  that plays a script (the turn formats of `lsp_agent.models.scripted.script`);
  `python -m lsp_agent.testing serve-openai --script FILE [--port N]` runs one and prints
  its port;
- `SpyTool(name, inputs, result=..., raises=...)`;
- llama-cpp-python's real server with SmolLM2 (`llama_cpp_server`), the calc repository
  (`calc_repo`).

The scripted *model* (`MODEL_ID=scripted:PATH`) lives with the models:
`lsp_agent.models.scripted.ScriptedModel`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lsp_agent.testing.scripted_server import RecordedRequest, ScriptedOpenAIServer

if TYPE_CHECKING:
    from lsp_agent.testing.spy_tool import SpyTool

_LAZY = {"SpyTool": "lsp_agent.testing.spy_tool"}  # imports smolagents; the server does not


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RecordedRequest", "ScriptedOpenAIServer", "SpyTool"]
