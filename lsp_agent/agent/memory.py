"""Workspace memory (`AGENT_MEMORY=true`): short notes the agent keeps between jobs.

The `remember(note)` tool stores a note; the next job in the same workspace starts with
the newest notes, within `PROMPT_TOKENS`. Notes live in the user's data directory
(`$XDG_DATA_HOME/lsp-agent/memory/`, else `~/.local/share/...`), one file per workspace
named by a hash of its path — never inside the repository, so a repository cannot plant
notes and a note cannot leak into a commit. Notes are redacted like tool outputs before
they are written. `lsp-agent memory list|clear [--repo DIR]` shows and clears them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_agent.agent.token_estimate import CHARS_PER_TOKEN
from safety.host_env import user_environ
from safety.secret_redaction import redact_secrets

MAX_NOTES = 50
PROMPT_TOKENS = 300


def memory_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the notes of every workspace live."""
    env = user_environ() if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/share")
    return Path(base) / "lsp-agent" / "memory"


@dataclass(frozen=True)
class Note:
    text: str
    at: float


class WorkspaceMemory:
    """The notes of one workspace (a `tools.memory_tool.NoteStore`)."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        self.root = root.resolve()
        key = hashlib.sha256(str(self.root).encode()).hexdigest()[:16]
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
