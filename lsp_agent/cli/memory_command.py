"""`lsp-agent memory list|clear [--repo DIR]`: the notes workspace memory keeps.

Notes are written by the agent's `remember` tool when `AGENT_MEMORY=true`; they live in
the user's data directory, never in the repository (`lsp_agent.agent.memory`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lsp_agent.agent.memory import WorkspaceMemory

EXIT_OK = 0
EXIT_USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `list` and `clear` under `parser` (the `memory` subcommand's parser)."""
    sub = parser.add_subparsers(dest="memory_command", metavar="{list,clear}")
    for name, text in (
        ("list", "show the notes kept for a workspace"),
        ("clear", "forget every note kept for a workspace"),
    ):
        command = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        command.add_argument(
            "--repo", type=Path, default=Path.cwd(), help="the workspace (default: .)"
        )


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "memory_command", None)
    if command is None:
        print("usage: lsp-agent memory {list,clear} [--repo DIR]", file=sys.stderr)
        return EXIT_USAGE
    repo: Path = args.repo
    if not repo.is_dir():
        print(f"lsp-agent memory: {repo} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    memory = WorkspaceMemory(repo)
    if command == "clear":
        count = memory.clear()
        print(f"cleared {count} note{'s' if count != 1 else ''} for {memory.root}")
        return EXIT_OK
    notes = memory.notes()
    if not notes:
        print(f"no notes for {memory.root} (the agent keeps notes when AGENT_MEMORY=true)")
        return EXIT_OK
    print(f"{len(notes)} note{'s' if len(notes) != 1 else ''} for {memory.root} ({memory.path}):")
    for note in notes:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(note.at))
        print(f"  {when}  {note.text}")
    return EXIT_OK
