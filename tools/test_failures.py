"""What a failing test run points at: the code under test, named in `run_tests`' reply.

A small model shown a failing assertion rewrites the assertion: Qwen2.5-Coder-1.5B patched
the test file on 12 of 12 bug-fix tasks ("The tests in test_X.py fail. Find and fix the bug
in X.py.") and never read X.py. The reply of a failing run therefore says which files the
failing tests exercise (the non-test files in the traceback, then what the failing test
files import, those whose names the failing assertion calls first) and the exact call that
reads the first one.

Only names of files that exist in the workspace come out; test files are read through the
workspace (open buffers included) and parsed, never run.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Collection, Iterable, Iterator

from safety.errors import propose_patch_call
from sandbox.project import is_test_file
from tools.workspace import Workspace

MAX_NAMED = 3
MAX_TEST_FILE_CHARS = 200_000  # a larger test file is not parsed for its imports
_FAILED = re.compile(r"^(?:FAILED|ERROR) ([\w./-]+\.py)::", re.M)  # pytest's summary
_FRAME = re.compile(r"^([\w./-]+\.py):\d+: ", re.M)  # pytest's traceback locations
_UNITTEST_FRAME = re.compile(r'^\s*File "([\w./-]+\.py)", line \d+', re.M)
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR): \w+ \(([\w.]+)\)", re.M)
# pytest's assertion report: "+  where 4 = total_stock([...])", and the failing line "> ...".
_WHERE_CALL = re.compile(r"^E\s+\+\s+where .*? = ([\w.]+)\(", re.M)
_FAILING_LINE = re.compile(r"^>\s+(.+)$", re.M)
_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(")


def code_under_test(output: str, workspace: Workspace) -> list[str]:
    """Non-test files of the workspace that the failing tests in `output` exercise, most
    likely first: files named in the traceback, then the failing test files' imports."""
    named = [p for pattern in (_FRAME, _UNITTEST_FRAME, _FAILED) for p in pattern.findall(output)]
    mentioned = [known for path in _unique(named) if (known := _in_workspace(path, workspace))]
    for test_id in _UNITTEST_FAILED.findall(output):  # "test_x (pkg.test_mod.Class.test_x)"
        parts = test_id.split(".")
        modules = ("/".join(parts[:end]) + ".py" for end in range(len(parts), 0, -1))
        mentioned.extend(m for m in modules if is_test_file(m) and _exists(workspace, m))
    mentioned = _unique(mentioned)
    found = [path for path in mentioned if not is_test_support(path)]
    imported: list[tuple[str, set[str]]] = []
    for test_file in (path for path in mentioned if is_test_file(path)):
        imported.extend(_imported_files(test_file, workspace))
    called = _called_names(output)

    def first_called(item: tuple[str, set[str]]) -> int:
        """Where the file's imported names come first among the calls the failure shows:
        `from inventory import Item` and `from report import total_stock` for a failing
        `assert total_stock([Item(...)]) == 7`: report.py first."""
        return min((called.index(name) for name in item[1] if name in called), default=len(called))

    found.extend(path for path, _ in sorted(imported, key=first_called))
    return _unique(found)[:MAX_NAMED]


def _called_names(output: str) -> list[str]:
    """Names the failing assertions call, the call that gave the wrong value first (pytest's
    `where` lines, then the failing lines), each dotted name also by its parts."""
    dotted = _WHERE_CALL.findall(output)
    for line in _FAILING_LINE.findall(output):
        dotted.extend(_CALL.findall(line))
    return _unique(part for name in dotted for part in (name, *name.split(".")))


_TEST_HEADER = re.compile(r"^_{3,} (\S+) _{3,}$", re.M)  # pytest: "____ Test.test_x ____"
_ERROR_LINE = re.compile(r"^E\s+(\S.*)$", re.M)
_RAISED_AT = re.compile(r"^([\w./-]+\.py):(\d+): \w", re.M)
FIRST_FAILURE_CHARS = 300


def first_failure(output: str) -> str:
    """The first failing test of pytest's `output` in one line, as the model needs it to go
    on: the test, its failing statement, the error and where it was raised
    (`ScrabbleScoreTest.test_lowercase_letter: `self.assertEqual(score("a"), 1)`:
    AssertionError: 0 != 1 (scrabble_score_test.py line 7)`), or "" when the output shows
    none. Told only which tests still failed after its first version of say(),
    Qwen2.5-Coder-1.5B applied it and answered; told the error alone (`AssertionError: 0 !=
    14`), it could not tell which input gave it and wrote the same fix again."""
    found = failures(output, 1)
    return found[0] if found else ""


def failures(output: str, limit: int) -> list[str]:
    """The first `limit` failing tests of pytest's `output`, each in one line as
    `first_failure` gives it. Shown one failing test of nine (test_blue_and_violet_and_blue),
    Qwen2.5-Coder-1.5B wrote the same label() again and again (resistor-color-trio); the
    expected values of a few tests show the rule ("33 ohms", "2 kiloohms", "470 kiloohms")."""
    found: list[str] = []
    for test, section in _sections(output):
        line = _failure_line(test, section)
        if line:
            found.append(line)
        if len(found) >= limit:
            break
    return found


def fail_by_value(output: str) -> bool:
    """Whether every failing test pytest's `output` shows fails at its assertion (the code
    ran and gave a value the test did not expect: `AssertionError: 31.7 != 31.69`), none by
    an error the code raised or a name it lacks; False when the output shows no failing
    test."""
    sections = list(_sections(output))
    for _test, section in sections:
        error = _ERROR_LINE.search(section)
        if error is None or not error.group(1).startswith(("AssertionError", "assert ")):
            return False
    return bool(sections)


