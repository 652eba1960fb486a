"""Test results of one check run (JUnit XML), and what a patch changed: before vs after.

A check runs the tests on the unpatched tree (the baseline, cached) and on the patched
tree. `compare` turns the two runs into tests **fixed**, **broken** and **still
failing**, by test id, and a verdict:

- `passed`: nothing broke (tests failing before the patch may still fail);
- `failed`: a test that passed (or did not exist) before fails after, or the command
  failed only after the patch;
- `cannot run`: the environment is incomplete before and after the patch (a missing
  declared module, a collection error on import, a missing toolchain). That says nothing
  about the patch; the fix is `lsp-agent sandbox prepare` (or a toolchain in the image).

Per-test results come from JUnit XML (pytest `--junitxml`; other runners through their
own reporters); without it the verdict falls back to the command's exit codes.
Standard library only: the XML is parsed with `xml.etree` after refusing any DOCTYPE
(no entity tricks from a report written by repository code).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree

PREPARE_FIX = "run `lsp-agent sandbox prepare`"
REPORT_LIMIT = 4_000_000  # characters of JUnit XML read from a run
_PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
_MISSING_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_CANNOT_IMPORT = re.compile(r"ImportError: (cannot import name [^\n]{1,200})")
# Node: a bare specifier (a package, not ./file) that CommonJS or ESM cannot find.
_NODE_MISSING = re.compile(r"Cannot find (?:module|package) '([^'./][^']{0,200})'")
# Go and Rust fetch modules and crates on demand; a check has no network.
_GO_OFFLINE = re.compile(
    r"no required module provides package ([^\s;]{1,200})|missing go\.sum entry|"
    r"dial tcp: lookup proxy\.golang\.org"
)
_CARGO_OFFLINE = re.compile(
    r"failed to (?:get|download|load source for) `([^`]{1,100})`|no matching package named "
    r"`([^`]{1,100})`|Could not resolve host: (?:index\.)?crates\.io"
)
VENDOR_FIX = 'vendor them in the repository (sandbox/README.md, "Adding a toolchain")'
_MISSING_COMMAND = re.compile(r"cannot run '([^']+)'|(\S+): (?:command )?not found")


@dataclass(frozen=True)
class CheckRun:
    """One run of the check command.

    `outcomes` maps test ids to passed (True) or failed/errored (False), skipped tests
    left out; None when the run left no JUnit report. `collection_errors` are the ids
    of files that could not be collected. `problem` says why the environment cannot run
    the tests (None when nothing points at the environment).
    """

    exit_code: int | None
    outcomes: dict[str, bool] | None
    problem: str | None = None
    timed_out: bool = False

    @property
    def ran_tests(self) -> bool:
        """Whether at least one test (not a collection entry) ran to a result."""
        return bool(self.outcomes) and any(
            not test_id.endswith(_COLLECTION_SUFFIX) for test_id in self.outcomes or {}
        )


@dataclass(frozen=True)
class Comparison:
    """What the patch changed. `verdict` is `passed`, `failed` or `cannot run`."""

    verdict: str
    fixed: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()
    still_failing: tuple[str, ...] = ()
    failing_before: bool = False  # the command failed on the unpatched tree too
    problem: str = ""  # for `cannot run`: the reason and the fix
    per_test: bool = True  # False: a run left no JUnit report, the exit statuses decided


_COLLECTION_SUFFIX = " (collection)"


def is_pytest(argv: Sequence[str]) -> bool:
    """`pytest ...`, `py.test ...` or `python -m pytest ...`."""
    if not argv:
        return False
    name = os.path.basename(argv[0])
    if name in ("pytest", "py.test"):
        return True
    return bool(_PYTHON.match(name)) and list(argv[1:3]) == ["-m", "pytest"]


def with_report(argv: Sequence[str], report_path: str) -> list[str]:
    """`argv` plus the options that make its runner write JUnit XML to `report_path`.

    Only pytest is known; any other command is returned unchanged (exit codes only).
    """
    command = list(argv)
    if is_pytest(command):
        return [*command, f"--junitxml={report_path}", "-o", "junit_family=xunit1"]
    return command


def parse_junit(text: str) -> dict[str, bool] | None:
    """Test id -> passed from a JUnit XML report; None when it is missing or unreadable."""
    if not text.strip() or len(text) > REPORT_LIMIT or "<!DOCTYPE" in text.upper():
        return None
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return None
    outcomes: dict[str, bool] = {}
    for case in root.iter("testcase"):
        children = {child.tag for child in case}
        if "skipped" in children and not children & {"failure", "error"}:
            continue
        test_id = _test_id(case)
        passed = not children & {"failure", "error"}
        outcomes[test_id] = outcomes.get(test_id, True) and passed
    return outcomes


def _test_id(case: ElementTree.Element) -> str:
    """`tests/test_calc.py::TestX::test_add` when the report names the file (xunit1)."""
    name = case.get("name", "")
    classname = case.get("classname", "")
    path = case.get("file", "")
    if not path:
        return f"{classname}::{name}" if classname else name
    if not classname:  # pytest's entry for a file it could not collect
        return path + _COLLECTION_SUFFIX
    module = path[:-3].replace("/", ".") if path.endswith(".py") else ""
    classes = classname[len(module) + 1 :] if module and classname.startswith(module + ".") else ""
    parts = [path, *classes.split(".")] if classes else [path]
    return "::".join([*parts, name])


def environment_problem(output: str, exit_code: int | None) -> str | None:
    """Why the environment cannot run the tests, from a run's output; None if no sign."""
    if "No module named pytest" in output:
        return "pytest is not installed in the sandbox"
    missing = _MISSING_MODULE.search(output)
    if missing:
        return f"No module named '{missing.group(1)}'"
    node_missing = _NODE_MISSING.search(output)
    if node_missing and not node_missing.group(1).startswith("node:"):
        return f"Cannot find module '{node_missing.group(1)}' (a Node dependency)"
    if _GO_OFFLINE.search(output):
        return "Go modules are not available offline (the check has no network)"
    if _CARGO_OFFLINE.search(output):
        return "Rust crates are not available offline (the check has no network)"
    cannot_import = _CANNOT_IMPORT.search(output)
    if cannot_import and "while importing test module" in output:
        return cannot_import.group(1)
    if exit_code == 127:
        command = _MISSING_COMMAND.search(output)
        name = next((group for group in command.groups() if group), "") if command else ""
        return f"{name or 'the check command'} is not installed in the sandbox image"
    return None


