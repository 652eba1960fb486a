"""Safety layer: pure, table-tested checks that keep the user safe (no LSP, no model).

Modules: ``validation`` (paths, line ranges, sizes, globs), ``truncation``, ``errors``
(tool error schema and recovery hints), ``policy/`` (shell command policy), ``approvals``
and ``run_state`` (loop detection). The main names are importable from here; they are
loaded on first use so that importing one module does not load the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CommandPolicy": "safety.policy",
    "Decision": "safety.policy",
    "Verdict": "safety.policy",
    "ValidationError": "safety.validation",
    "validate_path": "safety.validation",
    "validate_line_range": "safety.validation",
    "validate_input_size": "safety.validation",
    "validate_glob": "safety.validation",
    "truncate_output": "safety.truncation",
    "truncate_list": "safety.truncation",
    "ErrorType": "safety.errors",
    "tool_error": "safety.errors",
    "ApprovalStore": "safety.approvals",
    "ApprovalKind": "safety.approvals",
    "AgentState": "safety.run_state",
    "LoopStop": "safety.run_state",
}

__all__ = [
    "AgentState",
    "ApprovalKind",
    "ApprovalStore",
    "CommandPolicy",
    "Decision",
    "ErrorType",
    "LoopStop",
    "ValidationError",
    "Verdict",
    "tool_error",
    "truncate_list",
    "truncate_output",
    "validate_glob",
    "validate_input_size",
    "validate_line_range",
    "validate_path",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'safety' has no attribute {name!r}")
    return getattr(import_module(module), name)
