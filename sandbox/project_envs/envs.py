"""A project's environments for checks, every language at once: plan, prepare, status.

`lsp-agent sandbox prepare` and the editor's `lspAgent.prepare` show `ProjectPlan.describe()`
before consent, then `prepare_project` does each part: Python (sandbox/project_envs/python_env.py)
and Node (sandbox/project_envs/node_env.py). `ready_mounts` says what a check container mounts
read-only, and `project_status` is the one line doctor and `lspAgent.status` show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.docker import ProjectMounts
from sandbox.project_envs.node_env import NodePlan, node_plan, prepare_node, ready_node_modules
from sandbox.project_envs.prepare_container import PrepareError
from sandbox.project_envs.python_deps import dependency_key
from sandbox.project_envs.python_env import (
    PREPARE_COMMAND,
    READY_MARKER,
    PreparePlan,
    plan,
    prepare,
    ready_env,
)

Progress = Callable[[str], None]
NOTHING_DECLARED = "no declared dependencies (Python or Node)"


@dataclass(frozen=True)
class ProjectPlan:
    """What prepare will do for each language the repository declares dependencies for."""

    repo_root: Path
    python: PreparePlan | None
    node: NodePlan | None

    @property
    def ready(self) -> bool:
        """Every part that can be prepared is (a refused Node part stays refused)."""
        python_ready = self.python is None or (self.python.target / READY_MARKER).is_file()
        node_ready = self.node is None or self.node.ready or bool(self.node.declared.refusal)
        return python_ready and node_ready

    @property
    def refusal(self) -> str:
        return self.node.declared.refusal if self.node is not None else ""

    def describe(self) -> list[str]:
        lines: list[str] = []
        if self.python is not None:
            lines += self.python.describe()
        if self.node is not None:
            if not lines:
                lines.append(f"repository:   {self.repo_root}")
            lines += self.node.describe()
        return lines


def plan_project(repo_root: Path) -> ProjectPlan | None:
    """The plan; None when the repository declares no Python or Node dependencies."""
    root = Path(repo_root).resolve()
    python, node = plan(root), node_plan(root)
    if python is None and node is None:
        return None
    return ProjectPlan(root, python, node)


def prepare_project(
    prepared: ProjectPlan, image: str, *, client: Any = None, progress: Progress | None = None
) -> list[Path]:
    """Prepare every part that is not ready; the ready environments' paths.

    A refused Node part is skipped (`ProjectPlan.refusal` says why); raises
    `PrepareError` when a part fails (the parts before it stay ready).
    """
    ready: list[Path] = []
    if prepared.python is not None:
        ready.append(prepare(prepared.python, image, client=client, progress=progress))
    if prepared.node is not None and not prepared.node.declared.refusal:
        ready.append(prepare_node(prepared.node, image, client=client, progress=progress))
    return ready


def ready_mounts(repo_root: Path) -> ProjectMounts:
    """The prepared environments for the repository's current dependency files."""
    root = Path(repo_root)
    return ProjectMounts(python=ready_env(root), node_modules=ready_node_modules(root))


def project_status(repo_root: Path) -> str:
    """One line for doctor / lspAgent.status, per language: ready, not prepared, refused.

    Refusals are re-checked against the user's npm configuration only when the Node
    part is not ready (that asks npm).
    """
    root = Path(repo_root)
    parts = []
    if dependency_key(root) is not None:
        env = ready_env(root)
        parts.append(f"python: ready ({env})" if env else "python: not prepared")
    node = ready_node_modules(root)
    if node is not None:
        parts.append(f"node: ready ({node.parent})")
    else:
        planned = node_plan(root)
        if planned is not None:
            refusal = planned.declared.refusal
            parts.append(f"node: cannot prepare ({refusal})" if refusal else "node: not prepared")
    if not parts:
        return NOTHING_DECLARED
    text = "; ".join(parts)
    if "not prepared" in text:
        text += f" (run `{PREPARE_COMMAND} --repo {root}`)"
    return text


__all__ = [
    "NOTHING_DECLARED",
    "PrepareError",
    "ProjectMounts",
    "ProjectPlan",
    "plan_project",
    "prepare_project",
    "project_status",
    "ready_mounts",
]
