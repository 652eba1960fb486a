"""`SandboxConfig`: the four settings the sandbox reads, each parsed by the one rule here.

`SANDBOX_BACKEND`, `SANDBOX_IMAGE`, `SANDBOX_TIMEOUT_S` and `CHECK_COMMAND`: their defaults
and parsers (`SANDBOX_KEYS`) are defined here and nowhere else; `lsp_agent.settings.Settings`
declares its four sandbox fields with them and builds the config with
`Settings.sandbox_config()`. With no config, `open_sandbox` uses
`SandboxConfig.from_user_scope()`: the user's environment and user config file
(`~/.config/lsp-agent/config.env`), never a repository's `.env` (an opened repository is
untrusted and must not choose where code runs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dotenv import dotenv_values

from safety.host_env import user_environ
from safety.user_scope import user_config_file

logger = logging.getLogger(__name__)

BACKENDS = ("auto", "docker", "local", "none")
TIMEOUT_RANGE = (1, 3600)


def parse_backend(raw: str) -> str:
    """SANDBOX_BACKEND: one of `BACKENDS` (any case). Raises ValueError naming them."""
    text = raw.strip().lower()
    if text not in BACKENDS:
        raise ValueError("one of " + ", ".join(BACKENDS))
    return text


def parse_timeout_s(raw: str) -> int:
    """SANDBOX_TIMEOUT_S: whole seconds within `TIMEOUT_RANGE`. Raises ValueError."""
    low, high = TIMEOUT_RANGE
    text = raw.strip()
    if text.isascii() and text.isdigit() and low <= int(text) <= high:
        return int(text)
    raise ValueError(f"a whole number from {low} to {high}")


def parse_text(raw: str) -> str:
    """SANDBOX_IMAGE, CHECK_COMMAND: any text, trimmed."""
    return raw.strip()


@dataclass(frozen=True)
class SandboxConfig:
    """Where patches are checked and how.

    `backend`: auto (docker when available, else none: never the host), docker, local
    (no isolation; only when the user chose it), none.
    `image`: empty means the versioned image `lsp-agent sandbox build` makes.
    `timeout_s`: seconds one sandbox command may run.
    `check_command`: the command that checks a patch (shell words); empty means auto.
    """

    backend: str = "auto"
    image: str = ""
    timeout_s: float = 30.0
    check_command: str = ""

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"sandbox backend {self.backend!r} is not one of {BACKENDS}")
        low, high = TIMEOUT_RANGE
        if not low <= float(self.timeout_s) <= high:
            raise ValueError(f"sandbox timeout {self.timeout_s} is not in {low}..{high} s")

    @classmethod
    def from_user_scope(cls, environ: Mapping[str, str] | None = None) -> SandboxConfig:
        """The user config file's keys, then the environment's over them."""
        env = user_environ() if environ is None else environ
        merged: dict[str, str] = {}
        path = user_config_file(env)
        if path is not None and path.is_file():
            merged.update({k: v for k, v in dotenv_values(path).items() if v is not None})
        merged.update(env)
        return cls.from_environment(merged)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> SandboxConfig:
        """The four keys from `environ`. A bad value keeps the default and is logged (it
        never stops the program)."""
        env = user_environ() if environ is None else environ
        values: dict[str, object] = {}
        for name, (key, parse) in SANDBOX_KEYS.items():
            raw = env.get(key)
            if raw is None:
                continue
            try:
                values[name] = parse(raw)
            except ValueError as exc:
                logger.warning("%s=%r is not valid: expected %s; using the default", key, raw, exc)
        return cls(**values)  # type: ignore[arg-type]


DEFAULT = SandboxConfig()
# Field -> (key, parser): the one definition of the sandbox's settings.
SANDBOX_KEYS: dict[str, tuple[str, Callable[[str], object]]] = {
    "backend": ("SANDBOX_BACKEND", parse_backend),
    "image": ("SANDBOX_IMAGE", parse_text),
    "timeout_s": ("SANDBOX_TIMEOUT_S", parse_timeout_s),
    "check_command": ("CHECK_COMMAND", parse_text),
}
