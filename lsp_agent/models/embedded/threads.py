"""How many CPU threads llama.cpp may use now: the cores nobody else is using, at least one.

llama.cpp's threads meet at a barrier after every layer; when another process holds a core,
every thread waits for the slowest one. Measured on this project's 2-core machine with a
load average of 16 (other jobs running), Qwen2.5-Coder-1.5B evaluated a 64-token prompt at
11-19 tokens/s with one thread and 2-3 tokens/s with two, and decoded 3-6 tokens/s with one
thread against 0.1-0.3 with two. On an idle machine two threads are faster. So the count
follows the load: the cores minus the 1-minute load average (rounded up), between 1 and
`MAX_THREADS`, asked afresh before each reply (`Decoder`) or server start.

The load is other processes' load: this process's own work is taken out of it
(`OwnLoad`, its CPU time decayed as the kernel decays the load average). Counted in, a
model that had been writing for a minute with one thread saw a load of 1.0 and kept one
thread, with two cores idle but for itself: Qwen2.5-Coder-1.5B then decoded 6-7 tokens/s
and read 16-18 prompt tokens/s, against 12 and 30-38 with two threads (2026-12-01, an
idle machine, the edit bench's whole run at half speed).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable

__all__ = ["MAX_THREADS", "OwnLoad", "free_threads"]

MAX_THREADS = 4
LOAD_WINDOW_S = 60.0  # the kernel's 1-minute load average decays with this time constant


class OwnLoad:
    """This process's share of the 1-minute load average: its CPU time per second (all
    threads), decayed over `LOAD_WINDOW_S` like the kernel's average."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self.clock, self.cpu = clock, cpu
        self.lock = threading.Lock()
        self.last = (clock(), cpu())
        self.average = 0.0

    def now(self) -> float:
        """The process's load now (cores' worth), updated with the time since last asked."""
        with self.lock:
            wall, used = self.clock(), self.cpu()
            elapsed = wall - self.last[0]
            if elapsed > 0:
                rate = max(used - self.last[1], 0.0) / elapsed
                kept = math.exp(-elapsed / LOAD_WINDOW_S)
                self.average = self.average * kept + rate * (1 - kept)
                self.last = (wall, used)
            return self.average


_OWN = OwnLoad()


def free_threads(cpus: int | None = None, load: float | None = None) -> int:
    """Threads worth using now (see the module doc); `load`, when given, is the other
    processes' load."""
    cpus = cpus or os.cpu_count() or 1
    if load is None:
        try:
            load = max(os.getloadavg()[0] - _OWN.now(), 0.0)
        except OSError:  # no load average on this system
            load = 0.0
    spare = math.ceil(cpus - load)
    return max(1, min(cpus, MAX_THREADS, spare))