def _sections(output: str) -> Iterator[tuple[str, str]]:
    """Each failing test pytest's `output` reports at length: its name and its section."""
    headers = list(_TEST_HEADER.finditer(output))
    for number, header in enumerate(headers):
        end = headers[number + 1].start() if number + 1 < len(headers) else len(output)
        yield header.group(1), output[header.end() : end]


def _failure_line(test: str, section: str) -> str:
    error = _ERROR_LINE.search(section)
    if error is None:
        return ""
    failing = _FAILING_LINE.search(section[: error.start()])  # the test's own statement
    statement = f"`{failing.group(1).strip()}`: " if failing else ""
    text = f"{test}: {statement}{error.group(1).strip()}"
    raised = list(_RAISED_AT.finditer(section))
    if raised:
        text += f" ({raised[-1].group(1)} line {raised[-1].group(2)})"
    return text if len(text) <= FIRST_FAILURE_CHARS else text[: FIRST_FAILURE_CHARS - 1] + "…"


def next_step_after_failure(output: str, workspace: Workspace, read: Collection[str] = ()) -> str:
    """The reply's `next` for a failing run ("" when no code under test is found): read the
    code under test, or, once it is among the files `read`, change it. Told to read it
    again, Qwen2.5-Coder-1.5B went between read_file and run_tests until the loop guard
    stopped it (2 of 12 bug-fix tasks)."""
    files = code_under_test(output, workspace)
    if not files:
        return ""
    named, first = ", ".join(files), files[0]
    tests_say = "the tests say what is expected, so change a test only if the task asks for it."
    if first in read:
        return (
            f"The failing tests exercise {named}, which you have read. Next: fix the bug in "
            f"{first} with {propose_patch_call(first)}; {tests_say}"
        )
    return (
        f'The failing tests exercise {named}. Next: read_file(path="{first}") and fix the bug '
        f"in that code; {tests_say}"
    )


def _imported_files(test_file: str, workspace: Workspace) -> list[tuple[str, set[str]]]:
    """The workspace files `test_file` imports, each with the names it binds from them."""
    try:
        text = workspace.read_text(test_file)
    except (OSError, ValueError):
        return []
    if len(text) > MAX_TEST_FILE_CHARS:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    directory = posixpath.dirname(test_file)
    files: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [_resolve(a.name, 0, directory, workspace) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            # `from pkg import mod` names pkg/mod.py; the package itself only when none is one
            base, level = node.module or "", node.level
            names = (f"{base}.{a.name}" if base else a.name for a in node.names)
            found = [_resolve(name, level, directory, workspace) for name in names]
            if not any(found):
                found = [_resolve(base, level, directory, workspace)] * len(node.names)
        else:
            continue
        for alias, path in zip(node.names, found, strict=True):
            if path and not is_test_support(path):
                files.setdefault(path, set()).add(alias.asname or alias.name.split(".")[0])
    return list(files.items())


def _resolve(module: str, level: int, directory: str, workspace: Workspace) -> str | None:
    """The workspace file `module` is imported from, if it is one."""
    paths = _module_files(module, level, directory)
    return next((path for path in paths if _exists(workspace, path)), None)


def _module_files(module: str, level: int, directory: str) -> list[str]:
    """Where `module` (imported `level` packages up from `directory`) may live."""
    if not module:
        return []
    stem = module.replace(".", "/")
    if level:
        up = directory
        for _ in range(level - 1):
            up = posixpath.dirname(up)
        bases = [up]
    else:  # the test's folder (rootdir-relative imports), the root, src layout
        bases = _unique([directory, "", "src"])
    paths: list[str] = []
    for base in bases:
        for suffix in (".py", "/__init__.py"):
            paths.append(_relative(posixpath.join(base, stem + suffix)))
    return paths


def is_test_support(path: str) -> bool:
    """Whether `path` is a test module, a conftest.py, or in a `tests/` or `test/` folder."""
    name = posixpath.basename(path)
    folders = path.split("/")[:-1]
    return is_test_file(path) or name == "conftest.py" or bool({"test", "tests"} & set(folders))


def _exists(workspace: Workspace, path: str) -> bool:
    try:
        return workspace.exists(path)
    except (OSError, ValueError):  # a path the workspace refuses is not named
        return False


def _in_workspace(path: str, workspace: Workspace) -> str:
    """`path` as the workspace names it ("" when it is not one of its files). An absolute
    path (unittest prints them; the sandbox's copy lives elsewhere) is matched by its
    longest tail that is a workspace file, never an installed library's."""
    if not path.startswith("/"):
        relative = _relative(path)
        return relative if relative and _exists(workspace, relative) else ""
    if "/lib/python" in path or "-packages/" in path:
        return ""
    parts = [part for part in path.split("/") if part]
    tails = ("/".join(parts[start:]) for start in range(len(parts)))
    return next((tail for tail in tails if _exists(workspace, tail)), "")


def _relative(path: str) -> str:
    normal = posixpath.normpath(path)
    if normal.startswith(("/", "../")) or normal in (".", ".."):
        return ""
    return normal


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def called_names(node: ast.AST) -> set[str]:
    """The names `node` calls: `f(...)` and `obj.f(...)` (a test function's, say)."""
    called: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            if isinstance(inner.func, ast.Name):
                called.add(inner.func.id)
            elif isinstance(inner.func, ast.Attribute):
                called.add(inner.func.attr)
    return called
