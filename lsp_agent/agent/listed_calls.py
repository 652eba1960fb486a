"""The calls a task lists: an answer given before the job made as many calls as the task
names tools is refused once, with the sentence of the step left out.

Small models are told what to do step by step ("Use read_file to read config.py and find
DATA_FILE. Then use read_file to read the file that DATA_FILE names. Answer with
final_answer: the owner named in that file."), and skip a step: Qwen2.5-Coder-1.5B read
config.py and answered "The owner named in the file is [owner_name]", or a name the data
file does not hold (L4, 2 runs in 3 on 2026-11-28). A tool named in a sentence that says not
to use it ("Do not use run_cmd") is not listed; `final_answer` is the answer itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

ANSWER = "final_answer"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_NEGATION = re.compile(r"\b(?:not|never|without|no|don't|doesn't|avoid)\b", re.IGNORECASE)


def listed_calls(task: str, tool_names: Collection[str]) -> list[tuple[str, str]]:
    """Each call the task lists, in order: (tool, the sentence that names it)."""
    names = sorted((n for n in tool_names if n != ANSWER), key=len, reverse=True)
    if not names:
        return []
    word = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?!\w)")
    listed: list[tuple[str, str]] = []
    for sentence in _SENTENCE_END.split(task):
        for match in word.finditer(sentence):
            if _NEGATION.search(sentence[: match.start()]):
                continue
            listed.append((match.group(1), sentence.strip()))
    return listed


def missing_call(listed: Sequence[tuple[str, str]], made: Sequence[str]) -> tuple[str, str] | None:
    """The first listed call not made yet, or None: with n calls made (`final_answer` aside),
    the (n+1)-th listed one. Any tool may take a step: told to read a file with read_file,
    the model read it with read_file_snippet and answered right, and counting calls by tool
    refused that answer (L4)."""
    count = sum(1 for tool in made if tool != ANSWER)
    return listed[count] if count < len(listed) else None


def listed_calls_before_answer(
    task: str,
    tool_names: Collection[str],
    calls_made: Callable[[], Sequence[str]],
    helpers: Collection[str] = (),
) -> Callable[..., bool]:
    """A final-answer check: refused once when a call the task lists was not made yet. A
    helper agent (`helpers`, the explorer) makes its calls in its own context: once one was
    asked, the job's own calls do not say what was read, and nothing is refused."""
    listed = listed_calls(task, tool_names)
    refused: list[bool] = []

    def listed_calls_before_answer(final_answer: Any, memory: Any, agent: Any = None) -> bool:
        made = calls_made()
        missing = missing_call(listed, made)
        if missing is None or refused or any(call in helpers for call in made):
            return True
        refused.append(True)
        tool, sentence = missing
        raise ValueError(
            f"the task lists a step not taken yet: {sentence!r} Call {tool} for it first, "
            "then answer with what it shows. If the step cannot be taken, call final_answer "
            "again and say why."
        )

    return listed_calls_before_answer
