"""The one error the model layer raises for a setting that cannot become a model."""

from __future__ import annotations


class ModelConfigError(ValueError):
    """The configured model cannot be built (bad script file, missing embedded backend, …)."""
