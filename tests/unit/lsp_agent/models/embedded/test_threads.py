"""llama.cpp's thread count follows the free cores: one on a busy machine, and the model's
own work does not make the machine busy."""

from __future__ import annotations

import math

import pytest

from lsp_agent.models.embedded import threads
from lsp_agent.models.embedded.threads import MAX_THREADS, OwnLoad, free_threads


@pytest.mark.parametrize(
    ("cpus", "load", "threads"),
    [(2, 0.0, 2), (2, 0.6, 2), (2, 1.2, 1), (2, 16.0, 1), (8, 1.0, MAX_THREADS), (8, 6.5, 2)],
)
def test_free_threads(cpus: int, load: float, threads: int) -> None:
    assert free_threads(cpus, load) == threads


class FakeTimes:
    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def run(self, seconds: float, cores: float) -> None:
        self.wall += seconds
        self.cpu += seconds * cores


def test_own_load_follows_the_process_cpu_time_as_the_load_average_does() -> None:
    times = FakeTimes()
    own = OwnLoad(clock=lambda: times.wall, cpu=lambda: times.cpu)
    assert own.now() == 0.0
    times.run(60, 1.0)  # a minute on one core
    assert own.now() == pytest.approx(1 - math.exp(-1), abs=1e-6)
    times.run(300, 2.0)  # five minutes on both
    assert own.now() == pytest.approx(2.0, abs=0.02)
    times.run(600, 0.0)  # idle
    assert own.now() == pytest.approx(0.0, abs=0.01)


def test_the_models_own_work_is_not_counted_as_other_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing with one thread for minutes made a load of 1.0; counted as others', the
    model kept one thread on an otherwise idle 2-core machine."""
    times = FakeTimes()
    own = OwnLoad(clock=lambda: times.wall, cpu=lambda: times.cpu)
    monkeypatch.setattr(threads, "_OWN", own)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 2)
    times.run(300, 1.0)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    assert threads.free_threads() == 2
    times.run(300, 1.0)  # another process now holds a core beside ours
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (2.0, 2.0, 2.0))
    assert threads.free_threads() == 1
