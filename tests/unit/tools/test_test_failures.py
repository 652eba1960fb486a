"""A failing run_tests names the code under test (not the test file) and the call that
reads it; the output parsed is real pytest and unittest output of real failing repos."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sandbox.project import project_profile
from sandbox.protocol import RunResult
from tests.fake_sandbox import FakeSandbox
from tests.tool_context import tool_context
from tools.command_tools import RunTests
from tools.test_failures import code_under_test, first_failure, next_step_after_failure
from tools.workspace import DiskWorkspace

TEMPERATURE = "def is_freezing(celsius):\n    return celsius < 0\n"
TEST_TEMPERATURE = (
    "from temperature import is_freezing\n\n\n"
    "def test_zero_freezes():\n    assert is_freezing(0)\n\n\n"
    "def test_warm():\n    assert not is_freezing(5)\n"
)


def real_output(root: Path, *argv: str) -> str:
    """What the test command prints in `root` (the repository's tests really run)."""
    done = subprocess.run(
        [sys.executable, "-B", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        timeout=300,
    )
    assert done.returncode != 0, done.stdout
    return done.stdout + "\n" + done.stderr


def bugfix_repo(root: Path) -> Path:
    (root / "temperature.py").write_text(TEMPERATURE)
    (root / "test_temperature.py").write_text(TEST_TEMPERATURE)
    return root


def test_a_failing_assertion_in_the_test_names_the_module_it_imports(tmp_path: Path) -> None:
    root = bugfix_repo(tmp_path)
    output = real_output(root, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert code_under_test(output, DiskWorkspace(root)) == ["temperature.py"]
    hint = next_step_after_failure(output, DiskWorkspace(root))
    assert 'read_file(path="temperature.py")' in hint


def test_a_failure_raised_in_the_code_names_that_file_first(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "shop"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "prices.py").write_text("def net(x):\n    raise ValueError(x)\n")
    (pkg / "helpers.py").write_text("ROUND = 2\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_prices.py").write_text(
        "from shop import helpers\nfrom shop.prices import net\n\n\n"
        "def test_net():\n    assert net(3) == 3\n"
    )
    output = real_output(
        tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", ".", "-o",
        "pythonpath=src",
    )  # fmt: skip
    assert code_under_test(output, DiskWorkspace(tmp_path)) == [
        "src/shop/prices.py",
        "src/shop/helpers.py",
    ]


def test_the_module_whose_function_the_failing_assertion_calls_comes_first(
    tmp_path: Path,
) -> None:
    """`from inventory import Item` is imported first, but the wrong value came from
    `total_stock` (pytest: `where 4 = total_stock(...)`): report.py is named first."""
    (tmp_path / "inventory.py").write_text(
        "class Item:\n    def __init__(self, name, count):\n        self.count = count\n"
    )
    (tmp_path / "report.py").write_text(
        "def total_stock(items):\n    return sum(i.count for i in items[1:])\n"
    )
    (tmp_path / "test_report.py").write_text(
        "from inventory import Item\nfrom report import total_stock\n\n\n"
        'def test_total():\n    assert total_stock([Item("a", 3), Item("b", 4)]) == 7\n'
    )
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert code_under_test(output, DiskWorkspace(tmp_path)) == ["report.py", "inventory.py"]


def test_unittest_output_is_read_too(tmp_path: Path) -> None:
    root = bugfix_repo(tmp_path)
    (root / "test_temperature.py").write_text(
        "import unittest\n\nimport temperature\n\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_zero(self):\n        self.assertTrue(temperature.is_freezing(0))\n"
    )
    output = real_output(root, "-m", "unittest", "test_temperature")
    assert code_under_test(output, DiskWorkspace(root)) == ["temperature.py"]


def test_nothing_is_named_outside_the_workspace_or_when_nothing_matches(tmp_path: Path) -> None:
    root = bugfix_repo(tmp_path)
    outside = "../secret.py:3: AssertionError\n/etc/x.py:1: in f\nFAILED gone_test.py::t - x\n"
    assert code_under_test(outside, DiskWorkspace(root)) == []
    assert next_step_after_failure("error: no tests ran", DiskWorkspace(root)) == ""
    (root / "test_temperature.py").write_text("def test(:\n")  # unparsable: no imports
    assert code_under_test("FAILED test_temperature.py::test", DiskWorkspace(root)) == []


def test_run_tests_puts_the_next_step_in_a_failing_reply_only(tmp_path: Path) -> None:
    root = bugfix_repo(tmp_path)
    output = real_output(root, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    failing = FakeSandbox(run_result=RunResult(1, output, "", False, 0.1, "docker"))
    context = tool_context(
        DiskWorkspace(root), sandbox_factory=lambda: failing, project=project_profile(root)
    )
    reply = json.loads(json.dumps(RunTests(context).forward()))
    assert reply["passed"] is False
    assert list(reply)[:2] == ["passed", "next"]  # ahead of the output a cut may shorten
    assert 'read_file(path="temperature.py")' in reply["next"]
    passing = FakeSandbox(run_result=RunResult(0, "2 passed\n", "", False, 0.1, "docker"))
    context = tool_context(
        DiskWorkspace(root), sandbox_factory=lambda: passing, project=project_profile(root)
    )
    assert "next" not in RunTests(context).forward()


def test_the_first_failure_is_its_test_its_error_and_where_it_was_raised(tmp_path: Path) -> None:
    (tmp_path / "say.py").write_text("def say(n):\n    return ones[n]\n")
    (tmp_path / "say_test.py").write_text(
        "import unittest\nfrom say import say\n\n\nclass SayTest(unittest.TestCase):\n"
        "    def test_one(self):\n        self.assertEqual(say(1), 'one')\n\n"
        "    def test_two(self):\n        self.assertEqual(say(2), 'two')\n"
    )
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert first_failure(output) == (
        "SayTest.test_one: `self.assertEqual(say(1), 'one')`: NameError: name 'ones' is not "
        "defined (say.py line 2)"
    )
    (tmp_path / "say.py").write_text("def say(n):\n    return 'two'\n")
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert first_failure(output) == (
        "SayTest.test_one: `self.assertEqual(say(1), 'one')`: AssertionError: 'two' != 'one' "
        "(say_test.py line 7)"
    )
    assert first_failure("2 passed in 0.01s") == ""


def test_test_support_is_test_modules_conftest_and_test_folders() -> None:
    from tools.test_failures import is_test_support

    for path in ("say_test.py", "test_say.py", "conftest.py", "tests/util.py", "pkg/test/h.py"):
        assert is_test_support(path), path
    for path in ("say.py", "pkg/testing.py", "contest/say.py"):
        assert not is_test_support(path), path


def test_once_the_code_under_test_was_read_the_hint_is_to_change_it(tmp_path: Path) -> None:
    root = bugfix_repo(tmp_path)
    output = real_output(root, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    hint = next_step_after_failure(output, DiskWorkspace(root), read={"temperature.py"})
    assert "which you have read" in hint and "read_file" not in hint
    assert 'propose_patch(path="temperature.py", old="' in hint


def test_a_patch_still_failing_names_its_first_three_failing_tests(tmp_path: Path) -> None:
    # resistor-color-trio: one failing test of nine did not show the rule; three show more
    from sandbox.protocol import PatchCheck
    from tools.patches import still_failing
    from tools.test_failures import failures

    (tmp_path / "label.py").write_text("def label(n):\n    return f'{n} ohms'\n")
    cases = [(1, "1 ohms"), (2000, "2 kiloohms"), (470000, "470 kiloohms"), (5, "5 megaohms")]
    tests = "".join(
        f"    def test_{n}(self):\n        self.assertEqual(label({n}), {expected!r})\n\n"
        for n, expected in cases
    )
    (tmp_path / "label_test.py").write_text(
        "import unittest\nfrom label import label\n\n\nclass LabelTest(unittest.TestCase):\n"
        + tests
    )
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    shown = failures(output, 3)
    assert [line.split(":")[0] for line in shown] == [
        "LabelTest.test_2000",
        "LabelTest.test_470000",
        "LabelTest.test_5",
    ]
    assert "AssertionError: '2000 ohms' != '2 kiloohms'" in shown[0]
    check = PatchCheck(True, True, output, 0.1, still_failing=("a", "b", "c"))
    text = still_failing(check)
    assert text.startswith("3 tests still fail with the patch (first: LabelTest.test_2000: ")
    assert text.count("; then LabelTest.") == 2 and text.endswith("(label_test.py line 16)).")


def test_failing_tests_whose_code_ran_and_gave_wrong_values_fail_by_value(tmp_path: Path) -> None:
    # space-age: eight methods written with round(…, 1) where the tests want two places
    from tools.test_failures import fail_by_value

    (tmp_path / "space_age.py").write_text(
        "class SpaceAge:\n    def __init__(self, seconds):\n"
        "        self.years = seconds / 31557600\n\n"
        "    def on_earth(self):\n        return round(self.years, 1)\n"
    )
    (tmp_path / "space_age_test.py").write_text(
        "import unittest\nfrom space_age import SpaceAge\n\n\n"
        "class SpaceAgeTest(unittest.TestCase):\n"
        "    def test_earth(self):\n"
        "        self.assertEqual(SpaceAge(1000000000).on_earth(), 31.69)\n\n"
        "    def test_plain(self):\n        assert SpaceAge(0).on_earth() == 1\n\n"
        "    def test_mars(self):\n"
        "        self.assertEqual(SpaceAge(2129871239).on_mars(), 35.88)\n"
    )
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert not fail_by_value(output)  # on_mars does not exist: an AttributeError
    with (tmp_path / "space_age.py").open("a") as handle:
        handle.write("\n    def on_mars(self):\n        return round(self.years / 1.88, 1)\n")
    output = real_output(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert "31.7 != 31.69" in output and "assert 0.0 == 1" in output
    assert fail_by_value(output)
    assert not fail_by_value("3 passed in 0.01s") and not fail_by_value("")
