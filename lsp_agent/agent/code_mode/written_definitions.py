"""A code step that writes a function or class of a task's file anew is proposed as a change.

Asked to implement the stub in say.py, Qwen2.5-Coder-1.5B in code mode answered at once with
the whole `def say(number): …` in its block, the way it would answer in a chat: its code ran
in the sandbox, defined `say` there, printed nothing, and say.py was never changed. In
tool-calling mode the same model called repo_info and answered without a change. Writing the
code is what such a model does best (aider's whole-file format scores well above diffs), so
the block is read as what it is, the implementation it means:

- when the step's code defines, at the top level, a function or class that a Python file of
  the task defines (a file the task names or where the code it names is, `ToolContext.
  task_files`, or one the job has read), or one of its classes' methods (`def guess(self,
  char)`), that file is proposed with those definitions in place of its own
  (`source_merge.merge`): the block's new helpers, constants and imports come along; its
  example calls and prints do not. A block that defines only a helper the file calls and
  lacks is proposed the same way: told that `say_chunk` is not defined (its applied say()
  called it), the model wrote `say_chunk` alone, five steps in a row, and nothing was
  proposed. The definitions go into the file as the latest proposal of it has it while that
  is pending (proposed, not applied): the model wrote Hangman's three methods in three
  steps, each proposed alone against the stub, and applied none;
- the proposal goes through `propose_file`'s `InstrumentedTool` like any call the model makes
  (validated, policy-checked, traced, checked in the sandbox) and its result is added to the
  step's observation with the `apply_patch` call it needs. Nothing is applied: applying is
  still the model's call, and the user's approval.

An indented block that does not parse by itself and continues one of the file's functions
(its lines use the function's parameters) is proposed the same way, as that function with
the block for the rest of its body (`continued_body`): Qwen2.5-Coder-1.5B wrote say()'s range
check, then the rest of its body without the `def` line, "unexpected indent" seven times.

Test files are never proposed this way (a test class written in a block is a test run), nor
is anything when the step's code called a propose tool itself.

A block that only defines things (no call runs, nothing is printed) and writes none of the
task's code is told so, with what would change the file: told the test
`test_reject_traversals_with_repeated_items` still failed, Qwen2.5-Coder-1.5B wrote that
test's method out as a function, read "the code printed nothing", and wrote it again for
eleven steps until the time limit (satellite). Any other block that calls no tool counts for
the loop guard as a call of "a code block" with its code: the same block again and again is
warned, then stopped, like the same call.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lsp_agent.agent.code_mode.continued_body import continued
from lsp_agent.agent.code_mode.reading_steps import reading_note
from lsp_agent.agent.code_mode.source_merge import DEFINITION, merge, only_defined
from tools.base import ToolContext
from tools.instrumented import InstrumentedTool
from tools.patch_tools import ProposeFile
from tools.patches import StoredPatch, next_step, still_failing
from tools.test_failures import failures, is_test_support
from tools.workspace import NotTextError

PATCH_TOOLS = ("propose", "apply_patch")  # calls after which a patch may leave failures
DEFINING_A_TOOL = "a block defining a tool"  # as the loop guard names such a step
RAN_CODE = "a code block"  # a block that calls no tool and writes no task code
MAX_FAILURES_READ = 3  # failing tests whose statements name the constants to write


@dataclass(frozen=True)
class WrittenFile:
    """A task file a step's code writes definitions of: which, and the text it would have."""

    path: str
    listed: str  # the definitions' names, "a, b"
    original: str
    merged: str
    continued: bool = False  # an indented block read as the rest of a function (continued_body)


