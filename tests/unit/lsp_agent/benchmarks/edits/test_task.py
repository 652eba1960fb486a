"""What the agents are asked: aider's benchmark text, and one task for the agents."""

from __future__ import annotations

from lsp_agent.benchmarks.edits.exercises import load_exercises
from lsp_agent.benchmarks.edits.task import agent_task, aider_instructions

BY_NAME = {exercise.name: exercise for exercise in load_exercises()}


def test_aider_gets_its_benchmark_text_and_the_agents_one_task() -> None:
    exercise = BY_NAME["two-fer"]  # with an introduction, which comes first (as in aider's)
    docs = exercise.docs
    aider = aider_instructions(exercise)
    assert aider.startswith(docs["introduction"] + docs["instructions"])
    assert "Use the above instructions to modify the supplied files: two_fer.py" in aider
    task = agent_task(exercise)
    assert task.startswith(docs["introduction"] + docs["instructions"])
    assert "Implement the stub in two_fer.py so that the tests in two_fer_test.py pass" in task
    assert "class TwoFerTest" not in task, "the tests are read from the repository"
