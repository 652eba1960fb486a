"""The task message ends with where the code the task names is defined (`task_pointers`)."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.instructions import task_message
from lsp_agent.agent.task_pointers import MAX_PLACES, find_definitions, task_names, task_pointers
from tools.workspace import DiskWorkspace


def workspace(tmp_path: Path, files: dict[str, str]) -> DiskWorkspace:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return DiskWorkspace(tmp_path)


def test_the_names_a_task_mentions_are_code_names_not_words_or_tools() -> None:
    task = (
        "total_stock() returns the wrong total; `Item` and MAX_ITEMS too. "
        "Use read_file and propose_patch, then final_answer."
    )
    assert task_names(task) == ["total_stock", "Item"]
    assert task_names("The test fails; fix it.") == []


def test_a_function_is_found_with_its_signature_and_the_call_that_reads_it(
    tmp_path: Path,
) -> None:
    ws = workspace(
        tmp_path,
        {
            "inventory.py": "class Item:\n    pass\n",
            "report.py": '"""Reports."""\n\n\ndef total_stock(items):\n    return 0\n',
            "notes.txt": "def total_stock(items): not code\n",
        },
    )
    pointers = task_pointers("total_stock() returns the wrong total. Fix it.", ws)
    assert pointers == (
        "Found in this repository: total_stock is defined in report.py line 4 "
        '(`def total_stock(items):`). Read it with read_file(path="report.py").'
    )


def test_a_definition_in_a_file_the_task_names_is_not_pointed_at(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"calc.py": "def average(values):\n    return 0\n"})
    assert task_pointers("average() in calc.py divides by the wrong number.", ws) == ""
    assert "calc.py line 1" in task_pointers("average() divides by the wrong number.", ws)


def test_a_constant_is_not_pointed_at(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"config.py": "MAX_ITEMS = 473\n", "use.py": "x = MAX_ITEMS\n"})
    assert task_pointers("What is MAX_ITEMS?", ws) == ""


def test_nothing_found_says_nothing_and_places_are_bounded(tmp_path: Path) -> None:
    files = {f"m{i}.py": "def run_all():\n    pass\n" for i in range(MAX_PLACES + 2)}
    ws = workspace(tmp_path, files)
    assert task_pointers("Fix parse_config().", ws) == ""
    assert len(find_definitions(["run_all"], ws)) == MAX_PLACES


def test_the_task_message_ends_with_the_pointers(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Run the tests with pytest.\n", encoding="utf-8")
    message = task_message("Fix it.", tmp_path, pointers="Found in this repository: x.")
    assert message.endswith("Task:\nFix it.\n\nFound in this repository: x.")
    assert task_message("Fix it.", tmp_path / "none", pointers="P.") == "Fix it.\n\nP."
