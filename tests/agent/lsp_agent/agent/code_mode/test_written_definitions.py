"""A code step that writes a task file's function anew is proposed as a change to that file
(`code_mode.written_definitions`), through the real propose_file tool: nothing is applied."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_agent.agent.code_mode.source_merge import merged_source
from lsp_agent.agent.code_mode.written_definitions import WrittenDefinitions
from tests.tool_context import tool_context
from tools.workspace import DiskWorkspace

STUB = '"""Say a number."""\n\n\ndef say(number):\n    pass\n\n\nclass Speaker:\n    pass\n'
BLOCK = """import math
ONES = ["zero", "one", "two"]

def spell(n):
    return ONES[n]

def say(number):
    if number < 0:
        raise ValueError("input out of range")
    return spell(number)

print(say(2))
result = say(1)
"""


def test_the_block_s_definitions_replace_the_file_s_and_bring_their_helpers() -> None:
    merged = merged_source(STUB, BLOCK)
    assert merged is not None
    namespace: dict[str, object] = {}
    exec(compile(merged, "say.py", "exec"), namespace)
    assert namespace["say"](2) == "two"  # type: ignore[operator]
    assert merged.startswith('"""Say a number."""\nimport math\n')  # the docstring stays first
    assert "class Speaker:\n    pass" in merged  # what the block did not write is kept
    assert "print(" not in merged and "result =" not in merged  # the example run is not
    assert merged.index("ONES =") < merged.index("def say")


def test_a_block_that_redefines_nothing_of_the_file_proposes_nothing() -> None:
    assert merged_source(STUB, "def other():\n    return 1\n") is None
    assert merged_source(STUB, "print(say(2))\n") is None
    assert merged_source(STUB, "def say(:\n") is None  # does not parse
    assert merged_source("def say(:\n", BLOCK) is None


def test_imports_go_after_the_file_s_own() -> None:
    block = "import math\ndef say(n):\n    return math.pi\n"
    merged = merged_source("import re\n\n\ndef say(n):\n    pass\n", block)
    assert merged == "import re\nimport math\n\n\ndef say(n):\n    return math.pi\n"


def repo(tmp_path: Path) -> Path:
    (tmp_path / "say.py").write_text(STUB, encoding="utf-8")
    (tmp_path / "say_test.py").write_text(
        "import unittest\nfrom say import say\n\n\nclass SayTest(unittest.TestCase):\n"
        "    def test_one(self):\n        self.assertEqual(say(1), 'one')\n",
        encoding="utf-8",
    )
    return tmp_path


def test_a_step_writing_the_stub_proposes_the_file_and_applies_nothing(tmp_path: Path) -> None:
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py", "say_test.py")
    note, calls = WrittenDefinitions(context)(BLOCK, [])
    assert calls == ["propose_file"]
    assert note.startswith("Your code writes say of say.py anew, so it was proposed as a change")
    reply = json.loads(note.split(": ", 1)[1])
    assert reply["patch_id"] == "p1" and reply["files"] == ["say.py"]
    assert 'apply_patch(patch_id="p1")' in reply["next"]
    assert (tmp_path / "say.py").read_text(encoding="utf-8") == STUB  # nothing applied
    assert "def spell(n):" in context.patches.get("p1").result.diff
    assert context.state.summary()["tool_calls"] == 1  # through the wrapper, recorded
    again, calls = WrittenDefinitions(context)(BLOCK, [])  # the same code once more
    assert calls == [] and again.startswith(  # on p1's text: its helper is the file's now
        "Your code writes say, spell of say.py as p1 already proposes it: nothing new to propose."
    )
    assert again.endswith('Next: apply it with apply_patch(patch_id="p1").'), again
    assert [p.id for p in context.patches.all()] == ["p1"]
    for _ in range(5):  # written again and again: warned, then stopped, as a call would be
        again, _ = WrittenDefinitions(context)(BLOCK, [])
    assert "[warning]" in again or "[stop]" in again, again
    assert context.state.stopped


def test_tests_files_and_steps_that_propose_themselves_are_left_alone(tmp_path: Path) -> None:
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say_test.py",)
    written = WrittenDefinitions(context)
    note, calls = written("class SayTest:\n    pass\n", [])  # a test file: never proposed
    assert calls == [] and note.startswith("Your code only defines SayTest(): ")
    context.task_files = ("say.py",)
    assert written(BLOCK, ["read_file", "propose_patch"]) == ("", [])
    same, calls = written("def say(number):\n    pass\n", [])  # the file as it is
    assert same == "Your code writes say exactly as say.py has it now: nothing to propose."
    assert calls == []
    assert context.patches.all() == []


def test_code_written_as_the_file_has_it_after_a_patch_says_what_still_fails(
    tmp_path: Path,
) -> None:
    from sandbox.protocol import PatchCheck
    from tools.patches import apply_whole_file

    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py",)
    new = "def say(number):\n    return 'two'\n"
    result = apply_whole_file("say.py", new, context.workspace, 200)
    output = (
        "____ SayTest.test_one ____\n\nE   AssertionError: 'two' != 'one'\n\nsay_test.py:7: "
        "AssertionError\n"
    )
    check = PatchCheck(True, True, output, 0.1, still_failing=("say_test.py::SayTest::test_one",))
    patch = context.patches.add(result.diff, result, check)
    context.patches.set_status(patch.id, "applied")
    (tmp_path / "say.py").write_text(new, encoding="utf-8")
    note, calls = WrittenDefinitions(context)(new, [])
    assert calls == [] and note == (
        "Your code writes say exactly as say.py has it now: nothing to propose. 1 tests still "
        "fail with the patch (first: SayTest.test_one: AssertionError: 'two' != 'one' "
        "(say_test.py line 7)). Change say so that they pass."
    )


def test_a_helper_the_file_calls_and_lacks_is_added_before_its_first_use() -> None:
    original = '"""Say."""\nimport re\n\n\ndef say(number):\n    return say_chunk(number)\n'
    block = "def say_chunk(n):\n    return str(n)\n\nprint(say(3))\n"
    merged = merged_source(original, block)
    assert merged == (
        '"""Say."""\nimport re\n\n\ndef say_chunk(n):\n    return str(n)\n\n\n'
        "def say(number):\n    return say_chunk(number)\n"
    )
    used_at_import = merged_source("import os\nX = helper()\n", "def helper():\n    return 1\n")
    assert used_at_import == "import os\ndef helper():\n    return 1\n\n\nX = helper()\n"
    # a helper nobody calls, a builtin or an imported name written anew: nothing to propose
    assert merged_source(original, "def spell(n):\n    return n\n") is None
    calls = "import re\n\n\ndef f(x):\n    return re.escape(str(len(x)))\n"
    assert merged_source(calls, "def len(x):\n    return 0\n") is None
    assert merged_source(calls, "def re(x):\n    return 0\n") is None


def test_a_block_that_only_defines_a_test_is_told_it_changes_no_file(tmp_path: Path) -> None:
    # satellite: told a test still failed, the model wrote that test's method out as a
    # function, eleven steps in a row, each read as "the code printed nothing"
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py",)
    context.seen_paths.add("say_test.py")
    written = WrittenDefinitions(context)
    note, calls = written("def test_one(self):\n    self.assertEqual(say(1), 'one')\n", [])
    assert calls == [] and context.patches.all() == []
    assert note == (
        "Your code only defines test_one(): a definition in a block runs in the sandbox and "
        "changes no file. say_test.py holds test_one(): tests are not changed; change the "
        "code they test so that they pass. To change say.py, write the whole of say, Speaker "
        "in a block: it is proposed as a change to say.py."
    )
    # a block that runs or prints something, or calls a tool, is not told this
    assert written("def test_one(self):\n    pass\n\nprint(test_one(None))\n", []) == ("", [])
    assert written("def helper():\n    return 1\n", ["read_file"]) == ("", [])
    unrelated, _ = written('"""Doc."""\nimport os\nX = 1\n\n\ndef helper():\n    return 1\n', [])
    assert unrelated.startswith("Your code only defines helper(): ")
    assert "tests are not changed" not in unrelated


def test_after_a_patch_that_leaves_failures_the_step_is_told_to_write_it_whole(
    tmp_path: Path,
) -> None:
    # hangman: told to "propose a different change", the model wrote `def propose_patch`
    from sandbox.protocol import PatchCheck
    from tools.patches import apply_whole_file

    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py",)
    new = STUB.replace("    pass\n", "    return 'two'\n", 1)
    result = apply_whole_file("say.py", new, context.workspace, 200)
    check = PatchCheck(True, True, "", 0.1, still_failing=("say_test.py::SayTest::test_one",))
    patch = context.patches.add(result.diff, result, check)
    context.patches.set_status(patch.id, "applied")
    written = WrittenDefinitions(context)
    note, calls = written('print(apply_patch(patch_id="p1"))', ["apply_patch"])
    assert calls == [] and note == (
        "To change say.py again, write the whole of say, Speaker anew in one block, with "
        "every part the failing tests use: it is proposed as a change."
    )
    assert written("print(read_file(path='say.py'))", ["read_file"]) == ("", [])
    passing = context.patches.add(result.diff, result, PatchCheck(True, True, "", 0.1))
    assert passing.id == "p2"
    assert written('print(apply_patch(patch_id="p2"))', ["apply_patch"]) == ("", [])


def test_methods_written_one_a_step_add_up_on_the_pending_proposal(tmp_path: Path) -> None:
    # hangman: three methods in three steps, each proposed alone against the stub
    (tmp_path / "game.py").write_text(
        "class Game:\n    def guess(self, c):\n        pass\n\n    def status(self):\n"
        "        pass\n",
        encoding="utf-8",
    )
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = ("game.py",)
    written = WrittenDefinitions(context)
    written("def guess(self, c):\n    self.last = c\n", [])
    written("def status(self):\n    return self.last\n", [])
    _, p2 = context.patches.all()
    after = {f.path: f.after for f in p2.result.files}["game.py"]
    assert after is not None
    assert "self.last = c" in after and "return self.last" in after  # p2 holds both
    context.patches.set_status(p2.id, "rejected")  # no longer pending: the file again
    written("def status(self):\n    return 1\n", [])
    p3 = context.patches.all()[-1]
    after = {f.path: f.after for f in p3.result.files}["game.py"]
    assert after is not None and "self.last = c" not in after and "return 1" in after
    assert (tmp_path / "game.py").read_text(encoding="utf-8").count("pass") == 2  # unchanged


def test_the_same_definitions_only_block_again_and_again_is_warned_then_stopped(
    tmp_path: Path,
) -> None:
    # sublist: the failing test written out as functions for ten steps, to the time limit
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py",)
    written = WrittenDefinitions(context)
    block = "def test_one(self):\n    pass\n\ndef test_one(self):\n    pass\n"
    notes = [written(block, [])[0] for _ in range(5)]
    assert notes[0].startswith("Your code only defines test_one(): ")  # named once
    assert any("[warning]" in note for note in notes)
    assert context.state.stopped


def test_the_same_block_calling_no_tool_again_and_again_is_warned_then_stopped(
    tmp_path: Path,
) -> None:
    # hangman: the same two lines, failing the same way, for the last eleven steps
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py",)
    written = WrittenDefinitions(context)
    for number in range(3):
        assert written(f"print(say({number}))", []) == ("", [])  # different blocks: no loop
    assert not context.state.stopped
    block = 'if game.get_status() == "lose":\n    raise ValueError("The game has ended.")\n'
    notes = [written(block, [])[0] for _ in range(4)]
    assert notes[:2] == ["", ""], notes
    assert notes[2].startswith("\n\n[warning] You called a code block with the same arguments 3")
    assert notes[3].startswith("\n\n[stop] Stopping the run"), notes[3]
    assert context.state.stopped
    assert written("print(1)", ["read_file"]) == ("", [])  # a block calling a tool: its call


def test_indented_lines_that_continue_a_function_propose_it_whole(tmp_path: Path) -> None:
    # say: the range check written, then the rest of the body without its `def` line,
    # "SyntaxError: unexpected indent" seven steps in a row and nothing proposed
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py", "say_test.py")
    written = WrittenDefinitions(context)
    written("def say(number):\n    if number < 0:\n        raise ValueError('no')\n", [])
    rest = "    if number == 1:\n        return 'one'\n    return 'many'"
    note, calls = written(rest, [])
    assert calls == ["propose_file"]
    assert note.startswith(
        "Your indented lines read as the rest of say of say.py, so say with them was proposed"
    )
    p2 = context.patches.all()[-1]
    after = {f.path: f.after for f in p2.result.files}["say.py"]
    assert after is not None
    namespace: dict[str, object] = {}
    exec(compile(after, "say.py", "exec"), namespace)
    assert namespace["say"](1) == "one"  # type: ignore[operator]
    assert "raise ValueError('no')" in after and "class Speaker:" in after
    assert (tmp_path / "say.py").read_text(encoding="utf-8") == STUB  # nothing applied
    again, calls = written(rest, [])  # the same lines once more: nothing new
    assert calls == [] and "as p2 already proposes it" in again


def test_the_constants_a_failing_test_uses_are_named_with_what_to_write(tmp_path: Path) -> None:
    # sublist: its one failing test compared the stub's four constants, all None
    from sandbox.protocol import PatchCheck
    from tools.patches import apply_whole_file

    stub = "SUBLIST = None\nEQUAL = None\nOTHER = 3\n\n\ndef sublist(a, b):\n    pass\n"
    (tmp_path / "sublist.py").write_text(stub, encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = ("sublist.py",)
    result = apply_whole_file(
        "sublist.py", stub.replace("pass", "return EQUAL"), context.workspace, 200
    )
    output = (
        "_____ SublistTest.test_unique_return_values _____\n\n"
        "    def test_unique_return_values(self):\n"
        ">       self.assertEqual(len(set([SUBLIST, EQUAL])), 2)\n"
        "E       AssertionError: 1 != 2\n\nsublist_test.py:9: AssertionError\n"
    )
    failing = ("sublist_test.py::SublistTest::test_unique_return_values",)
    check = PatchCheck(True, True, output, 0.1, still_failing=failing)
    patch = context.patches.add(result.diff, result, check)
    context.patches.set_status(patch.id, "applied")
    note, _ = WrittenDefinitions(context)('print(apply_patch(patch_id="p1"))', ["apply_patch"])
    assert note == (
        "To change sublist.py again, write the whole of sublist anew in one block, with "
        "SUBLIST, EQUAL too (the failing tests use them), with every part the failing tests "
        "use: it is proposed as a change."
    )


def test_a_change_task_that_only_reads_is_told_what_writes_the_code(tmp_path: Path) -> None:
    # grade-school: the test file's last lines read again and again, nothing proposed
    context = tool_context(DiskWorkspace(repo(tmp_path)))
    context.task_files = ("say.py", "say_test.py")
    written = WrittenDefinitions(context, change_task=True)
    question = WrittenDefinitions(context)  # a task that asks for no change
    reads = []
    for step in range(1, 4):
        context.state.begin_step()
        context.state.record("read_file", {"path": "say_test.py", "start_line": step})
        reads.append(written("print(read_file(path='say_test.py'))", ["read_file"])[0])
    assert reads[0] == ""  # one step of reading is reading
    assert reads[1] == (
        "You have read for 2 steps and proposed nothing yet. To change say.py, write the whole "
        "of say, Speaker in a block: it is proposed as a change to say.py."
    )
    assert reads[2].startswith("You have read for 3 steps")
    assert question("print(read_file(path='say_test.py'))", ["read_file"])[0] == ""
    assert written("print(run_tests())", ["run_tests"])[0] == ""  # not only reads
    written(BLOCK, [])  # a proposal: from now on reading is not nagged
    assert written("print(read_file(path='say.py'))", ["read_file"])[0] == ""


def test_a_block_of_only_a_function_s_table_is_proposed_as_that_function(tmp_path: Path) -> None:
    (tmp_path / "scrabble.py").write_text(
        "def score(word):\n    values = {'a': 1}\n    return sum(values[c] for c in word)\n",
        encoding="utf-8",
    )
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = ("scrabble.py",)
    note, calls = WrittenDefinitions(context)("values = {'a': 1, 'x': 8}\n", [])
    assert calls == ["propose_file"], note
    assert note.startswith("Your code writes score of scrabble.py anew"), note
    diff = context.patches.get("p1").result.diff
    assert "+    values = {'a': 1, 'x': 8}" in diff and "-    values = {'a': 1}" in diff
