"""The model script and file contents both real-editor tests (VS Code, Neovim) use."""

from __future__ import annotations

from typing import Any

ORIGINAL = "def add(a, b):\n    return a + b\n"
PATCHED = "def add(a, b):\n    return a + b  # checked by lsp-agent\n"

PATCH_SCRIPT: list[dict[str, Any]] = [
    {
        "tool": "propose_patch",
        "arguments": {
            "path": "pkg/calc.py",
            "old": "    return a + b\n",
            "new": "    return a + b  # checked by lsp-agent\n",
        },
    },
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"final_answer": "done"},
]
# The first model reply comes late, so the job is still running when it is cancelled.
CANCEL_SCRIPT: list[dict[str, Any]] = [{**PATCH_SCRIPT[0], "delay_s": 4}, *PATCH_SCRIPT[1:]]
