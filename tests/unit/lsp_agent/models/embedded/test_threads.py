"""llama.cpp's thread count follows the free cores: one on a busy machine."""

from __future__ import annotations

import pytest

from lsp_agent.models.embedded.threads import MAX_THREADS, free_threads


@pytest.mark.parametrize(
    ("cpus", "load", "threads"),
    [(2, 0.0, 2), (2, 0.6, 2), (2, 1.2, 1), (2, 16.0, 1), (8, 1.0, MAX_THREADS), (8, 6.5, 2)],
)
def test_free_threads(cpus: int, load: float, threads: int) -> None:
    assert free_threads(cpus, load) == threads
