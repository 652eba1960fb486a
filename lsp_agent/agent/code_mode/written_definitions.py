"""A code step that writes a function or class of a task's file anew is proposed as a change.

Asked to implement the stub in say.py, Qwen2.5-Coder-1.5B in code mode answered at once with
the whole `def say(number): …` in its block, the way it would answer in a chat: its code ran
in the sandbox, defined `say` there, printed nothing, and say.py was never changed. In
tool-calling mode the same model called repo_info and answered without a change. Writing the
code is what such a model does best (aider's whole-file format scores well above diffs), so
the block is read as what it is, the implementation it means:

- when the step's code defines, at the top level, a function or class that a Python file of
  the task defines (a file the task names or where the code it names is, `ToolContext.
  task_files`, or one the job has read), that file is proposed with those definitions in
  place of its own (`merged_source`): the block's new helpers, constants and imports come
  along; its example calls and prints do not. A block that defines only a helper the file
  calls and lacks is proposed the same way: told that `say_chunk` is not defined (its
  applied say() called it), the model wrote `say_chunk` alone, five steps in a row, and
  nothing was proposed;
- the proposal goes through `propose_file`'s `InstrumentedTool` like any call the model makes
  (validated, policy-checked, traced, checked in the sandbox) and its result is added to the
  step's observation with the `apply_patch` call it needs. Nothing is applied: applying is
  still the model's call, and the user's approval.

Test files are never proposed this way (a test class written in a block is a test run), nor
is anything when the step's code called a propose tool itself.

A block that only defines things (no call runs, nothing is printed) and writes none of the
task's code is told so, with what would change the file: told the test
`test_reject_traversals_with_repeated_items` still failed, Qwen2.5-Coder-1.5B wrote that
test's method out as a function, read "the code printed nothing", and wrote it again for
eleven steps until the time limit (satellite).
"""

from __future__ import annotations

import ast
import builtins
import json
from collections.abc import Iterable
from dataclasses import dataclass

from tools.base import ToolContext
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ProposeFile
from tools.patches import StoredPatch, next_step, still_failing
from tools.test_failures import is_test_support
from tools.workspace import NotTextError

_DEFINITION = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BUILTINS = frozenset(dir(builtins))
_IMPORT = ast.Import | ast.ImportFrom


def _segment(lines: list[str], node: ast.stmt) -> str:
    return "\n".join(lines[_first_line(node) - 1 : node.end_lineno or node.lineno])


