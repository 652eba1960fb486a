"""Where the code a task names is defined, said to the model beside the task.

Told "total_stock() returns the wrong total. Fix it.", Qwen2.5-Coder-1.5B patched the first
file it thought of (`inventory.py`, `class Item:`) without searching, and answered that the
total was fixed; `total_stock` is defined in `report.py`. A person would search first; a small
model often does not, and each search costs it a step and a prompt. So before the job the
agent looks up the names the task mentions (`name()`, `` `name` ``, `snake_case`) in the
workspace's source files, the way aider's repository map gives the
model the definitions it needs, and the task message ends with one line per definition found
and the call that reads its file:

    Found in this repository: total_stock is defined in report.py line 12
    (`def total_stock(items):`). Read it with read_file(path="report.py").

Files the task names are pointed at too, with the calls that read them: told "Implement the
stub in pangram.py so that the tests in pangram_test.py pass", Qwen2.5-Coder-1.5B called
repo_info and list_files in turn until the loop guard stopped it, and never read pangram.py.

    Found in this repository: pangram.py, pangram_test.py. Read them with
    read_file(path="pangram.py") and read_file(path="pangram_test.py").

Beside a definition it points at, the test functions that call it, whole (`calling_tests`): the
test says what the function must return, which the code alone did not tell the model.

A path the task writes with a folder, that is no file here while one file has its name, is
said to be that file (`There is no src/calc.py here: the file of that name is calc.py.`).

Only functions and classes are pointed at, with their signature line; a constant's
assignment is not (its value is for the model to read, and a small model told where it is
answered with the place instead of the value).

Bounded: at most `MAX_FILES` files of at most `MAX_FILE_BYTES` each, `MAX_NAMES` names,
`MAX_PLACES` places. The text is repository text, like a tool's result: nothing in it is
followed as an instruction by the agent, and it changes no setting or permission.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import NamedTuple

from lsp_agent.agent.calling_tests import CallingTest, calling_tests
from tools.registry import TOOL_NAMES
from tools.workspace import Workspace, read_text_within

MAX_FILES = 2000
MAX_FILE_BYTES = 256_000
MAX_NAMES = 4
MAX_PLACES = 3
SHOWN_MAX_CHARS = 6000  # about 1,700 tokens of file text in the task message
SOURCE_SUFFIXES = (".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".rb", ".java")
_NAME = re.compile(
    r"`([A-Za-z_]\w*)(?:\(\))?`"  # `name` or `name()`
    r"|\b([A-Za-z_]\w*)\(\)"  # name()
    r"|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"  # snake_case
)
NOT_CODE = frozenset({*TOOL_NAMES, "final_answer"})  # the agent's own tools, named in tasks
_READABLE_SUFFIXES = (*SOURCE_SUFFIXES, ".txt", ".md", ".toml", ".json", ".yaml", ".yml", ".cfg")
# A file name as a task writes it: `calc.py`, src/calc.py, ./calc.py (not a URL's tail).
_FILE = re.compile(
    r"(?<![\w/.:-])((?:\./)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:"
    + "|".join(suffix[1:] for suffix in _READABLE_SUFFIXES)
    + r"))(?![\w/-])"
)
# Only functions and classes are pointed at: told where a constant is assigned ("MAX_ITEMS
# is defined in config.py line 3"), Qwen2.5-Coder-1.5B answered with that sentence instead of
# reading the value (L3: 2 of 3 runs).
_DEFINITION = r"^\s*(?:(?:async\s+)?def|class|function|func|fn|pub\s+fn)\s+{name}\b"


@dataclass(frozen=True)
class Place:
    """One definition of a name the task mentions."""

    name: str
    path: str
    line: int
    text: str  # the signature line


def task_names(task: str) -> list[str]:
    """The code names `task` mentions, in order, without repeats (at most `MAX_NAMES`)."""
    names: list[str] = []
    for match in _NAME.finditer(task):
        name = next(group for group in match.groups() if group)
        if name not in names and name not in NOT_CODE:
            names.append(name)
    return names[:MAX_NAMES]


def find_definitions(
    names: Iterable[str], workspace: Workspace, files: list[str] | None = None
) -> list[Place]:
    """Where `names` are defined in the workspace's source files (at most `MAX_PLACES`;
    `files`: the workspace's files when the caller has listed them already)."""
    patterns = {name: re.compile(_DEFINITION.format(name=re.escape(name))) for name in names}
    if not patterns:
        return []
    places: list[Place] = []
    listed = workspace.list_files() if files is None else files
    sources = [p for p in listed if p.endswith(SOURCE_SUFFIXES)]
    for path in sources[:MAX_FILES]:
        text = _source(workspace, path)
        for number, line in enumerate(text.splitlines(), start=1):
            for name, pattern in patterns.items():
                if pattern.match(line):
                    places.append(Place(name, path, number, line.strip()[:120]))
                    if len(places) == MAX_PLACES:
                        return places
    return places


def _source(workspace: Workspace, path: str) -> str:
    return read_text_within(workspace, path, MAX_FILE_BYTES)


def _named_files(words: list[str], files: list[str]) -> list[str]:
    """The workspace `files` the task's file `words` name (`calc.py`, `src/calc.py`), in the
    task's order: a path as written, or a bare name exactly one file has (at most
    `MAX_PLACES`)."""
    files = files[:MAX_FILES]
    found: list[str] = []
    for word in words:
        matches = [word] if word in files else [f for f in files if f.endswith("/" + word)]
        if len(matches) == 1 and matches[0] not in found:
            found.append(matches[0])
    return found[:MAX_PLACES]


