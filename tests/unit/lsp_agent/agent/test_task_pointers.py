"""The task message ends with where the code the task names is defined (`task_pointers`)."""

from __future__ import annotations

from pathlib import Path

from lsp_agent.agent.calling_tests import MAX_TEST_LINES, MAX_TESTS, calling_tests
from lsp_agent.agent.instructions import task_message
from lsp_agent.agent.task_pointers import (
    MAX_PLACES,
    SHOWN_MAX_CHARS,
    find_definitions,
    find_pointers,
    quoted_snippets,
    task_names,
)
from tools.workspace import DiskWorkspace


def task_pointers(task: str, ws: DiskWorkspace) -> str:
    return find_pointers(task, ws).text


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
        "(`def total_stock(items):`).\n\n"
        'report.py (lines 1-5 of 5):\n```\n"""Reports."""\n\n\ndef total_stock(items):\n'
        "    return 0\n```"
    )


def test_a_definition_in_a_file_the_task_names_is_not_pointed_at(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"calc.py": "def average(values):\n    return 0\n"})
    assert task_pointers("average() in calc.py divides by the wrong number.", ws) == (
        "Found in this repository: calc.py.\n\n"
        "calc.py (lines 1-2 of 2):\n```\ndef average(values):\n    return 0\n```"
    )
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


def test_files_the_task_names_are_pointed_at_with_the_calls_that_read_them(
    tmp_path: Path,
) -> None:
    # Told "Implement the stub in pangram.py so that the tests in pangram_test.py pass",
    # Qwen2.5-Coder-1.5B called repo_info and list_files in turn until the loop guard stopped
    # it, and never read pangram.py.
    ws = workspace(
        tmp_path,
        {"pangram.py": "def is_pangram(sentence):\n    pass\n", "pangram_test.py": "import x\n"},
    )
    task = "Implement the stub in pangram.py so that the tests in pangram_test.py pass."
    pointers = find_pointers(task, ws)
    assert pointers.text == (
        "Found in this repository: pangram.py, pangram_test.py.\n\n"
        "pangram.py (lines 1-2 of 2):\n```\ndef is_pangram(sentence):\n    pass\n```\n\n"
        "pangram_test.py (lines 1-1 of 1):\n```\nimport x\n```"
    )
    assert pointers.shown == ("pangram.py", "pangram_test.py")


