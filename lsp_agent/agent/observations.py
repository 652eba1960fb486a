"""Tool observations read back in a line: for progress, for a shortened history."""

from __future__ import annotations

import json

__all__ = ["is_error_observation", "summarize_observation"]


def summarize_observation(text: str, limit: int = 160) -> str:
    """One readable line for progress: an error's message, a patch's id and check, or
    the first line of the result."""
    stripped = text.strip()
    try:
        data = json.loads(stripped)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if "error" in data and "message" in data:
            line = str(data["message"])
        elif "patch_id" in data:
            check = str(data.get("check", "")).splitlines()[0] if data.get("check") else ""
            line = f"proposed {data['patch_id']} ({check})"
        elif "exit_code" in data:
            line = f"exit code {data['exit_code']}"
        else:
            line = stripped
    else:
        line = stripped
    first = line.splitlines()[0] if line else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def is_error_observation(text: str) -> bool:
    """True when a tool's observation is the error schema (`{"error": ..., "message": ...}`),
    also with the loop detector's `[warning]` or `[stop]` note after it."""
    try:
        data, _ = json.JSONDecoder().raw_decode(text.strip())
    except ValueError:
        return False
    return isinstance(data, dict) and "error" in data and "message" in data
