"""Where patches prove themselves: a hardened Docker sandbox (or a loud local fallback).

    from sandbox import open_sandbox
    with open_sandbox(repo_root) as box:
        result = box.check_patch(diff)          # PatchCheck
        run = box.run(["python", "-m", "pytest", "-q"])   # RunResult

Never imports pygls, lsprotocol, smolagents or litellm. `open_sandbox` and `docker_problem`
load the backends on first use, so `import sandbox.config` (the settings do) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sandbox.config import SandboxConfig
from sandbox.protocol import PatchCheck, RunResult, Sandbox

if TYPE_CHECKING:
    from sandbox.factory import docker_problem, open_sandbox

_LAZY = {"docker_problem": "sandbox.factory", "open_sandbox": "sandbox.factory"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PatchCheck",
    "RunResult",
    "Sandbox",
    "SandboxConfig",
    "docker_problem",
    "open_sandbox",
]
