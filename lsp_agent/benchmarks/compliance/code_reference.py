"""The levels' reference solutions in code mode (`bench models --agent-type code`).

Each turn is what a model in code mode writes: a thought and one Python block calling the
tools as functions. Where the code can carry a value from one call to the next (a path found
by a search, a value read from a file) the step goes on without waiting for the model; it
stops where the model has to read something first (the code to fix, a recovery hint). The
checkers are the same as in tool-calling mode: the outcome decides, not the transcript.
"""

from __future__ import annotations

from typing import Any

from lsp_agent.benchmarks.compliance.levels import Level
from lsp_agent.benchmarks.compliance.modes import DEFAULT_MODE, AgentMode, reference_turns


def code(source: str, thought: str) -> dict[str, Any]:
    """One model turn in code mode (a scripted-model `text` turn)."""
    return {"text": f"Thought: {thought}\n```python\n{source.strip()}\n```"}


CODE_REFERENCE: dict[str, tuple[dict[str, Any], ...]] = {
    "L0": (code("final_answer(str(6 * 7))", "No tool needed."),),
    "L1": (
        code(
            'files = list_files(pattern="*.py")\nfinal_answer("The Python files: " + files)',
            "List the files and give them back.",
        ),
    ),
    "L2": (
        code(
            """
import re
text = read_file(path="config.py")
value = re.search(r"MAX_ITEMS\\s*=\\s*(\\d+)", text).group(1)
final_answer(f"MAX_ITEMS is {value}.")
""",
            "Read config.py and pick the value out.",
        ),
    ),
    "L3": (
        code(
            """
import re
hit = rg_search(pattern="def restock")
path = re.search(r"^(\\S+?):\\d+:", hit, re.MULTILINE).group(1)
amount = re.search(r"RESTOCK_AMOUNT\\s*=\\s*(\\d+)", read_file(path=path)).group(1)
final_answer(f"RESTOCK_AMOUNT is {amount} ({path}).")
""",
            "Search, read the file the search found, pick the value out.",
        ),
    ),
    "L4": (
        code(
            """
import re
config = read_file(path="config.py")
data_file = re.search(r'DATA_FILE\\s*=\\s*"([^"]+)"', config).group(1)
owner = re.search(r"owner:\\s*(.+)", read_file(path=data_file)).group(1).strip()
final_answer(f"The owner is {owner}.")
""",
            "Follow DATA_FILE from config.py to the data file.",
        ),
    ),
    "L5": (
        code(
            """
import re
version = re.search(r'VERSION\\s*=\\s*"([^"]+)"', read_file(path="config.py")).group(1)
where = re.search(r"^(\\S+?):\\d+:", rg_search(pattern="TODO"), re.MULTILINE).group(1)
final_answer(f"VERSION is {version}; the TODO is in {where}.")
""",
            "Both steps in one block, then the answer.",
        ),
    ),
    "L6": (
        code('print(read_file(path="calc.py"))', "Read calc.py first."),
        code(
            """
patch = propose_patch(
    path="calc.py",
    old="return sum(values) / (len(values) + 1)",
    new="return sum(values) / len(values)",
)
result = apply_patch(patch_id=patch["patch_id"])
print(result)
if result.startswith("applied"):
    final_answer("average() now divides by len(values).")
""",
            "Fix the divisor, apply, and answer once it is applied.",
        ),
    ),
    "L7": (
        code('print(read_file(path="src/calc.py"))', "Read the file I was given."),
        code(
            """
import re
name = re.search(r"def (\\w+)", read_file(path="calc.py")).group(1)
final_answer(f"The first function is {name}.")
""",
            "The hint says calc.py: read that and name its first function.",
        ),
    ),
    "L8": (
        code(
            """
import re
hit = rg_search(pattern="def total_stock")
path = re.search(r"^(\\S+?):\\d+:", hit, re.MULTILINE).group(1)
print(path)
print(read_file(path=path))
""",
            "Find total_stock and read its file.",
        ),
        code(
            """
patch = propose_patch(path="report.py", old="for item in items[1:]:", new="for item in items:")
result = apply_patch(patch_id=patch["patch_id"])
print(result)
if result.startswith("applied"):
    final_answer("total_stock() skipped the first item; it now sums them all.")
""",
            "The loop skips the first item: fix it, apply, answer.",
        ),
    ),
    "L9": (
        code(
            'version = mcp_releases_release_version(package="calc")\n'
            'final_answer(f"The latest release of calc is {version}.")',
            "Ask the releases server.",
        ),
    ),
    "L10": (code('final_answer("The code name is Bluefin.")', "AGENTS.md names it."),),
}


def code_reference(level: Level, mode: AgentMode = DEFAULT_MODE) -> Any:
    """The `scripted` model for a level in code mode: its code-form reference solution, with
    plan turns when `mode` plans."""
    from lsp_agent.models.scripted import ScriptedModel

    turns = reference_turns(level, mode, CODE_REFERENCE[level.key])
    return ScriptedModel(turns, model_id="scripted")
