"""The user's own scope: where their config file lives, and which workspace files they trusted.

A workspace `.env` comes with the repository, which may be someone else's. Its security keys
(where code runs, where data goes, what is allowed) apply only after the user trusted that
exact content with `lsp-agent trust [DIR]`, which records the file's SHA-256 in
`$XDG_DATA_HOME/lsp-agent/trusted-env.json` (default `~/.local/share/...`). A changed file
is untrusted again. The user config file is `$XDG_CONFIG_HOME/lsp-agent/config.env`
(default `~/.config/...`), in `.env` syntax.

Standard library only, so that both `lsp_agent.settings` and the sandbox (which must not
import `lsp_agent`) can read the user scope here.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_DIR = "lsp-agent"
CONFIG_NAME = "config.env"
TRUST_NAME = "trusted-env.json"


def _base_dir(environ: Mapping[str, str], xdg_key: str, fallback: str) -> Path | None:
    explicit = environ.get(xdg_key, "").strip()
    if explicit and os.path.isabs(explicit):
        return Path(explicit) / APP_DIR
    home = environ.get("HOME", "").strip()
    if home:
        return Path(home) / fallback / APP_DIR
    return None


def user_config_file(environ: Mapping[str, str]) -> Path | None:
    """`$XDG_CONFIG_HOME/lsp-agent/config.env` (None when neither it nor HOME is set)."""
    base = _base_dir(environ, "XDG_CONFIG_HOME", ".config")
    return None if base is None else base / CONFIG_NAME


def data_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """lsp-agent's data directory, the one place for what it keeps of the user's: the trusted
    files, workspace memory, project environments, Phoenix's environment and data.
    `$XDG_DATA_HOME/lsp-agent` (an absolute path), else `$HOME/.local/share/lsp-agent`; None
    when neither is set (`environ` defaults to this process's environment)."""
    from safety.host_env import user_environ

    return _base_dir(
        user_environ() if environ is None else environ, "XDG_DATA_HOME", ".local/share"
    )


def require_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`data_dir()`, or an `OSError` that says why there is none."""
    found = data_dir(environ)
    if found is None:
        raise OSError("neither XDG_DATA_HOME nor HOME is set: lsp-agent has no data directory")
    return found


def trust_store_file(environ: Mapping[str, str]) -> Path | None:
    """`$XDG_DATA_HOME/lsp-agent/trusted-env.json` (None when neither it nor HOME is set)."""
    base = data_dir(environ)
    return None if base is None else base / TRUST_NAME


def content_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class TrustStore:
    """Workspace files the user trusted, by absolute path and content hash."""

    path: Path | None

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> TrustStore:
        return cls(trust_store_file(environ))

    def _read(self) -> dict[str, str]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): str(v) for k, v in data.items()}

    def is_trusted(self, file: Path) -> bool:
        """True when `file` has exactly the content the user trusted."""
        recorded = self._read().get(str(file.resolve()))
        if recorded is None:
            return False
        try:
            return content_hash(file) == recorded
        except OSError:
            return False

    def trust(self, file: Path) -> str:
        """Record `file`'s current content as trusted; returns its hash."""
        if self.path is None:
            raise OSError("neither XDG_DATA_HOME nor HOME is set: nowhere to record trust")
        digest = content_hash(file)
        self._write({**self._read(), str(file.resolve()): digest})
        return digest

    def forget(self, file: Path) -> bool:
        """Withdraw trust in `file`; True when it was recorded."""
        entries = self._read()
        removed = entries.pop(str(file.resolve()), None) is not None
        if removed:
            self._write(entries)
        return removed

    def _write(self, entries: dict[str, str]) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(entries, handle, indent=2, sort_keys=True)
        os.replace(tmp, self.path)
