"""The decode gate: a waiting completion step goes before the agent's next step, and the agent
is never shut out (after a completion request, or when completions ran too long)."""

from __future__ import annotations

import threading
import time

from lsp_agent.models.embedded.decode_gate import DecodeGate, Lane


class Agent(threading.Thread):
    """The agent: decode steps back to back until told to stop."""

    def __init__(self, gate: DecodeGate, step_s: float = 0.002) -> None:
        super().__init__(daemon=True)
        self.gate, self.step_s = gate, step_s
        self.stopped = threading.Event()
        self.inside = threading.Event()
        self.steps = 0

    def run(self) -> None:
        while not self.stopped.is_set():
            with self.gate.step("agent"):
                self.inside.set()
                self.steps += 1
                time.sleep(self.step_s)


def starts(history: list[tuple[Lane, str]], after: int = 0) -> list[Lane]:
    return [lane for lane, event in history[after:] if event == "start"]


def test_a_completion_step_waits_for_the_running_agent_step_only() -> None:
    history: list[tuple[Lane, str]] = []
    gate = DecodeGate(history=history)
    agent = Agent(gate)
    agent.start()
    for _ in range(20):  # twenty keystrokes' worth of completion steps, each while the agent runs
        agent.inside.clear()
        assert agent.inside.wait(10)
        asked = len(history)
        with gate.step("completion"):
            pass
        gate.request_done()
        between = starts(history, asked)
        assert between.index("completion") == 0, f"agent steps went first: {between}"
    agent.stopped.set()
    agent.join(10)


def test_the_agent_gets_a_step_after_each_completion_request() -> None:
    history: list[tuple[Lane, str]] = []
    gate = DecodeGate(history=history)
    agent = Agent(gate)
    with gate.step("completion"):
        agent.start()  # it waits for the completion step
        while gate._waiting["agent"] == 0:
            time.sleep(0.001)
    gate.request_done()
    with gate.step("completion"):  # the next request's first step
        pass
    gate.request_done()
    agent.stopped.set()
    agent.join(10)
    assert starts(history)[:3] == ["completion", "agent", "completion"]


def test_completions_that_run_on_owe_the_waiting_agent_a_step() -> None:
    now = [0.0]
    history: list[tuple[Lane, str]] = []
    gate = DecodeGate(fair_after_s=1.0, clock=lambda: now[0], history=history)
    agent = Agent(gate)
    with gate.step("completion"):
        agent.start()
        while gate._waiting["agent"] == 0:
            time.sleep(0.001)
    for _ in range(10):  # one long completion: 10 steps of 0.3 s each
        now[0] += 0.3
        with gate.step("completion"):
            pass
    agent.stopped.set()
    gate.request_done()
    agent.join(10)
    order = starts(history)
    assert "agent" in order[:8], f"the agent waited through the whole completion: {order}"


def test_the_time_a_completion_step_waits_for_an_agent_step_is_counted() -> None:
    gate = DecodeGate()
    with gate.step("completion"):
        pass
    gate.request_done()
    alone = gate.waited_s["completion"]  # nobody held the model: about nothing
    agent_inside, release = threading.Event(), threading.Event()

    def agent_step() -> None:
        with gate.step("agent"):
            agent_inside.set()
            release.wait(10)

    agent = threading.Thread(target=agent_step, daemon=True)
    agent.start()
    assert agent_inside.wait(10)
    threading.Timer(0.3, release.set).start()
    with gate.step("completion"):
        pass
    gate.request_done()
    agent.join(10)
    assert gate.waited_s["completion"] - alone >= 0.2  # the agent held it for 0.3 s


def test_a_completion_request_keeps_its_turn_between_its_steps() -> None:
    history: list[tuple[Lane, str]] = []
    gate = DecodeGate(history=history)
    agent = Agent(gate)
    agent.start()
    assert agent.inside.wait(10)
    asked = len(history)
    for _ in range(5):  # a completion: a step, then the next token is sampled outside the gate
        with gate.step("completion"):
            pass
        time.sleep(0.01)
    between = starts(history, asked)
    gate.request_done()
    agent.stopped.set()
    agent.join(10)
    first = between.index("completion")
    assert between[first:] == ["completion"] * 5, f"agent steps between a request's: {between}"
