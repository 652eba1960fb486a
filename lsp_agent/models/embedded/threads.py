"""How many CPU threads llama.cpp may use now: the cores nobody else is using, at least one.

llama.cpp's threads meet at a barrier after every layer; when another process holds a core,
every thread waits for the slowest one. Measured on this project's 2-core machine with a
load average of 16 (other jobs running), Qwen2.5-Coder-1.5B evaluated a 64-token prompt at
11-19 tokens/s with one thread and 2-3 tokens/s with two, and decoded 3-6 tokens/s with one
thread against 0.1-0.3 with two. On an idle machine two threads are faster. So the count
follows the load: the cores minus the 1-minute load average (rounded up), between 1 and
`MAX_THREADS`, asked afresh before each reply (`Decoder`) or server start.
"""

from __future__ import annotations

import math
import os

__all__ = ["MAX_THREADS", "free_threads"]

MAX_THREADS = 4


def free_threads(cpus: int | None = None, load: float | None = None) -> int:
    """Threads worth using now (see the module doc)."""
    cpus = cpus or os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this system
            load = 0.0
    spare = math.ceil(cpus - load)
    return max(1, min(cpus, MAX_THREADS, spare))
