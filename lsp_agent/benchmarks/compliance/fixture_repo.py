"""The small repository every compliance level runs on, shipped as data.

Each file carries what one or more levels need: `config.py` a value to read (L2), a path to
follow (L4) and a version (L5); `inventory.py` something to search for (L3); `report.py` a
TODO (L5) and a real bug (L8); `calc.py` a real bug (L6) and a first function to name (L7).
A fresh copy is written for every run, committed so the git tools see a clean repository.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from safety import host_process

FIXTURE_FILES: dict[str, str] = {
    ".gitignore": "__pycache__/\n.pytest_cache/\n",
    "README.md": (
        "# stockroom\n\n"
        "A tiny stock-keeping example: the repository the lsp-agent compliance suite runs on.\n"
    ),
    "config.py": (
        '"""Settings for the stockroom tool."""\n\n'
        "MAX_ITEMS = 473\n"
        'VERSION = "2.7.1"\n'
        'DATA_FILE = "data/stock_2719.txt"\n'
    ),
    "calc.py": (
        '"""Arithmetic helpers."""\n\n\n'
        "def weighted_total(values, weights):\n"
        '    """Sum of each value times its weight."""\n'
        "    return sum(v * w for v, w in zip(values, weights))\n\n\n"
        "def average(values):\n"
        '    """The mean of a non-empty list of numbers."""\n'
        "    return sum(values) / (len(values) + 1)\n"
    ),
    "inventory.py": (
        '"""Stock items and restocking."""\n\n'
        "RESTOCK_AMOUNT = 37\n\n\n"
        "class Item:\n"
        "    def __init__(self, name, count):\n"
        "        self.name = name\n"
        "        self.count = count\n\n\n"
        "def restock(item):\n"
        '    """Add the standard amount to an item\'s count."""\n'
        "    item.count += RESTOCK_AMOUNT\n"
        "    return item\n"
    ),
    "report.py": (
        '"""Stock reports."""\n\n\n'
        "def total_stock(items):\n"
        '    """The total count over all items."""\n'
        "    # TODO: group the totals by warehouse\n"
        "    total = 0\n"
        "    for item in items[1:]:\n"
        "        total += item.count\n"
        "    return total\n"
    ),
    "data/stock_2719.txt": "owner: Mira Okonkwo\nbolts: 120\nnuts: 80\n",
    "tests/test_calc.py": (
        "from calc import average\n\n\ndef test_average():\n    assert average([2, 4, 6]) == 4\n"
    ),
    "tests/test_report.py": (
        "from inventory import Item\n"
        "from report import total_stock\n\n\n"
        "def test_total_stock():\n"
        '    assert total_stock([Item("bolts", 3), Item("nuts", 4)]) == 7\n'
    ),
}

PYTHON_FILES = tuple(sorted(p for p in FIXTURE_FILES if p.endswith(".py")))

_GIT_IDENTITY = ("-c", "user.name=compliance", "-c", "user.email=compliance@example.invalid")


def git(repo: Path, *argv: str) -> str:
    """Run git in `repo` without the user's configuration; return its stdout."""
    env = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    done = host_process.run(
        ["git", *_GIT_IDENTITY, *argv],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return str(done.stdout)


def make_fixture_repo(
    root: Path, extra_files: Mapping[str, str] | None = None, *, only: bool = False
) -> Path:
    """Write the fixture (and a level's `extra_files`; `only`: those alone) into the empty or
    missing directory `root`, commit it, return it."""
    root.mkdir(parents=True, exist_ok=True)
    files = dict(extra_files or {}) if only else {**FIXTURE_FILES, **(extra_files or {})}
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "stockroom fixture")
    return root


def changed_paths(repo: Path) -> list[str]:
    """Paths that differ from the fixture commit (modified, deleted or new), sorted."""
    lines = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:].strip().strip('"') for line in lines if line.strip())
