"""`LocalSandbox`: a throwaway copy of the repository on this machine. NOT isolation.

Used only when the user chose SANDBOX_BACKEND=local. Patches never touch the user's
files (they are applied to a copy in a temporary directory), but commands run with the
user's rights and can read or write anything they can. So every command (a check
command, `run_cmd`, `run_tests`) first needs the user's yes through `approve` (no
approver: nothing runs), and runs with a scrubbed environment (no API keys), a fresh
temporary HOME and TMPDIR per job, and no symlink leading out of the copy.
`lsp-agent sandbox build` sets up the real sandbox.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from safety import host_process
from safety.git_hardening import hardened_git_env
from sandbox import tracing
from sandbox.checks import DriverBackedSandbox, run_job
from sandbox.config import SandboxConfig
from sandbox.project import SKIPPED_DIRS

logger = logging.getLogger(__name__)

WARNING = (
    "SANDBOX: using the LOCAL backend: patch checks and commands run on this machine "
    "WITHOUT ISOLATION (a throwaway copy of the repository, but code in it can read and "
    "write anything you can). For the Docker sandbox run `lsp-agent sandbox build`."
)
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT")


class HostApproval(Protocol):
    def __call__(self, argv: Sequence[str], question: str) -> bool:
        """Ask the user whether `argv` may run on their machine; True means yes."""
        ...


def host_question(argv: Sequence[str]) -> str:
    """How an approval for a host command is worded."""
    return (
        f"Run `{shlex.join(argv)}` on YOUR MACHINE, NOT in a sandbox (SANDBOX_BACKEND=local)? "
        "It runs in a throwaway copy of the repository, but with your rights: it can read "
        "and change anything you can."
    )


class LocalSandbox(DriverBackedSandbox):
    backend = "local"

    def __init__(
        self, repo_root: Path, config: SandboxConfig, approve: HostApproval | None = None
    ) -> None:
        super().__init__(repo_root, config)
        logger.warning(WARNING)
        self._approve = approve
        self._scratch: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None
        self._lock = threading.Lock()  # one work copy: jobs take turns

    def _base_job(self) -> dict[str, Any]:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="lsp-agent-sandbox-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
        user = host_process.vetted_environ(untrusted=[self.repo_root])  # a clean PATH
        env = hardened_git_env({key: user[key] for key in _PASSED_ENV if key in user})
        env.update(
            HOME=str(self._scratch / "home"),
            TMPDIR=str(self._scratch / "tmp"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        return {
            "source": str(self.repo_root),
            "work": str(self._scratch / "work"),
            "excludes": sorted(SKIPPED_DIRS),
            "env": env,
            "junit_path": str(self._scratch / "junit.xml"),
        }

    def _execute(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        command = job.get("command")
        if command:
            question = host_question(command)
            if self._approve is None or not self._approve(list(command), question):
                who = "it was not approved" if self._approve else "there is no one to approve it"
                error = (
                    f"not run on this machine: {who} (SANDBOX_BACKEND=local runs commands "
                    "unsandboxed; `lsp-agent sandbox build` sets up the Docker sandbox)"
                )
                return {"stage": "driver", "error": error, "applies": None}
            job["command"] = host_command(command)
        with self._lock, tracing.span("exec", backend=self.backend):
            self._fresh_home(job["env"])
            return run_job(job)

    @staticmethod
    def _fresh_home(env: dict[str, str]) -> None:
        for key in ("HOME", "TMPDIR"):
            shutil.rmtree(env[key], ignore_errors=True)
            os.makedirs(env[key], mode=0o700)

    def close(self) -> None:
        with self._lock:
            if self._cleanup is not None:
                self._cleanup()
            self._scratch = self._cleanup = None


def host_command(argv: list[str]) -> list[str]:
    """`python`/`python3` becomes this interpreter when the name is not on the clean PATH
    (the command runs with it: `_base_job`)."""
    path = host_process.vetted_environ().get("PATH", "")
    if argv and argv[0] in ("python", "python3") and shutil.which(argv[0], path=path) is None:
        return [sys.executable, *argv[1:]]
    return argv
