"""What tests read of a compliance-suite result (`model_results` / `bench models --output`)."""

from __future__ import annotations

from typing import Any


def failures(results: dict[str, Any]) -> dict[str, str]:
    """Level key -> why its first run failed, for every level not passed in full."""
    return {
        key: level["runs_detail"][0]["reason"]
        for key, level in results["levels"].items()
        if level["pass_rate"] != 1.0
    }
