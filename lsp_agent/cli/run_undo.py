"""`lsp-agent run --undo`: put back what the last `lsp-agent run` in a repository wrote.

Each run records the files it wrote (`tools.patches.WriteJournal`) in the user's data
directory (`$XDG_DATA_HOME/lsp-agent/runs/`, one file per repository, named by a hash of
its path; never in the repository). Undo reverses those writes like `git apply -R` against
the files as they are now: lines changed elsewhere since (by you, a formatter, another
branch's merge) stay; a file whose written lines changed since is named and left alone;
nothing else in the work tree, git's index or history is touched. The restore is written
all files or none (`DiskPatchWriter`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from lsp_agent.cli.terminal_text import inert
from safety.user_scope import data_dir
from tools.patches import DiskPatchWriter, WriteJournal, Written, plan_undo, workspace_reader
from tools.workspace import DiskWorkspace

EXIT_OK, EXIT_FAILURE = 0, 1


class LastRun:
    """The journal of the last run in one repository."""

    def __init__(self, repo: Path, directory: Path | None = None) -> None:
        self.repo = repo.resolve()
        base = directory or _runs_dir()
        key = hashlib.sha256(str(self.repo).encode()).hexdigest()[:16]
        self.path = None if base is None else base / f"{key}.json"

    def save(self, task: str, journal: WriteJournal) -> None:
        """Record the run's writes (a run that wrote nothing leaves the last one as it was)."""
        if self.path is None or not journal:
            return
        data = {
            "repo": str(self.repo),
            "task": task,
            "at": time.time(),
            "undone": False,
            "writes": [write.to_json() for write in journal.writes()],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.chmod(temporary, 0o600)  # the files' text: as private as the data directory
        temporary.replace(self.path)

    def load(self) -> dict[str, Any] | None:
        if self.path is None:
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("repo") != str(self.repo):
            return None
        return data

    def mark_undone(self, data: dict[str, Any]) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps({**data, "undone": True}), encoding="utf-8")


def _runs_dir() -> Path | None:
    base = data_dir()
    return None if base is None else base / "runs"


def undo_last_run(repo: Path, console: Console) -> int:
    """Restore what the last run in `repo` wrote; exit 0 when it did (or had nothing to)."""
    last = LastRun(repo)
    data = last.load()
    if data is None:
        console.print(f"no run of lsp-agent in {inert(str(last.repo))} to undo")
        return EXIT_FAILURE
    task = inert(str(data.get("task", "")))
    if data.get("undone"):
        console.print(f'the last run ("{task}") was undone already')
        return EXIT_OK
    try:
        writes = [Written.from_json(entry) for entry in data.get("writes", [])]
    except ValueError as exc:
        console.print(f"[red]the record of the last run is damaged ({inert(str(exc))})[/red]")
        return EXIT_FAILURE
    plan = plan_undo(writes, workspace_reader(DiskWorkspace(last.repo)))
    for path, why in plan.reasons.items():
        console.print(f"[yellow]left {inert(path)} as it is: {inert(why)}[/yellow]")
    if not plan.result.files:
        console.print(f'nothing of the last run ("{task}") to restore')
        return EXIT_FAILURE if plan.changed_since else EXIT_OK
    outcome = DiskPatchWriter(last.repo).write(plan.result)
    if outcome.status != "applied":
        console.print(f"[red]undo failed: {inert(outcome.reason)}[/red]")
        return EXIT_FAILURE
    last.mark_undone(data)
    for path in plan.restored:
        console.print(f"restored {inert(path)}")
    console.print(f'undid the last run ("{task}")')
    return EXIT_OK
