"""Re-create the vendored exercise data (`data/exercism-python.json`) from a git clone of
exercism/python: `python -m lsp_agent.benchmarks.edits.vendor CLONE [COMMIT]`.

For each practice exercise at COMMIT: the instructions aider's benchmark gives the model
(`.docs/introduction.md`, `.docs/instructions.md`, `.docs/instructions.append.md`), the
top-level files the learner sees (the stub and the tests), and Exercism's example solution
(`.meta/example.py`, kept apart: it is what `--model scripted` plays and never enters an
exercise's repository). A development tool; the bench itself only reads the JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from safety import host_process

# exercism/python on 2023-06-15, the last tree with the 133 practice exercises before
# `resistor-color-expert` was added: see data/README.md for why this is aider's set.
DEFAULT_COMMIT = "85f23648a3540530f3ec10bc51923b25f6975baf"
PRACTICE = "exercises/practice"
DOCS = (
    ("introduction", ".docs/introduction.md"),
    ("instructions", ".docs/instructions.md"),
    ("instructions_append", ".docs/instructions.append.md"),
)
DATA_FILE = Path(__file__).resolve().parent / "data" / "exercism-python.json"


def _git(clone: Path, *args: str) -> str:
    done = host_process.run(
        ["git", "-C", str(clone), *args], check=True, capture_output=True, text=True
    )
    return str(done.stdout)


def _show(clone: Path, commit: str, path: str) -> str | None:
    done = host_process.run(
        ["git", "-C", str(clone), "show", f"{commit}:{path}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def exercise_record(clone: Path, commit: str, name: str) -> dict[str, Any]:
    base = f"{PRACTICE}/{name}"
    listing = _git(clone, "ls-tree", "--name-only", f"{commit}:{base}").split()
    files = {
        entry: _show(clone, commit, f"{base}/{entry}") or ""
        for entry in sorted(listing)
        if not entry.startswith(".")
    }
    docs = {key: _show(clone, commit, f"{base}/{path}") or "" for key, path in DOCS}
    example = _show(clone, commit, f"{base}/.meta/example.py")
    if example is None or not docs["instructions"]:
        raise SystemExit(f"{name}: no example solution or instructions at {commit}")
    return {"name": name, "docs": docs, "files": files, "example": example}


def vendor(clone: Path, commit: str = DEFAULT_COMMIT, output: Path = DATA_FILE) -> int:
    names = [
        line.rsplit("/", 1)[-1]
        for line in _git(clone, "ls-tree", "--name-only", f"{commit}:{PRACTICE}").split()
    ]
    data = {
        "source": "https://github.com/exercism/python",
        "commit": commit,
        "path": PRACTICE,
        "license": "MIT (see LICENSE beside this file)",
        "exercises": [exercise_record(clone, commit, name) for name in sorted(names)],
    }
    output.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(names)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    count = vendor(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) == 3 else DEFAULT_COMMIT)
    print(f"{count} exercises written to {DATA_FILE}")
