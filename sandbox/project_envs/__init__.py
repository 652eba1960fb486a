"""A project's environments for checks (`lsp-agent sandbox prepare`, `lspAgent.prepare`).

- `envs`: one plan, preparation and status over every language;
- Python: `python_deps` reads the declared dependencies, `python_env` downloads wheels on the
  host and unpacks them in a no-network container;
- Node: `node_deps` reads and vets `package.json` and the lock, `node_env` runs
  `npm ci --ignore-scripts` on the host from those two files alone and `npm rebuild` in a
  no-network container;
- `prepare_container`: that no-network container (`run_offline`; `bench edits` runs its
  peer agents in one too, on directories `hand_over` gives the container's user).

Outside this folder, import from `sandbox.project_envs` only.
"""

from sandbox.project_envs.envs import (
    NOTHING_DECLARED,
    ProjectPlan,
    plan_project,
    prepare_project,
    project_status,
    ready_mounts,
)
from sandbox.project_envs.prepare_container import PrepareError, hand_over, run_offline

__all__ = [
    "NOTHING_DECLARED",
    "PrepareError",
    "ProjectPlan",
    "hand_over",
    "plan_project",
    "prepare_project",
    "project_status",
    "ready_mounts",
    "run_offline",
]
