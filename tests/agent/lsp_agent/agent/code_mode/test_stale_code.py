"""Code mode's stale replies: the last step's code again, or definitions that add nothing."""

from __future__ import annotations

from pathlib import Path

from smolagents.models import ChatMessage, MessageRole

from lsp_agent.agent.code_mode.agent import CODE_BLOCK_TAGS
from lsp_agent.agent.code_mode.stale_code import stale_code
from lsp_agent.agent.code_mode.written_definitions import WrittenDefinitions
from tests.tool_context import tool_context
from tools.workspace import DiskWorkspace

STUB = "def score(word):\n    pass\n"
WRONG = "def score(word):\n    return len(word)\n"
TOOLS = ("read_file", "run_tests", "apply_patch", "final_answer")


def _reply(code: str, closed: bool = True) -> ChatMessage:
    text = f"Thought: I write it.\n```python\n{code}" + ("\n```\n" if closed else "")
    return ChatMessage(role=MessageRole.ASSISTANT, content=text)


def _written(tmp_path: Path) -> WrittenDefinitions:
    (tmp_path / "scrabble.py").write_text(STUB, encoding="utf-8")
    context = tool_context(DiskWorkspace(tmp_path))
    context.task_files = ("scrabble.py",)
    return WrittenDefinitions(context)


def test_the_last_step_s_code_again_is_stale(tmp_path: Path) -> None:
    written = _written(tmp_path)
    code = 'print(read_file(path="scrabble.py"))'
    assert stale_code(_reply(code), CODE_BLOCK_TAGS, None, TOOLS, written) is None
    assert stale_code(_reply(code, closed=False), CODE_BLOCK_TAGS, code, TOOLS, written) == (
        "the reply's code is the last step's code"
    )
    broken = 'print(propose_patch("""\n--- a/scrabble.py'
    assert stale_code(_reply(broken), CODE_BLOCK_TAGS, broken, TOOLS, written) == (
        "the reply's code is the last step's code"
    )
    assert stale_code(_reply(broken), CODE_BLOCK_TAGS, code, TOOLS, written) is None
    answer = 'final_answer("done")'
    assert stale_code(_reply(answer), CODE_BLOCK_TAGS, answer, TOOLS, written) is None


def test_definitions_as_the_file_or_a_failing_patch_has_them_are_stale(tmp_path: Path) -> None:
    written = _written(tmp_path)
    assert stale_code(_reply(STUB), CODE_BLOCK_TAGS, None, TOOLS, written) == (
        "the reply's code proposes nothing new: it writes score exactly as scrabble.py has it"
    )
    assert stale_code(_reply(WRONG), CODE_BLOCK_TAGS, None, TOOLS, written) is None
    _propose(written, WRONG, ("scrabble_test.py::T::test_word",))
    assert stale_code(_reply(WRONG), CODE_BLOCK_TAGS, None, TOOLS, written) == (
        "the reply's code proposes nothing new: it writes score of scrabble.py as p1 does"
    )
    applying = WRONG + 'print(apply_patch(patch_id="p1"))\n'  # it calls a tool: it acts
    assert stale_code(_reply(applying), CODE_BLOCK_TAGS, None, TOOLS, written) is None
    assert stale_code(_reply(RIGHT), CODE_BLOCK_TAGS, None, TOOLS, written) is None
    _propose(written, RIGHT, ())  # its tests pass: the next step is to apply it
    assert stale_code(_reply(RIGHT), CODE_BLOCK_TAGS, RIGHT, TOOLS, written) is None
    assert stale_code(_reply("def score(:"), CODE_BLOCK_TAGS, None, TOOLS, written) is None


def test_a_proposal_call_that_writes_a_failing_version_again_is_stale(tmp_path: Path) -> None:
    """Qwen2.5-Coder-1.5B proposed with propose_patch the score() its block had proposed
    just before, whose tests still failed (scrabble-score)."""
    written = _written(tmp_path)
    tools = (*TOOLS, "propose_patch", "propose_file")
    call = 'propose_patch(path="scrabble.py", old="    pass", new="    return len(word)")'
    assert stale_code(_reply(call), CODE_BLOCK_TAGS, None, tools, written) is None
    _propose(written, WRONG, ("scrabble_test.py::T::test_word",))
    assert stale_code(_reply(call), CODE_BLOCK_TAGS, None, tools, written) == (
        "the reply's code proposes nothing new: the reply writes scrabble.py as p1 does"
    )
    positional = f"print(propose_file('scrabble.py', {WRONG!r}))"
    assert stale_code(_reply(positional), CODE_BLOCK_TAGS, None, tools, written) == (
        "the reply's code proposes nothing new: the reply writes scrabble.py as p1 does"
    )
    built = 'new = "    return len(word)"\n' + call.replace('"    return len(word)")', "new)")
    assert stale_code(_reply(built), CODE_BLOCK_TAGS, None, tools, written) is None
    other = call.replace("len(word)", "len(word) * 2")
    assert stale_code(_reply(other), CODE_BLOCK_TAGS, None, tools, written) is None


RIGHT = "def score(word):\n    return sum(1 for _ in word.upper())\n"


def _propose(written: WrittenDefinitions, text: str, failing: tuple[str, ...]) -> None:
    from sandbox.protocol import PatchCheck
    from tools.patches import apply_whole_file

    context = written.context
    result = apply_whole_file("scrabble.py", text, context.workspace, 200)
    check = PatchCheck(True, True, "", 0.1, still_failing=failing)
    context.patches.add(result.diff, result, check)


def test_the_last_step_s_code_again_is_stale_when_it_does_more_than_answer(
    tmp_path: Path,
) -> None:
    # parallel-letter-frequency: the same open(), edit and final_answer for 22 steps, each
    # failing with FileNotFoundError before its answer
    written = _written(tmp_path)
    code = (
        "with open('scrabble_test.py') as f:\n    text = f.read()\n"
        'final_answer("The failing tests are now passing.")'
    )
    assert stale_code(_reply(code), CODE_BLOCK_TAGS, code, TOOLS, written) == (
        "the reply's code is the last step's code"
    )
    assert stale_code(_reply(code), CODE_BLOCK_TAGS, None, TOOLS, written) is None
    printed = 'print("done")\nfinal_answer("done")'
    assert stale_code(_reply(printed), CODE_BLOCK_TAGS, printed, TOOLS, written) is None
