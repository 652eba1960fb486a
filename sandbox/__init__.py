"""Where patches prove themselves: a hardened Docker sandbox (or a loud local fallback).

    from sandbox import open_sandbox
    with open_sandbox(repo_root) as box:
        result = box.check_patch(diff)          # PatchCheck
        run = box.run(["python", "-m", "pytest", "-q"])   # RunResult

`run_offline(image, argv, binds, …)` runs one command to its end in a throwaway container with
the same confinement (no network, no capabilities, never root): `sandbox prepare` installs in
one, and `bench edits` runs its peer agents in one.

Never imports pygls, lsprotocol, smolagents or litellm. The backends (`open_sandbox`,
`docker_problem`, `image_tag`, `run_offline`, …) load on first use, so `import sandbox.config`
(the settings do) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sandbox.config import SandboxConfig
from sandbox.protocol import PatchCheck, RunResult, Sandbox

if TYPE_CHECKING:
    from sandbox.docker import image_tag
    from sandbox.factory import docker_problem, open_sandbox
    from sandbox.project_envs import PrepareError, hand_over, run_offline

_LAZY = {
    "docker_problem": "sandbox.factory",
    "open_sandbox": "sandbox.factory",
    "image_tag": "sandbox.docker",
    "PrepareError": "sandbox.project_envs",
    "hand_over": "sandbox.project_envs",
    "run_offline": "sandbox.project_envs",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PatchCheck",
    "PrepareError",
    "RunResult",
    "Sandbox",
    "SandboxConfig",
    "docker_problem",
    "hand_over",
    "image_tag",
    "open_sandbox",
    "run_offline",
]