class WrittenDefinitions:
    """Turns a code step's definitions of a task file's code into a proposal (module doc)."""

    def __init__(self, context: ToolContext, *, change_task: bool = False) -> None:
        self.context = context
        self.change_task = change_task  # the task asks for a change (`reading_steps`)
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
            wrote = (
                f"Your indented lines read as the rest of {listed} of {path}, so {listed} with them"
                if written.continued
                else f"Your code writes {listed} of {path} anew, so it"
            )
            notes.append(f"{wrote} was proposed as a change to {path}: {_text(result)}")
        if not notes and not calls:
            notes.append(self._changes_nothing(code) or self._ran(code))
        if self.change_task and not notes:
            notes.append(reading_note(self.context, calls, self.write_instead()))
        if proposed or any(name.startswith(PATCH_TOOLS) for name in calls):
            notes.append(self._write_whole())
        return "\n".join(note for note in notes if note), [self.proposer.name] * proposed

    def _write_whole(self) -> str:
        """After a step that proposed or applied a patch with which tests still fail: the
        way code mode changes code best, said in its terms ("" when tests pass). Told "read
        the code the failing test calls and propose a different change there", Qwen2.5-
        Coder-1.5B wrote `def propose_patch(path, old, new): …` for twelve steps (hangman);
        told "change the code again", it sent propose_patch an empty `old` (bank-account)."""
        latest = self.context.patches.leaving_failures()
        if latest is None:
            return ""
        path = next((f for f in latest.files if f.endswith(".py")), None)
        tree = self._tree(path) if path is not None else None
        defined = _definitions(tree)
        if tree is None or not defined:
            return ""
        tested = _tested_constants(tree, latest.check)
        values = f", with {', '.join(tested)} too (the failing tests use them)" if tested else ""
        return (
            f"To change {path} again, write the whole of {', '.join(defined[:3])} anew in one "
            f"block{values}, with every part the failing tests use: it is proposed as a change."
        )

    def _changes_nothing(self, code: str) -> str:
        """What to tell of a block that only defines names and writes no task file's code
        ("" for any other block: one that runs or prints something, or does not parse)."""
        names = only_defined(code)
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
        instead = self.write_instead()
        # counted by the loop guard like a proposal: the same test written out for ten
        # steps ran to the time limit (sublist)
        return text + (f" {instead}" if instead else "") + self._again(target or "", code)

    def write_instead(self) -> str:
        """What writes the task's code: `To change X, write the whole of A, B in a block: …`
        ("" when no task file defines anything yet)."""
        target = next(iter(self.candidates()), None)
        defined = self._top_level(target) if target is not None else []
        if target is None or not defined:
            return ""
        return (
            f"To change {target}, write the whole of {', '.join(defined[:3])} in a block: it "
            f"is proposed as a change to {target}."
        )

    def tool_defined(self, name: str) -> str:
        """Said after a block that defined one of the tools was refused: what to write
        instead, and the loop guard's note. Decoded again at a higher temperature after a
        stale step, Qwen2.5-Coder-1.5B wrote `def run_cmd(command)`, was told to call the
        tool instead, and went on to write read_file, git_status, git_diff, apply_patch …
        from the prompt's tool list, one a step, for fifteen steps (hangman)."""
        note = self._recorded(DEFINING_A_TOOL, {"name": name}, f"the block defined {name}()")
        instead = self.write_instead()
        return (f" {instead}" if instead else "") + note

    def _owners(self, names: list[str]) -> dict[str, str]:
        """Which read or task file (tests included) defines each of `names`, at any depth."""
        owners: dict[str, str] = {}
        paths = [*self.context.task_files, *sorted(self.context.seen_paths)]
        for path in dict.fromkeys(p for p in paths if p.endswith(".py")):
            tree = self._tree(path)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, DEFINITION) and node.name in names:
                    owners.setdefault(node.name, path)
        return owners

    def _top_level(self, path: str) -> list[str]:
        return _definitions(self._tree(path))

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
            # on the file as a pending proposal has it: methods written one a step add up
            base = self.context.patches.pending_text(path, original) or original
            merged = merge(base, code)
            whole = continued(code, base) if merged is None else None
            if whole is not None:
                merged = merge(base, whole)
            names = set() if merged is None else merged.names - taken
            if merged is None or not names:
                continue
            taken |= names
            listed = ", ".join(sorted(names))
            found.append(WrittenFile(path, listed, original, merged.text, whole is not None))
        return found

    def _again(self, path: str, text: str) -> str:
        """The same code written again counts for loop detection as a call would: a model
        that writes it over and over is warned, then stopped (paasio: the same classes for
        every step until the time limit)."""
        return self._recorded(self.proposer.name, {"path": path, "content": text})

    def _ran(self, code: str) -> str:
        """A block that calls no tool and writes no task code counts for loop detection as
        a call would: Qwen2.5-Coder-1.5B sent the same two-line `if game.get_status() == …:
        raise …` block, which failed the same way, for its last eleven steps until the time
        limit (hangman), and the same `print(say(987654321123))` step after step (say)."""
        return self._recorded(RAN_CODE, {"code": code})

    def _recorded(self, tool: str, arguments: dict[str, str], error: str | None = None) -> str:
        """Record a step as a call of `tool` for the loop guard; its warning or stop note."""
        signal = self.context.state.record(tool, arguments, error=error)
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
                next_step(patch.id, patch.status, patch.check, patch.files),
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


def _definitions(tree: ast.Module | None) -> list[str]:
    """The names of a module's top-level functions and classes."""
    body = tree.body if tree is not None else []
    return [node.name for node in body if isinstance(node, DEFINITION)]


def _tested_constants(tree: ast.Module, check: object) -> list[str]:
    """The names the module assigns at the top level that the first failing tests'
    statements use: sublist's one failing test was `len(set([SUBLIST, SUPERLIST, EQUAL,
    UNEQUAL])) == 4`, the stub's four constants all None; told to write the whole of sublist,
    Qwen2.5-Coder-1.5B wrote the function again and again, never the constants."""
    shown = " ".join(failures(str(getattr(check, "output", "")), MAX_FAILURES_READ))
    if not shown:
        return []
    assigned = [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    ]
    return [name for name in dict.fromkeys(assigned) if re.search(rf"\b{name}\b", shown)]


def _named(owners: dict[str, str], paths: list[str]) -> str:
    return ", ".join(f"{name}()" for name, path in owners.items() if path in paths)


def _text(result: object) -> str:
    return result if isinstance(result, str) else json.dumps(result)
