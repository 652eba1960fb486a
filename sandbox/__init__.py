"""Where patches prove themselves: a hardened Docker sandbox (or a loud local fallback).

    from sandbox import open_sandbox
    with open_sandbox(repo_root) as box:
        result = box.check_patch(diff)          # PatchCheck
        run = box.run(["python", "-m", "pytest", "-q"])   # RunResult

`run_offline(image, argv, binds, …)` runs one command to its end in a throwaway container with
the same confinement (no network, no capabilities, never root): `sandbox prepare` installs in
one, and `bench edits` runs its peer agents in one.

Never imports pygls, lsprotocol, smolagents or litellm.
"""

from sandbox.config import SandboxConfig
from sandbox.docker import image_tag
from sandbox.factory import docker_problem, open_sandbox
from sandbox.project_envs import PrepareError, hand_over, run_offline
from sandbox.protocol import PatchCheck, RunResult, Sandbox

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
