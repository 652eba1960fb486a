"""lsp_agent/lsp/warm_up_gate.py: the warm-up waits while the editor talks, within limits."""

from __future__ import annotations

import io
import threading
import time

from lsp_agent.lsp.warm_up_gate import ActivityReader, WarmUpGate


def paused_in_thread(gate: WarmUpGate) -> threading.Event:
    done = threading.Event()

    def run() -> None:
        gate.pause()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done


def test_pause_returns_at_once_when_the_connection_is_quiet() -> None:
    gate = WarmUpGate(quiet_s=60)
    gate.pause()  # nothing was ever touched
    assert gate.paused_s == 0


def test_pause_waits_while_messages_come_and_the_first_job_opens_it() -> None:
    gate = WarmUpGate(quiet_s=60)
    gate.touch()
    done = paused_in_thread(gate)
    assert not done.wait(0.3)  # the editor just talked: the warm-up waits
    gate.open()
    assert done.wait(10)
    gate.touch()
    gate.pause()  # open for good


def test_pause_ends_after_a_quiet_moment() -> None:
    gate = WarmUpGate(quiet_s=0.05)
    gate.touch()
    started = time.monotonic()
    gate.pause()
    assert time.monotonic() - started >= 0.04
    assert gate.paused_s > 0


def test_an_editor_that_never_stops_cannot_keep_the_warm_up_waiting() -> None:
    gate = WarmUpGate(quiet_s=60, max_paused_s=0.2)
    gate.touch()
    assert paused_in_thread(gate).wait(10)
    gate.touch()
    gate.pause()  # the budget is spent: no more waiting


def test_reads_from_the_editor_count_as_activity() -> None:
    gate = WarmUpGate(quiet_s=60)
    reader = ActivityReader(io.BytesIO(b"Content-Length: 2\r\n\r\n{}"), gate)
    assert reader.readline() == b"Content-Length: 2\r\n"
    assert not paused_in_thread(gate).wait(0.3)
    assert reader.readline() == b"\r\n" and reader.read(2) == b"{}"
    gate.open()