def _misnamed_files(words: list[str], files: list[str]) -> list[tuple[str, str]]:
    """(path as the task writes it, file) for each path in `words` with a folder that is no
    file here while exactly one file has its name (`src/calc.py`, where only `calc.py` is):
    told to read src/calc.py, Qwen2.5-Coder-1.5B through llama-server, whose schema allows
    only real paths, read calc.py again and again (L7)."""
    found: list[tuple[str, str]] = []
    for word in words:
        if "/" not in word or word in files:
            continue
        name = PurePosixPath(word).name
        matches = [f for f in files[:MAX_FILES] if PurePosixPath(f).name == name]
        if len(matches) == 1:
            found.append((word, matches[0]))
    return found[:MAX_PLACES]


# Text the task quotes: "…", `…`, or '…' between non-word characters (not it's … don't).
_QUOTED = re.compile(r'"([^"\n]{2,})"|`([^`\n]{2,})`|(?<!\w)\'([^\'\n]{2,})\'(?!\w)')


def quoted_snippets(task: str, text: str) -> list[str]:
    """The snippets the task quotes that are text of `text` (a file), in the task's order:
    told to replace "(len(values) + 1)", a model choosing what to replace among the file's
    lines alone took the shortest one (`def average(values):`)."""
    found: list[str] = []
    for match in _QUOTED.finditer(task):
        snippet = next(group for group in match.groups() if group is not None)
        if snippet.strip() and snippet in text and snippet not in found:
            found.append(snippet)
    return found


def names_a_tool(task: str) -> bool:
    """Whether the task says which of the agent's tools to call (`read_file`, …)."""
    return any(re.search(rf"\b{name}\b", task) for name in NOT_CODE)


class Pointers(NamedTuple):
    """The text the task message ends with, the files it names (definitions' first) and
    those of them whose whole text it carries."""

    text: str
    paths: tuple[str, ...]
    shown: tuple[str, ...] = ()


def find_pointers(task: str, workspace: Workspace) -> Pointers:
    """What to tell the model beside `task` (empty when it would say nothing new).

    A definition in a file the task names is not pointed at. The files the task names are,
    unless the task already says which tool to call: told the demo's exact `propose_patch`
    call and pointed at calc.py as well, SmolLM2-135M read calc.py until the loop guard
    stopped it."""
    words, names = _file_words(task), task_names(task)
    listed = workspace.list_files() if words or names else []  # one listing for both
    told_tools = names_a_tool(task)
    files = [] if told_tools else _named_files(words, listed)
    named = {PurePosixPath(word).name for word in words}
    places = [
        p
        for p in find_definitions(names, workspace, listed)
        if PurePosixPath(p.path).name not in named
    ]
    found = [f"{p.name} is defined in {p.path} line {p.line} (`{p.text}`)" for p in places]
    if files:
        found.append(", ".join(files))
    misnamed = " ".join(
        f"There is no {word} here: the file of that name is {path}."
        for word, path in _misnamed_files(words, listed)
    )
    if not found:
        return Pointers(misnamed, ())
    paths = tuple(dict.fromkeys([*(p.path for p in places), *files]))
    shown = {} if told_tools else _shown_files(paths, workspace)
    unread = [path for path in paths if path not in shown]
    text = f"Found in this repository: {'; '.join(found)}."
    if shown:
        text += "\n\n" + "\n\n".join(shown.values())
    if places and not told_tools:
        room = SHOWN_MAX_CHARS - sum(len(block) for block in shown.values())
        tests = calling_tests((p.name for p in places), workspace, listed)
        text += "".join(_test_blocks([t for t in tests if t.path not in paths], room))
    if unread:
        reads = " and ".join(f"read_file(path={json.dumps(path)})" for path in unread)
        text += f"{chr(10) * 2 if shown else ' '}Read {_them(unread)} with {reads}."
    if misnamed:
        text += f"\n\n{misnamed}"
    return Pointers(text, paths, tuple(shown))


def _test_blocks(tests: list[CallingTest], room: int) -> list[str]:
    """Each of `tests` as the task message shows it, while it fits in `room` characters
    (`calling_tests`: a test says what the code it calls must do)."""
    blocks: list[str] = []
    for test in tests:
        fence = "`" * max(3, _longest_backtick_run(test.text) + 1)
        where = f"A test of {test.name} in {test.path} line {test.line}"
        block = f"\n\n{where}:\n{fence}\n{test.text}\n{fence}"
        if len(block) <= room:
            blocks.append(block)
            room -= len(block)
    return blocks


def _them(paths: list[str]) -> str:
    return "them" if len(paths) > 1 else "it"


def _shown_files(paths: Iterable[str], workspace: Workspace) -> dict[str, str]:
    """The whole text of each of `paths` that fits in what is left of `SHOWN_MAX_CHARS`, in
    order, as `read_file` would show it, fenced: path -> block."""
    shown: dict[str, str] = {}
    room = SHOWN_MAX_CHARS
    for path in paths:
        text = _source(workspace, path).rstrip("\n")
        lines = text.splitlines()
        fence = "`" * max(3, _longest_backtick_run(text) + 1)
        block = f"{path} (lines 1-{len(lines)} of {len(lines)}):\n{fence}\n{text}\n{fence}"
        if text and len(block) <= room:
            shown[path] = block
            room -= len(block)
    return shown


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def _file_words(task: str) -> list[str]:
    """The file names `task` writes, without `./` and repeats."""
    return list(dict.fromkeys(m.group(1).removeprefix("./") for m in _FILE.finditer(task)))
