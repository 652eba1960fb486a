"""`lsp-agent sandbox prepare [--repo DIR] [--yes]`: the consent step, then prepare.

Prints what will run (the declared requirements, what was ignored, where wheels come
from and where they go), asks on a terminal unless `--yes`, and refuses without a
terminal and without `--yes`. The work is sandbox/project_env.py's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from lsp_agent.settings import load_settings

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
    from sandbox.image import image_tag
    from sandbox.project_env import PrepareError, plan, prepare

    root = repo.resolve()
    if not root.is_dir():
        print(f"sandbox prepare: {root} is not a directory", file=sys.stderr)
        return EXIT_FAILURE
    prepared = plan(root)
    if prepared is None:
        print(f"{root}: no declared Python dependencies (pyproject.toml, requirements*.txt)")
        return EXIT_OK
    if (prepared.target / ".lsp-agent-env.json").is_file():
        print(f"project env ready: {prepared.target}")
        return EXIT_OK
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
        path = prepare(prepared, image, progress=progress)
    except PrepareError as exc:
        print(f"sandbox prepare failed: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"project env ready: {path}")
    return EXIT_OK


def _consent(ask: Callable[[str], str] | None, interactive: bool | None) -> bool:
    if interactive is None:
        interactive = sys.stdin.isatty()
    if not interactive:
        print("sandbox prepare: no terminal to ask; pass --yes to consent", file=sys.stderr)
        return False
    answer = (ask or input)("Download and install these? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
