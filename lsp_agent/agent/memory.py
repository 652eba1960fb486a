"""Workspace memory (`AGENT_MEMORY=true`): short notes the agent keeps between jobs.

The `remember(note)` tool stores a note (after the user's yes: tools/memory_tool.py); the
next job in the same workspace starts with the newest notes, within `PROMPT_TOKENS`. Notes
live in the user's data directory (`$XDG_DATA_HOME/lsp-agent/memory/`, else
`~/.local/share/...`) — never inside the repository, so a repository cannot plant notes and
a note cannot leak into a commit — one file per workspace, named by a hash of its path *and
its identity* (`workspace_identity`: the root directory's inode and, in a git repository,
its root commits and `origin` URL). Another repository later cloned at the same path is
another workspace: it never gets the first one's notes. Notes are redacted like tool
outputs before they are written. `lsp-agent memory list|clear [--repo DIR]` shows and
clears them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.models.prompt_size import CHARS_PER_TOKEN
from safety.secret_redaction import redact_secrets
from safety.user_scope import require_data_dir

MAX_NOTES = 50
PROMPT_TOKENS = 300


def memory_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the notes of every workspace live (in lsp-agent's data directory)."""
    return require_data_dir(environ) / "memory"


def workspace_identity(root: Path) -> str:
    """What tells this workspace from another one at the same path: the root directory's
    device and inode, and for a git repository its root commits and `origin` URL (a fresh
    clone of another project has other root commits; a fork, another origin)."""
    from safety import host_process
    from tools.workspace import git_command, git_env

    try:
        info = root.stat()
    except OSError:
        return "gone"
    parts = [f"{info.st_dev}:{info.st_ino}"]
    for args in (("rev-list", "--max-parents=0", "HEAD"), ("config", "remote.origin.url")):
        try:
            proc = host_process.run(
                git_command(root, *args),
                env=git_env(root),
                whole_env=True,
                untrusted=[root],
                capture_output=True,
                timeout=20,
            )
        except (OSError, subprocess.TimeoutExpired):
            parts.append("?")
            continue
        out = proc.stdout.decode("utf-8", "replace").split()
        parts.append(",".join(sorted(out)) if proc.returncode == 0 else "-")
    return "\0".join(parts)


@dataclass(frozen=True)
class Note:
    text: str
    at: float


class WorkspaceMemory:
    """The notes of one workspace (a `tools.memory_tool.NoteStore`)."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        self.root = root.resolve()
        identity = f"{self.root}\0{workspace_identity(self.root)}"
        key = hashlib.sha256(identity.encode()).hexdigest()[:16]
        self.path = (directory or memory_dir()) / f"{key}.json"

    def notes(self) -> list[Note]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        entries = data.get("notes", []) if isinstance(data, dict) else []
        return [
            Note(str(e["text"]), float(e.get("at", 0)))
            for e in entries
            if isinstance(e, dict) and isinstance(e.get("text"), str)
        ]

    def add(self, note: str) -> int:
        text = redact_secrets(note)
        notes = [n for n in self.notes() if n.text != text]
        notes.append(Note(text, time.time()))
        self._write(notes[-MAX_NOTES:])
        return min(len(notes), MAX_NOTES)

    def clear(self) -> int:
        count = len(self.notes())
        self.path.unlink(missing_ok=True)
        return count

    def for_model(self, budget_tokens: int = PROMPT_TOKENS) -> str:
        """The newest notes that fit the budget, as a block for the task message."""
        budget = int(budget_tokens * CHARS_PER_TOKEN)
        kept: list[str] = []
        for note in reversed(self.notes()):
            line = f"- {note.text}"
            if len(line) + 1 > budget:
                break
            budget -= len(line) + 1
            kept.append(line)
        if not kept:
            return ""
        return "Notes from earlier tasks in this repository:\n" + "\n".join(kept)

    def _write(self, notes: list[Note]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        payload = {"root": str(self.root), "notes": [{"text": n.text, "at": n.at} for n in notes]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".notes-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, indent=1)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
