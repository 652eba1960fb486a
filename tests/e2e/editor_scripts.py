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

# A patch of two hunks in a longer file (hunk review, undo).
LONG_FILE = "pkg/long.py"
LONG = "".join(f"value_{n} = {n}\n" for n in range(1, 21))
LONG_FIRST = LONG.replace("value_2 = 2\n", "value_2 = 22\n")
LONG_BOTH = LONG_FIRST.replace("value_18 = 18\n", "value_18 = 1818\n")
TWO_HUNKS_SCRIPT: list[dict[str, Any]] = [
    {
        "tool": "propose_patch_unified",
        "arguments": {
            "diff": "--- a/pkg/long.py\n+++ b/pkg/long.py\n"
            "@@ -1,3 +1,3 @@\n value_1 = 1\n-value_2 = 2\n+value_2 = 22\n value_3 = 3\n"
            "@@ -17,3 +17,3 @@\n value_17 = 17\n-value_18 = 18\n+value_18 = 1818\n value_19 = 19\n"
        },
    },
    {"tool": "apply_patch", "arguments": {"patch_id": "p1"}},
    {"final_answer": "done"},
]
