"""What each agent is asked: aider's benchmark texts, and one task in their spirit for agents.

aider gets its benchmark's own words (aider's benchmark/prompts.py): the exercise's
instructions and `instructions_addendum`, then on a failed first try the test output and
`test_failures`. lsp-agent and mini-swe-agent get the same task: the same instructions and
addendum, told where the stub and the tests are; the tests are in the repository to read and
run. The tests themselves are never shown in the task.
"""

from __future__ import annotations

from lsp_agent.benchmarks.edits.exercises import Exercise

AIDER_ADDENDUM = """
####

Use the above instructions to modify the supplied files: {file_list}
Don't change the names of existing functions or classes, as they may be referenced from other code like unit tests, etc.
Only use standard python libraries, don't suggest installing any packages.
"""  # noqa: E501

AIDER_TEST_FAILURES = """
####

See the testing errors above.
The tests are correct.
Fix the code in {file_list} to resolve the errors.
"""

AGENT_ADDENDUM = """
####

Implement the stub in {file_list} so that the tests in {test_list} pass. The tests are in the repository; they are correct: do not change them.
Don't change the names of existing functions or classes, as they may be referenced from other code like unit tests, etc.
Only use standard python libraries, don't suggest installing any packages.
"""  # noqa: E501


def file_list(exercise: Exercise) -> str:
    return " ".join(exercise.solution_files)


def aider_instructions(exercise: Exercise) -> str:
    return exercise.instructions() + AIDER_ADDENDUM.format(file_list=file_list(exercise))


def agent_task(exercise: Exercise) -> str:
    """The task lsp-agent and mini-swe-agent are given."""
    tests = " ".join(name for name in exercise.test_files if name.endswith("_test.py"))
    addendum = AGENT_ADDENDUM.format(file_list=file_list(exercise), test_list=tests)
    return exercise.instructions() + addendum
