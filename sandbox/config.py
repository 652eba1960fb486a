"""`SandboxConfig`: the four settings the sandbox reads, and how to read them from the user.

The agent runtime builds one from its settings (`lsp_agent.settings.Settings.sandbox_config`).
With no config, `open_sandbox` uses `SandboxConfig.from_user_scope()`: the user's
environment and user config file (`~/.config/lsp-agent/config.env`), never a repository's
`.env` (an opened repository is untrusted and must not choose where code runs).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from dotenv import dotenv_values

from safety.host_env import user_environ
from safety.user_scope import user_config_file

logger = logging.getLogger(__name__)

BACKENDS = ("auto", "docker", "local", "none")
TIMEOUT_RANGE = (1.0, 3600.0)


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
            raise ValueError(f"sandbox timeout {self.timeout_s} is not in {low:g}..{high:g} s")

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
        """SANDBOX_BACKEND, SANDBOX_IMAGE, SANDBOX_TIMEOUT_S and CHECK_COMMAND from `environ`.

        A bad value keeps the default and is logged (it never stops the program).
        """
        env = user_environ() if environ is None else environ
        default = cls()
        backend = env.get("SANDBOX_BACKEND", default.backend).strip().lower() or default.backend
        if backend not in BACKENDS:
            logger.warning("SANDBOX_BACKEND=%r is not one of %s; using auto", backend, BACKENDS)
            backend = default.backend
        timeout_s = default.timeout_s
        raw_timeout = env.get("SANDBOX_TIMEOUT_S", "").strip()
        if raw_timeout:
            try:
                timeout_s = float(raw_timeout)
            except ValueError:
                timeout_s = -1.0
            if not TIMEOUT_RANGE[0] <= timeout_s <= TIMEOUT_RANGE[1]:
                logger.warning("SANDBOX_TIMEOUT_S=%r is not a number of seconds", raw_timeout)
                timeout_s = default.timeout_s
        return cls(
            backend=backend,
            image=env.get("SANDBOX_IMAGE", "").strip(),
            timeout_s=timeout_s,
            check_command=env.get("CHECK_COMMAND", "").strip(),
        )