def check_run(
    exit_code: int | None, output: str, report: str | None, *, timed_out: bool = False
) -> CheckRun:
    """A `CheckRun` from what the driver returned for one run."""
    return CheckRun(
        exit_code=exit_code,
        outcomes=parse_junit(report) if report else None,
        problem=environment_problem(output, exit_code),
        timed_out=timed_out,
    )


def compare(before: CheckRun, after: CheckRun) -> Comparison:
    """What the patch changed, from the unpatched run and the patched run."""
    fixed, broken, still = _lists(before, after)
    if before.problem and after.problem and not after.ran_tests:
        reason = after.problem
        fix = PREPARE_FIX if "image" not in reason else "add it to the image recipe"
        if "available offline" in reason:
            fix = VENDOR_FIX
        problem = f"{reason} (before and after the patch); fix: {fix}"
        return Comparison("cannot run", fixed, broken, still, problem=problem)
    failing_before = before.exit_code != 0
    per_test = before.outcomes is not None and after.outcomes is not None
    verdict = "failed"
    if after.exit_code == 0:
        verdict = "passed"
    elif before.outcomes is not None and after.outcomes is not None:
        same_exit = before.exit_code == after.exit_code
        quiet = not any(not ok for ok in after.outcomes.values()) and not same_exit
        verdict = "failed" if broken or quiet else "passed"
    return Comparison(verdict, fixed, broken, still, failing_before, per_test=per_test)


def _lists(
    before: CheckRun, after: CheckRun
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    if before.outcomes is None or after.outcomes is None:
        return (), (), ()
    old, new = before.outcomes, after.outcomes
    fixed = tuple(test for test, ok in new.items() if ok and old.get(test) is False)
    broken = tuple(test for test, ok in new.items() if not ok and old.get(test) is not False)
    still = tuple(test for test, ok in new.items() if not ok and old.get(test) is False)
    return fixed, broken, still
