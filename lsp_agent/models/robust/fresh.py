"""A reply that only repeats what the job already tried is decoded again, hotter.

A small model decoding at a low temperature that failed once tends to give the same reply
again: told that 9 tests still fail, Qwen2.5-Coder-1.5B wrote the same `score()` three times
(scrabble-score), the same `sublist()` with one failing test three times, and the loop
guard stopped both runs. Running such a reply costs a step and teaches nothing; what the
model would say with more freedom is what the job needs. So before a reply reaches the
agent, the agent's own check (`RobustModel.stale_reply`, set by the agent for each step) may
call it stale: "it writes score() as p2 already proposes it". Then the same request is
decoded again at `RETRY_TEMPERATURES`, one after the other, until a reply is not stale; the
last one is kept either way, and the loop guard still sees what it runs. Like Whisper's
temperature fallback, a greedy decode that repeats itself gets more randomness, not a
different prompt: the cache of the prompt is reused and nothing is added to the history.
A model whose `varies_with_temperature` is false (a scripted replay) is asked once.

A model that constrains its calls to the tools offered (`left_out_tools`: the JSON schema
sent to a server, `tool_call_format`) decodes again without the tools that only read
in that constraint when the stale reply makes a read for the third time (`stale_tools`);
the prompt, which lists every tool, stays as it was, so its cache holds.
Through llama-server with the schema, Qwen2.5-Coder-1.5B read `calc.py` lines 1-11 of 11
again at 0.0, 0.7 and 1.0, step after step, until the loop guard stopped the run (L7):
hotter, the same call is still the likeliest; with `read_file` alone left out
it read with `read_file_snippet`, then `read_file` again. Such a decode again keeps the
request's temperature: the constraint differs, so the reply does, and a hotter one is a
draw (with the readers left out at 0.7 it answered "average(values)", which it had read was
the second function).

Decoding again is given up while it does not help (`DecodesAgain`): after
`FRUITLESS_STEPS` steps in a row whose replies were all stale, at every temperature, a
job's stale replies run as they are (the loop guard and the observations then deal with
them) until a step's reply is fresh again. Qwen2.5-Coder-1.5B wrote the same test method
at 0.0, 0.7 and 1.0 for eleven steps (satellite: 22 decodes again, about 220 s of its
600), and the same long classes, 30-60 s a decode (paasio).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from smolagents.models import ChatMessage

# The temperatures of the second and third decode of a stale reply.
RETRY_TEMPERATURES = (0.7, 1.0)

# Times a read was made before, after which its decode again is left no reader.
REPEATS_BEFORE_NARROWING = 2

# Steps in a row whose every decode again was stale, after which a job stops decoding again.
FRUITLESS_STEPS = 2

# Why a reply only repeats what the job tried ("it repeats the last call"), or None.
StaleCheck = Callable[[ChatMessage], str | None]


class DecodesAgain:
    """One job's stale check, step by step, given up while decoding again is fruitless
    (module doc). `for_step()` is asked at the start of each step for the check to use."""

    def __init__(self, check: StaleCheck) -> None:
        self.check = check
        self.fruitless = 0  # steps in a row whose replies were all stale
        self.step: list[bool] = []  # this step's checks so far: stale or not

    def for_step(self) -> StaleCheck:
        if self.step and not all(self.step):  # a fresh reply: decoding again may help again
            self.fruitless = 0
        elif len(self.step) == len(RETRY_TEMPERATURES):  # stale at 0.7 too (1.0 runs as is)
            self.fruitless += 1
        self.step = []
        return self._checked

    @property
    def given_up(self) -> bool:
        return self.fruitless >= FRUITLESS_STEPS

    def _checked(self, reply: ChatMessage) -> str | None:
        why = self.check(reply)
        self.step.append(why is not None)
        return None if self.given_up else why


def fresh_reply(
    first: ChatMessage,
    again: Callable[[float], ChatMessage],
    stale: StaleCheck,
    note: Callable[[str], None],
    usable: Callable[[ChatMessage], bool] = lambda reply: True,
) -> ChatMessage:
    """`first`, or the first reply `again(temperature)` gives that `stale` does not refuse
    (the last usable one when each is stale: a stale call is worth more than none); `note`
    hears each decode again and why."""
    reply = first
    for temperature in RETRY_TEMPERATURES:
        why = stale(reply)
        if why is None:
            return reply
        note(f"{why}; decoded again at temperature {temperature}")
        fresh = again(temperature)
        if not usable(fresh):
            return reply
        reply = fresh
    return reply


def stale_tools(
    reply: ChatMessage, offered: Sequence[Any], history: Sequence[tuple[str, Any]]
) -> frozenset[str]:
    """The tools a decode again of the stale `reply` leaves out: when it makes, for the
    third time in the calls `history`, a call of a tool of `offered` that only reads
    (`read_only`), every such tool (one left out alone, the model took the next reader:
    `read_file`, `read_file_snippet`, `read_file`, … until the loop guard stopped it); else
    none. Not at the first repeat: left without a reader then, the model wrote a proposal
    whose `old` and `new` were the same docstring (L6 through llama-server, twice),
    where a hotter decode had read once more and gone on. A stale proposal keeps its tool:
    a different proposal is what the job needs, not none."""
    readers = {
        tool.name for tool in offered if getattr(getattr(tool, "inner", tool), "read_only", False)
    }
    for call in reply.tool_calls or []:
        made = (call.function.name, call.function.arguments)
        if made[0] in readers and sum(past == made for past in history) >= REPEATS_BEFORE_NARROWING:
            return frozenset(readers)
    return frozenset()


@contextmanager
def leaving_out(model: Any, tools: frozenset[str]) -> Iterator[bool]:
    """While in the block, `model` leaves `tools` out of the calls it constrains its replies
    to, when it constrains them (`left_out_tools`; the block gets True); other models are
    asked as they are (False)."""
    if not tools or not hasattr(model, "left_out_tools"):
        yield False
        return
    before = model.left_out_tools
    model.left_out_tools = tools
    try:
        yield True
    finally:
        model.left_out_tools = before
