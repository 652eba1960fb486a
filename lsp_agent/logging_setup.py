"""Logging to stderr (and optionally a file); never to stdout, which belongs to JSON-RPC."""

from __future__ import annotations

import importlib.util
import logging
import sys
import warnings
from pathlib import Path

from safety.host_env import set_own, user_environ

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_NOISY_LOGGERS = (
    "pygls",
    "LiteLLM",
    "litellm",
    "httpx",
    "httpcore",
    "docker",
    "urllib3",
    "smolagents",
)


def quiet_third_party_imports() -> None:
    """Environment switches that must be set before heavy libraries are imported.

    LiteLLM otherwise fetches a remote price map at import time (slow, and offline it
    retries for seconds); Hugging Face libraries otherwise try the hub.
    """
    set_own("LITELLM_LOCAL_MODEL_COST_MAP", "True", default_only=True)
    set_own("HF_HUB_OFFLINE", "1", default_only=True)
    set_own("TOKENIZERS_PARALLELISM", "false", default_only=True)
    set_own("LITELLM_MODE", "PRODUCTION")  # no `.env` loaded at import (lsp_agent/__init__.py)
    # LiteLLM sets TIKTOKEN_CACHE_DIR at import to its bundled tokenizers (or the user's
    # CUSTOM_TIKTOKEN_CACHE_DIR): the same value, ours, so it is not "changed after start-up".
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
        custom = user_environ().get("CUSTOM_TIKTOKEN_CACHE_DIR")
        set_own("TIKTOKEN_CACHE_DIR", custom or str(bundled))


def configure_logging(
    level: str = "INFO",
    log_file: Path | None = None,
    *,
    suppress_warnings: bool = True,
) -> None:
    """Send every log record to stderr (and `log_file`), at `level`."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        handler.setFormatter(logging.Formatter(_FORMAT))
        root.addHandler(handler)
    root.setLevel(level)
    noisy_level = logging.WARNING if suppress_warnings else logging.getLevelName(level)
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(noisy_level)
    logging.captureWarnings(True)
    if suppress_warnings:
        warnings.simplefilter("ignore")
