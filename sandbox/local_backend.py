"""`LocalSandbox`: a throwaway copy of the repository on this machine. NOT isolation.

Patches never touch the user's files (they are applied to a copy in a temporary
directory), but the check command runs with the user's rights and can read or write
anything they can. It gets a minimal environment (no API keys). Use it when Docker is
not available; `lsp-agent sandbox build` sets up the real sandbox.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

from sandbox import driver_steps, tracing
from sandbox.check_command import COPY_EXCLUDES
from sandbox.config import SandboxConfig
from sandbox.driver_backend import DriverBackedSandbox

logger = logging.getLogger(__name__)

WARNING = (
    "SANDBOX: using the LOCAL backend: patch checks and commands run on this machine "
    "WITHOUT ISOLATION (a throwaway copy of the repository, but code in it can read and "
    "write anything you can). For the Docker sandbox run `lsp-agent sandbox build`."
)
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT", "HOME")


class LocalSandbox(DriverBackedSandbox):
    backend = "local"

    def __init__(self, repo_root: Path, config: SandboxConfig) -> None:
        super().__init__(repo_root, config)
        logger.warning(WARNING)
        self._scratch: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None
        self._lock = threading.Lock()  # one work copy: jobs take turns

    def _base_job(self) -> dict[str, Any]:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="lsp-agent-sandbox-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
        env = {key: os.environ[key] for key in _PASSED_ENV if key in os.environ}
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", PYTHONDONTWRITEBYTECODE="1")
        return {
            "source": str(self.repo_root),
            "work": str(self._scratch / "work"),
            "excludes": list(COPY_EXCLUDES),
            "env": env,
        }

    def _execute(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        if job.get("command"):
            job["command"] = host_command(job["command"])
        with self._lock, tracing.span("exec", backend=self.backend):
            return driver_steps.run_job(job)

    def close(self) -> None:
        with self._lock:
            if self._cleanup is not None:
                self._cleanup()
            self._scratch = self._cleanup = None


def host_command(argv: list[str]) -> list[str]:
    """`python`/`python3` becomes this interpreter when the name is not on PATH."""
    if argv and argv[0] in ("python", "python3") and shutil.which(argv[0]) is None:
        return [sys.executable, *argv[1:]]
    return argv