def test_files_are_shown_whole_while_they_fit_and_the_rest_gets_the_call_that_reads_them(
    tmp_path: Path,
) -> None:
    # Shown the stub, Qwen2.5-Coder-1.5B in code mode wrote its implementation at once;
    # pointed at it, it answered without reading it (11 of 20 Exercism runs).
    big = "x = 1\n" * (SHOWN_MAX_CHARS // 6 + 1)
    ws = workspace(tmp_path, {"calc.py": "def f():\n    pass\n", "calc_test.py": big})
    pointers = find_pointers("Implement calc.py; calc_test.py has the tests.", ws)
    assert pointers.shown == ("calc.py",)
    assert pointers.text.endswith(
        'def f():\n    pass\n```\n\nRead it with read_file(path="calc_test.py").'
    )
    fenced = workspace(tmp_path / "md", {"notes.md": "```sh\nrun\n```\n"})
    assert "````\n```sh\nrun\n```\n````" in task_pointers("See notes.md.", fenced)


def test_a_named_file_is_found_by_its_name_in_a_folder_and_missing_files_are_not_named(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path, {"src/calc.py": "x = 1\n", "tests/test_calc.py": "y = 2\n"})
    task = "The test in test_calc.py fails. Fix calc.py, not util.py."
    assert find_pointers(task, ws).paths == ("tests/test_calc.py", "src/calc.py")
    assert find_pointers(task, ws).shown == ("tests/test_calc.py", "src/calc.py")
    assert task_pointers(task, ws).startswith(
        "Found in this repository: tests/test_calc.py, src/calc.py.\n\n"
        "tests/test_calc.py (lines 1-1 of 1):\n```\ny = 2\n```"
    )


def test_a_file_name_two_folders_hold_is_not_guessed(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a/calc.py": "x = 1\n", "b/calc.py": "y = 2\n"})
    assert task_pointers("Fix calc.py.", ws) == ""
    assert "b/calc.py" in task_pointers("Fix b/calc.py.", ws)


def test_a_task_that_says_which_tool_to_call_gets_no_file_pointer(tmp_path: Path) -> None:
    # The 135M demo model is told the exact propose_patch call; pointed at calc.py as well,
    # SmolLM2-135M read calc.py until the loop guard stopped it.
    ws = workspace(tmp_path, {"calc.py": "def average(values):\n    return 0\n"})
    task = 'calc.py has a bug. Call propose_patch with path "calc.py", old "0" and new "1".'
    assert task_pointers(task, ws) == ""
    assert task_pointers("Use read_file to read calc.py.", ws) == ""


def test_a_path_that_is_no_file_here_is_said_to_be_the_one_file_of_its_name(
    tmp_path: Path,
) -> None:
    """Told to read src/calc.py where only calc.py is, Qwen2.5-Coder-1.5B through
    llama-server read calc.py again and again (its schema allows only real paths), then
    answered with the wrong function or was stopped by the loop guard (L7, 2 runs of 3)."""
    ws = workspace(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n"})
    task = "Use read_file to read src/calc.py. Answer with the first function's name."
    assert (
        task_pointers(task, ws) == "There is no src/calc.py here: the file of that name is calc.py."
    )
    assert find_pointers(task, ws).paths == ()
    two = workspace(tmp_path / "two", {"a/calc.py": "x = 1\n", "b/calc.py": "y = 2\n"})
    assert task_pointers("Read src/calc.py.", two) == ""  # which one is not guessed
    assert task_pointers("Read src/other.py.", ws) == ""


def test_a_definition_and_a_named_file_share_one_pointer(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {"report.py": "def total_stock(items):\n    return 0\n", "test_report.py": "t = 1\n"},
    )
    assert task_pointers("total_stock() is wrong: test_report.py fails.", ws).startswith(
        "Found in this repository: total_stock is defined in report.py line 1 "
        "(`def total_stock(items):`); test_report.py.\n\nreport.py (lines 1-2 of 2):"
    )


FILE_TEXT = "def average(values):\n    return sum(values) / (len(values) + 1)\n"


def test_the_snippets_a_task_quotes_from_the_file_are_found_in_order() -> None:
    task = "Replace \"(len(values) + 1)\" with `len(values)`; keep 'sum(values)'."
    assert quoted_snippets(task, FILE_TEXT) == ["(len(values) + 1)", "len(values)", "sum(values)"]


def test_quotes_that_are_not_text_of_the_file_or_apostrophes_are_not_snippets() -> None:
    task = "It's wrong: don't divide by \"len(items)\" or `  `; see 'average' twice: 'average'."
    assert quoted_snippets(task, FILE_TEXT) == ["average"]
    assert quoted_snippets("no quotes here", FILE_TEXT) == []


REPORT = (
    "def total_stock(items):\n    total = 0\n    for item in items[1:]:\n"
    "        total += item.count\n    return total\n"
)


def test_the_tests_that_call_a_pointed_at_function_are_shown_beside_it(tmp_path: Path) -> None:
    # Shown report.py alone, Qwen2.5-Coder-1.5B did not see that `items[1:]` skips the first
    # item (L8, every run); the test says what the total must be.
    ws = workspace(
        tmp_path,
        {
            "report.py": REPORT,
            "tests/test_report.py": (
                "from report import total_stock\n\n\n"
                "def test_total_stock():\n"
                '    assert total_stock([Item("bolts", 3), Item("nuts", 4)]) == 7\n\n\n'
                "def test_other():\n    assert 1 == 1\n"
            ),
        },
    )
    text = task_pointers("total_stock() returns the wrong total. Fix it.", ws)
    assert text.endswith(
        "return total\n```\n\n"
        "A test of total_stock in tests/test_report.py line 4:\n```\n"
        "def test_total_stock():\n"
        '    assert total_stock([Item("bolts", 3), Item("nuts", 4)]) == 7\n```'
    )
    assert "test_other" not in text


def test_tests_are_shortest_first_bounded_and_not_for_tasks_that_name_tools(
    tmp_path: Path,
) -> None:
    long_test = (
        "def test_long():\n" + "    x = 1\n" * (MAX_TEST_LINES + 1) + "    total_stock([])\n"
    )
    method = (
        "class TestReport:\n    @staticmethod\n    def test_method():\n"
        "        assert total_stock([]) == 0\n"
    )
    short = "def test_a():\n    assert total_stock([]) == 0\n"
    ws = workspace(
        tmp_path,
        {
            "report.py": REPORT,
            "test_long.py": long_test,
            "report_test.py": method,
            "tests/test_short.py": short,
            "tests/broken_test.py": "def test_x(:\n",
        },
    )
    found = calling_tests(["total_stock"], ws, ws.list_files())
    assert [(t.path, t.line) for t in found] == [("tests/test_short.py", 1), ("report_test.py", 3)]
    assert found[1].text == "@staticmethod\ndef test_method():\n    assert total_stock([]) == 0"
    assert len(found) == MAX_TESTS
    told = "Use read_file to read the code of total_stock(), then final_answer."
    assert "A test of" not in task_pointers(told, ws)