def _first_line(node: ast.stmt) -> int:
    """The statement's first line, its decorators' included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _is_constant(node: ast.stmt) -> bool:
    """A module-level assignment of a value that calls nothing (`ONES = ["one", …]`, not
    `result = say(22)`, which is an example run)."""
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        return not any(isinstance(part, ast.Call) for part in ast.walk(node.value))
    return False


def merged_source(original: str, block: str) -> str | None:
    """`original` with the top-level definitions `block` writes anew in their place, and the
    block's other definitions, constants and imports added before the first of them (imports
    after the original's); None when the block neither redefines one of `original`'s
    top-level functions or classes nor defines one that `original` uses and lacks (a helper
    its code calls: say.py's `say_chunk`), or either does not parse."""
    merged = _merge(original, block)
    return None if merged is None else merged[0]


def _merge(original: str, block: str) -> tuple[str, set[str]] | None:
    """`merged_source`'s text, and the names of the definitions the block wrote anew."""
    try:
        original_tree, block_tree = ast.parse(original), ast.parse(block)
    except (SyntaxError, ValueError):
        return None
    defined = {n.name: n for n in original_tree.body if isinstance(n, _DEFINITION)}
    block_lines = block.splitlines()
    rewritten = {
        n.name: _segment(block_lines, n)
        for n in block_tree.body
        if isinstance(n, _DEFINITION) and n.name in defined
    }
    lacking = _used_names(original_tree) - set(defined) - _BUILTINS - _imported(original_tree)
    missing = {n.name for n in block_tree.body if isinstance(n, _DEFINITION)} & lacking
    if not rewritten and not missing:
        return None
    lines = original.splitlines()
    present = {line.strip() for line in lines}
    imports = [
        _segment(block_lines, n)
        for n in block_tree.body
        if isinstance(n, _IMPORT) and _segment(block_lines, n).strip() not in present
    ]
    added = [
        _segment(block_lines, n)
        for n in block_tree.body
        if (isinstance(n, _DEFINITION) and n.name not in defined) or _is_constant(n)
    ]
    replaced = sorted((defined[name] for name in rewritten), key=_first_line)
    out: list[str] = []
    cursor = 0  # lines of `original` copied so far
    for number, node in enumerate(replaced):
        out.extend(lines[cursor : _first_line(node) - 1])
        if number == 0 and added:
            out.extend(["\n\n".join(added), "", ""])
        out.append(rewritten[node.name])
        cursor = node.end_lineno or node.lineno
    if not replaced:  # only helpers the file lacks: before their first use or definition
        first = min(
            (
                _first_line(n)
                for n in original_tree.body
                if isinstance(n, _DEFINITION) or _used_names(n) & missing
            ),
            default=len(lines) + 1,
        )
        out.extend([*lines[: first - 1], "\n\n".join(added), "", ""])
        cursor = first - 1
    out.extend(lines[cursor:])
    if imports:
        at = _import_line(original_tree)
        out[at:at] = imports if at else [*imports, "", ""]
    return "\n".join(out).rstrip("\n") + "\n", set(rewritten) | missing


def _imported(tree: ast.Module) -> set[str]:
    """The names `tree`'s top-level imports bind."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in tree.body
        if isinstance(node, _IMPORT)
        for alias in node.names
    }


def _used_names(tree: ast.AST) -> set[str]:
    """The names `tree`'s code reads (calls included)."""
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _import_line(tree: ast.Module) -> int:
    """The line after which new imports go: the last import's, or the module docstring's."""
    body = tree.body
    last = max((n.end_lineno or 0 for n in body if isinstance(n, _IMPORT)), default=0)
    if last or not body:
        return last
    first = body[0]
    return (first.end_lineno or 0) if _is_docstring(first) else 0


@dataclass(frozen=True)
class WrittenFile:
    """A task file a step's code writes definitions of: which, and the text it would have."""

    path: str
    listed: str  # the definitions' names, "a, b"
    original: str
    merged: str


class WrittenDefinitions:
    """Turns a code step's definitions of a task file's code into a proposal (module doc)."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.proposer = InstrumentedTool(ProposeFile(context), context)

    def candidates(self) -> list[str]:
        """The Python files a step's definitions may be meant for: the task's, then those
        the job has read, tests left out."""
        paths = [*self.context.task_files, *sorted(self.context.seen_paths)]
        return [
            path
            for path in dict.fromkeys(paths)
            if path.endswith(".py") and not is_test_support(path)
        ]

    def __call__(self, code: str, calls: Iterable[str]) -> tuple[str, list[str]]:
        """What to add to the step's observation, and the calls made ("", [] when nothing
        was proposed)."""
        if any(name.startswith("propose") for name in calls):
            return "", []
        notes: list[str] = []
        proposed = 0
        for written in self.writes(code):
            path, listed, merged = written.path, written.listed, written.merged
            if merged == written.original:
                notes.append(self._unchanged(path, listed) + self._again(path, merged))
                continue
            same = self.context.patches.proposing(path, merged)
            if same is not None:
                notes.append(self._proposed_before(same, path, listed) + self._again(path, merged))
                continue
            result = self.proposer.call({"path": path, "content": merged})
            proposed += 1
            notes.append(
                f"Your code writes {listed} of {path} anew, so it was proposed as a change "
                f"to {path}: {_text(result)}"
            )
        if not notes and not calls:
            notes.append(self._changes_nothing(code))
        return "\n".join(note for note in notes if note), [self.proposer.name] * proposed

    def _changes_nothing(self, code: str) -> str:
        """What to tell of a block that only defines names and writes no task file's code
        ("" for any other block: one that runs or prints something, or does not parse)."""
        names = _only_defined(code)
        if not names:
            return ""
        listed = ", ".join(f"{name}()" for name in names)
        text = (
            f"Your code only defines {listed}: a definition in a block runs in the sandbox "
            "and changes no file."
        )
        owners = self._owners(names)
        tests = sorted({path for path in owners.values() if is_test_support(path)})
        if tests:
            text += (
                f" {' and '.join(tests)} holds {_named(owners, tests)}: tests are not changed; "
                "change the code they test so that they pass."
            )
        target = next(iter(self.candidates()), None)
        defined = self._top_level(target) if target is not None else []
        if target is not None and defined:
            text += (
                f" To change {target}, write the whole of {', '.join(defined[:3])} in a "
                f"block: it is proposed as a change to {target}."
            )
        return text

    def _owners(self, names: list[str]) -> dict[str, str]:
        """Which read or task file (tests included) defines each of `names`, at any depth."""
        owners: dict[str, str] = {}
        paths = [*self.context.task_files, *sorted(self.context.seen_paths)]
        for path in dict.fromkeys(p for p in paths if p.endswith(".py")):
            tree = self._tree(path)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, _DEFINITION) and node.name in names:
                    owners.setdefault(node.name, path)
        return owners

    def _top_level(self, path: str) -> list[str]:
        tree = self._tree(path)
        body = tree.body if tree is not None else []
        return [node.name for node in body if isinstance(node, _DEFINITION)]

    def _tree(self, path: str) -> ast.Module | None:
        try:
            return ast.parse(self.context.workspace.read_text(path))
        except (OSError, NotTextError, ValueError, SyntaxError):
            return None

    def adds_nothing(self, writes: list[WrittenFile]) -> str | None:
        """Why code that `writes` these files (`self.writes(code)`) would, run, only repeat a
        failure: each would read as it does now (the stub, or a patch that left tests
        failing) or as a proposed patch that leaves tests failing does (None when it writes
        none, or changes one, or repeats a version whose tests pass: then the next step is to
        apply it or to answer)."""
        reasons: list[str] = []
        for written in writes:
            path, listed = written.path, written.listed
            tried = self.context.patches.failing_version(path, written.original, written.merged)
            if tried is None:
                return None
            reasons.append(
                f"it writes {listed} exactly as {path} has it"
                if tried == "now"
                else f"it writes {listed} of {path} as {tried} does"
            )
        return "; ".join(reasons) or None

    def writes(self, code: str) -> list[WrittenFile]:
        """The task files whose top-level definitions `code` writes, each once, with the
        text it would give them."""
        taken: set[str] = set()
        found: list[WrittenFile] = []
        for path in self.candidates():
            try:
                original = self.context.workspace.read_text(path)
            except (OSError, NotTextError, ValueError):
                continue
            merge = _merge(original, code)
            names = set() if merge is None else merge[1] - taken
            if merge is None or not names:
                continue
            taken |= names
            found.append(WrittenFile(path, ", ".join(sorted(names)), original, merge[0]))
        return found

    def _again(self, path: str, text: str) -> str:
        """The same code written again counts for loop detection as a call would: a model
        that writes it over and over is warned, then stopped (paasio: the same classes for
        every step until the time limit)."""
        signal = self.context.state.record(self.proposer.name, {"path": path, "content": text})
        if signal is None:
            return ""
        return f"\n\n[{'stop' if signal.stop else 'warning'}] {signal.hint}"

    @staticmethod
    def _proposed_before(patch: StoredPatch, path: str, listed: str) -> str:
        """Said of a block that writes what a proposed patch already does, instead of a
        second proposal: Qwen2.5-Coder-1.5B wrote the same classes three times and the loop
        guard stopped the run on the third identical proposal (react)."""
        still = still_failing(patch.check)
        return " ".join(
            part
            for part in (
                f"Your code writes {listed} of {path} as {patch.id} already proposes it: "
                "nothing new to propose.",
                still,
                next_step(patch.id, patch.status, patch.check),
            )
            if part
        )

    def _unchanged(self, path: str, listed: str) -> str:
        """Said of a block that writes the file's code as it is: after applying its say(),
        Qwen2.5-Coder-1.5B wrote the same say() for 17 steps, each printing nothing."""
        applied = self.context.patches.applied_to(path)
        text = f"Your code writes {listed} exactly as {path} has it now: nothing to propose."
        still = still_failing(applied.check) if applied is not None else ""
        return f"{text} {still} Change {listed} so that they pass." if still else text


def _only_defined(code: str) -> list[str]:
    """The names a block's top level defines when that is all it does (definitions, imports,
    constants, a docstring); [] when it also runs something, or does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, _DEFINITION):
            names.append(node.name)
        elif not (isinstance(node, _IMPORT) or _is_constant(node) or _is_docstring(node)):
            return []
    return names


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _named(owners: dict[str, str], paths: list[str]) -> str:
    return ", ".join(f"{name}()" for name, path in owners.items() if path in paths)


def _text(result: object) -> str:
    return result if isinstance(result, str) else json.dumps(result)
