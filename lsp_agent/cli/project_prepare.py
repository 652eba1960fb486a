"""`lsp-agent sandbox prepare [--repo DIR] [--yes]`: the consent step, then prepare.

Prints what will run (Python: the declared requirements, what was ignored, where wheels
come from and where they go; Node: the lock, the registry npm downloads from, and that
install scripts run in a container with no network), asks on a terminal unless `--yes`,
and refuses without a terminal and without `--yes`. A Node lock that points outside the
user's registry (or a yarn/pnpm lock) is refused before anything is asked or fetched.
The work is sandbox/project_envs/envs.py's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_agent.settings import load_settings

if TYPE_CHECKING:
    from sandbox.project_envs import ProjectPlan

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_REFUSED = 2


def prepare_command(
    repo: Path,
    *,
    yes: bool,
    ask: Callable[[str], str] | None = None,
    interactive: bool | None = None,
) -> int:
    """Run the prepare subcommand; `ask`/`interactive` stand in for the terminal in tests."""
    from sandbox.docker import image_tag
    from sandbox.project_envs import PrepareError, plan_project, prepare_project

    root = repo.resolve()
    if not root.is_dir():
        print(f"sandbox prepare: {root} is not a directory", file=sys.stderr)
        return EXIT_FAILURE
    prepared = plan_project(root)
    if prepared is None:
        print(
            f"{root}: no declared dependencies (pyproject.toml, requirements*.txt, "
            "package.json with a package-lock.json)"
        )
        return EXIT_OK
    if prepared.ready:
        for target in _targets(prepared):
            print(f"project env ready: {target}")
        return _refused(prepared.refusal)
    print("sandbox prepare will:", file=sys.stderr)
    for line in prepared.describe():
        print(f"  {line}", file=sys.stderr)
    if not yes and not _consent(ask, interactive):
        print("sandbox prepare: not consented; nothing was downloaded", file=sys.stderr)
        return EXIT_REFUSED
    image = image_tag(load_settings()[0].sandbox_config())

    def progress(message: str) -> None:
        print(f"sandbox prepare: {message}", file=sys.stderr, flush=True)

    try:
        paths = prepare_project(prepared, image, progress=progress)
    except PrepareError as exc:
        print(f"sandbox prepare failed: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    for path in paths:
        print(f"project env ready: {path}")
    return _refused(prepared.refusal)


def _targets(prepared: ProjectPlan) -> list[Path]:
    targets = [prepared.python.target] if prepared.python is not None else []
    if prepared.node is not None and prepared.node.ready:
        targets.append(prepared.node.target / "node_modules")
    return targets


def _refused(refusal: str) -> int:
    """A refused Node part fails the command, after whatever else was prepared."""
    if not refusal:
        return EXIT_OK
    print(f"sandbox prepare: node: {refusal}", file=sys.stderr)
    return EXIT_FAILURE


def _consent(ask: Callable[[str], str] | None, interactive: bool | None) -> bool:
    if interactive is None:
        interactive = sys.stdin.isatty()
    if not interactive:
        print("sandbox prepare: no terminal to ask; pass --yes to consent", file=sys.stderr)
        return False
    answer = (ask or input)("Download and install these? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
