"""The scripted model (`MODEL_ID=scripted:PATH`): replies played from a script of turns.

`ScriptedModel(turns)` / `ScriptedModel.from_json(path)` answers each request with the next
turn, as a real model would (native tool calls, text, failures), and records what it was
asked. The turn formats are in `script` (pure data, shared with the scripted HTTP endpoint
of `lsp_agent.testing`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lsp_agent.models.scripted.script import (
    EXHAUSTED_ANSWER,
    ScriptedCall,
    ScriptError,
    ScriptTurn,
    exhausted_turn,
    load_script,
    parse_script,
    parse_turn,
)

if TYPE_CHECKING:
    from lsp_agent.models.scripted.model import (
        RecordedModelCall,
        ScriptedModel,
        ScriptedModelError,
    )

_LAZY = {  # these import smolagents; the scripts (and the HTTP endpoint) do not need it
    "RecordedModelCall": "lsp_agent.models.scripted.model",
    "ScriptedModel": "lsp_agent.models.scripted.model",
    "ScriptedModelError": "lsp_agent.models.scripted.model",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXHAUSTED_ANSWER",
    "RecordedModelCall",
    "ScriptError",
    "ScriptTurn",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedModelError",
    "exhausted_turn",
    "load_script",
    "parse_script",
    "parse_turn",
]
