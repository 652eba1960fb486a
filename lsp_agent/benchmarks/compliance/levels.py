"""The compliance levels, L0 (answer directly) to L8 (find and fix a bug unaided), then two
that need what the repository or the user adds: L9 an MCP tool (the suite's own server,
`compliance.mcp_server`), L10 a rule stated only in the repository's `AGENTS.md`.

Each level is a short, literal task on the fixture repository (`fixture_repo`), a step
budget, a checker on the outcome (`checks`), and a reference solution: the script the
`scripted` model follows, real tool calls through the real tools. The checker, not the
script, decides whether a run passed, so the reference solutions test the checkers too.
Task texts name the tool to use up to L6; L7 starts from a wrong path (the file is
`calc.py`, not `src/calc.py`) so the first read fails with a recovery hint; L8 says only
what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lsp_agent.benchmarks.compliance.checks import (
    Check,
    answer_check,
    fix_check,
    tool_answer_check,
)
from lsp_agent.benchmarks.compliance.fixture_repo import PYTHON_FILES


@dataclass(frozen=True)
class Level:
    key: str  # "L0" … "L8"
    name: str
    tests: str  # what the level tests, one line
    task: str
    max_steps: int
    check: Check
    reference: tuple[dict[str, Any], ...]  # script turns (see lsp_agent.models.scripted.script)
    # How the sandbox checks a proposed patch: the level's own test, since the fixture holds
    # two bugs (one for L6, one for L8) and the whole suite fails until both are fixed.
    check_command: str = "python -m pytest -q"
    files: tuple[tuple[str, str], ...] = ()  # extra files in the fixture (e.g. AGENTS.md)
    mcp: bool = False  # offer the suite's MCP server (`releases`, trusted)


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


AVERAGE_PROBE = (
    "import calc\n"
    "assert calc.average([2, 4, 6]) == 4, calc.average([2, 4, 6])\n"
    "assert calc.average([5]) == 5, calc.average([5])\n"
    "assert calc.weighted_total([1, 2], [3, 4]) == 11\n"
)
AGENTS_MD = (
    "# Working on stockroom\n\n"
    "- Run the tests with `python -m pytest -q`.\n"
    "- The project's code name is Bluefin. Use it whenever someone asks for the code name.\n"
)
TOTAL_STOCK_PROBE = (
    "from inventory import Item\n"
    "from report import total_stock\n"
    "items = [Item('bolts', 3), Item('nuts', 4), Item('pins', 5)]\n"
    "assert total_stock(items) == 12, total_stock(items)\n"
    "assert total_stock([]) == 0\n"
)

LEVELS: tuple[Level, ...] = (
    Level(
        "L0",
        "direct answer",
        "answers at once with final_answer, no other tool",
        "What is 6 times 7? Do not use any tool: reply at once with final_answer.",
        2,
        answer_check(r"\b42\b"),
        ({"final_answer": "42"},),
    ),
    Level(
        "L1",
        "one tool call",
        "one call (list_files), then reports what it returned",
        'Use list_files with pattern "*.py" to list the Python files. '
        "Then call final_answer with the file names.",
        3,
        answer_check(*(re.escape(p.rsplit("/", 1)[-1]) for p in PYTHON_FILES)),
        (
            _call("list_files", pattern="*.py"),
            {"final_answer": ", ".join(PYTHON_FILES)},
        ),
    ),
    Level(
        "L2",
        "read and answer",
        "reads a named file and answers a question about it",
        "Use read_file to read config.py. What is the value of MAX_ITEMS? "
        "Answer with final_answer.",
        3,
        answer_check(r"\b473\b"),
        (_call("read_file", path="config.py"), {"final_answer": "MAX_ITEMS is 473."}),
    ),
    Level(
        "L3",
        "search then read",
        "finds a file with rg_search, then reads it",
        'Use rg_search to find the file that contains "def restock". '
        "Then use read_file to read that file. "
        "Answer with final_answer: the value of RESTOCK_AMOUNT.",
        4,
        answer_check(r"\b37\b"),
        (
            _call("rg_search", pattern="def restock"),
            _call("read_file", path="inventory.py"),
            {"final_answer": "RESTOCK_AMOUNT is 37 (inventory.py)."},
        ),
    ),
    Level(
        "L4",
        "chained calls",
        "uses a value from one call (a path) as the argument of the next",
        "Use read_file to read config.py and find DATA_FILE. "
        "Then use read_file to read the file that DATA_FILE names. "
        "Answer with final_answer: the owner named in that file.",
        4,
        answer_check(r"okonkwo"),
        (
            _call("read_file", path="config.py"),
            _call("read_file", path="data/stock_2719.txt"),
            {"final_answer": "The owner is Mira Okonkwo."},
        ),
    ),
    Level(
        "L5",
        "numbered steps",
        "follows three numbered steps and combines their results",
        "Follow these steps.\n"
        "1. Use read_file to read config.py and note the value of VERSION.\n"
        "2. Use rg_search to find the text TODO and note the file it is in.\n"
        "3. Use final_answer to give the version and that file name.",
        5,
        answer_check(r"2\.7\.1", r"report\.py"),
        (
            _call("read_file", path="config.py"),
            _call("rg_search", pattern="TODO"),
            {"final_answer": "VERSION is 2.7.1; the TODO is in report.py."},
        ),
    ),
    Level(
        "L6",
        "fix with a patch",
        "fixes a named bug with propose_patch (search/replace) and apply_patch",
        "average() in calc.py divides by the wrong number. Use read_file to read calc.py. "
        "Then fix it with propose_patch and apply the patch with apply_patch. "
        "Then call final_answer.",
        6,
        fix_check("calc.py", AVERAGE_PROBE),
        (
            _call("read_file", path="calc.py"),
            _call(
                "propose_patch",
                path="calc.py",
                old="return sum(values) / (len(values) + 1)",
                new="return sum(values) / len(values)",
            ),
            _call("apply_patch", patch_id="p1"),
            {"final_answer": "average() now divides by len(values)."},
        ),
        "python -m pytest -q tests/test_calc.py",
    ),
    Level(
        "L7",
        "error recovery",
        "a wrong path fails; the recovery hint's closest path must be used",
        "Use read_file to read src/calc.py. "
        "Answer with final_answer: the name of the first function defined in it.",
        5,
        answer_check(r"weighted_total"),
        (
            _call("read_file", path="src/calc.py"),
            _call("read_file", path="calc.py"),
            {"final_answer": "The first function is weighted_total."},
        ),
    ),
    Level(
        "L8",
        "self-discovery",
        "minimal instructions: finds, reads, patches and applies on its own",
        "total_stock() returns the wrong total. Fix it.",
        10,
        fix_check("report.py", TOTAL_STOCK_PROBE),
        (
            _call("rg_search", pattern="def total_stock"),
            _call("read_file", path="report.py"),
            _call(
                "propose_patch",
                path="report.py",
                old="for item in items[1:]:",
                new="for item in items:",
            ),
            _call("apply_patch", patch_id="p1"),
            {"final_answer": "total_stock() skipped the first item; it now sums them all."},
        ),
        "python -m pytest -q tests/test_report.py",
    ),
    Level(
        "L9",
        "MCP tool",
        "a fact only an MCP server knows: calls the server's tool, answers with its result",
        "What is the latest released version of the calc package? Ask the releases server, "
        "then answer with final_answer.",
        4,
        tool_answer_check("mcp_releases_release_version", r"4\.7\.2"),
        (
            _call("mcp_releases_release_version", package="calc"),
            {"final_answer": "The latest release of calc is 4.7.2."},
        ),
        mcp=True,
    ),
    Level(
        "L10",
        "project rule",
        "a fact stated only in the repository's AGENTS.md, which every job is given",
        "What is this project's code name? Answer with final_answer.",
        3,
        answer_check(r"bluefin"),
        ({"final_answer": "The code name is Bluefin."},),
        files=(("AGENTS.md", AGENTS_MD),),
    ),
)


def select_levels(keys: tuple[str, ...] = ()) -> tuple[Level, ...]:
    """The levels named in `keys` (`L3` or `3`, any case), or all; ValueError if unknown."""
    if not keys:
        return LEVELS
    by_key = {level.key: level for level in LEVELS}
    wanted = []
    for raw in keys:
        key = raw.strip().upper()
        key = key if key.startswith("L") else f"L{key}"
        if key not in by_key:
            raise ValueError(f"unknown level {raw!r}; choose from {', '.join(by_key)}")
        wanted.append(key)
    return tuple(level for level in LEVELS if level.key in wanted)
