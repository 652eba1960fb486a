"""Test doubles shipped with the package: a scripted model, a spy tool, a scripted endpoint.

- `ScriptedModel(turns)` / `ScriptedModel.from_json(path)` (`MODEL_ID=scripted:PATH`);
- `SpyTool(name, inputs, result=..., raises=...)`;
- `ScriptedOpenAIServer(turns)`: OpenAI- and Ollama-compatible HTTP endpoint on 127.0.0.1;
  `python -m lsp_agent.testing serve-openai --script FILE [--port N]` runs one and prints its port.

Turn formats are described in `lsp_agent.testing.script`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lsp_agent.testing.script import (
    EXHAUSTED_ANSWER,
    ScriptedCall,
    ScriptError,
    ScriptTurn,
    load_script,
    parse_script,
    parse_turn,
)
from lsp_agent.testing.scripted_server import RecordedRequest, ScriptedOpenAIServer

if TYPE_CHECKING:
    from lsp_agent.testing.scripted_model import (
        RecordedModelCall,
        ScriptedModel,
        ScriptedModelError,
    )
    from lsp_agent.testing.spy_tool import SpyTool

_LAZY = {  # these import smolagents; the HTTP server (and its CLI) does not need it
    "RecordedModelCall": "lsp_agent.testing.scripted_model",
    "ScriptedModel": "lsp_agent.testing.scripted_model",
    "ScriptedModelError": "lsp_agent.testing.scripted_model",
    "SpyTool": "lsp_agent.testing.spy_tool",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXHAUSTED_ANSWER",
    "RecordedModelCall",
    "RecordedRequest",
    "ScriptError",
    "ScriptTurn",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedModelError",
    "ScriptedOpenAIServer",
    "SpyTool",
    "load_script",
    "parse_script",
    "parse_turn",
]
