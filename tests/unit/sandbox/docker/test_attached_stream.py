"""The attached-stream reader of the check driver and the code runner, over a real socket pair
carrying Docker's multiplexed frames."""

from __future__ import annotations

import json
import socket
import struct
import threading

import pytest

from sandbox.docker import AttachedStream, ChannelBroken
from sandbox.docker.attached_stream import LINE_LIMIT

MARKER = "@@test@@"


def frame(stream: int, data: bytes) -> bytes:
    return bytes([stream, 0, 0, 0]) + struct.pack(">L", len(data)) + data


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    stream = AttachedStream(ours, MARKER, name="the test container", ended="the test ended")
    yield stream, theirs
    stream.close()
    theirs.close()


def test_marked_lines_come_back_as_objects_and_everything_else_is_skipped(pair):
    stream, theirs = pair
    theirs.sendall(
        frame(1, b"noise from a child\n")
        + frame(1, f"{MARKER}not json\n".encode())
        + frame(1, f"{MARKER}[1, 2]\n".encode())
        + frame(1, f'{MARKER}{{"ready": true}}\n'.encode())
    )
    assert stream.receive(5.0) == {"ready": True}


def test_partial_frames_and_lines_are_kept_between_reads(pair):
    stream, theirs = pair
    whole = frame(1, f'{MARKER}{{"id": "a", "n": 1}}\n'.encode())
    theirs.sendall(whole[:5])
    assert stream.receive(0.05) is None  # half a header: nothing yet, nothing lost
    theirs.sendall(whole[5:20])
    assert stream.receive(0.05) is None
    theirs.sendall(whole[20:])
    assert stream.receive(5.0) == {"id": "a", "n": 1}


def test_a_line_without_an_end_is_dropped_past_the_limit(pair):
    stream, theirs = pair

    def flood() -> None:
        chunk = b"x" * 65536
        for _ in range(LINE_LIMIT // len(chunk) + 2):
            theirs.sendall(frame(1, chunk))
        theirs.sendall(frame(1, f'\n{MARKER}{{"after": 1}}\n'.encode()))

    writer = threading.Thread(target=flood)
    writer.start()
    assert stream.receive(30.0) == {"after": 1}
    writer.join()


def test_the_end_of_the_stream_says_why_with_the_stderr_tail(pair):
    stream, theirs = pair
    theirs.sendall(frame(2, b"Traceback: MemoryError\n"))
    theirs.shutdown(socket.SHUT_WR)
    with pytest.raises(ChannelBroken, match="the test ended: Traceback: MemoryError"):
        stream.receive(5.0)
    assert not stream.alive()


def test_send_writes_one_json_line_and_a_closed_stream_refuses(pair):
    stream, theirs = pair
    assert stream.alive()
    stream.send({"run": "x = 1", "step": 1}, 5.0)
    assert json.loads(theirs.recv(4096).decode()) == {"run": "x = 1", "step": 1}
    stream.close()
    with pytest.raises(ChannelBroken, match="the test container was closed"):
        stream.send({}, 1.0)
    assert not stream.alive()


def test_a_forged_line_nested_too_deep_is_skipped_not_raised(pair):
    """Issue 28, low: a line nested 100,000 deep raised RecursionError on the host; one
    nested 900 deep parsed but would raise wherever the message is walked."""
    stream, theirs = pair
    deep = "[" * 100_000 + "]" * 100_000
    nested = '{"call": "read_file", "arguments": {"path": ' + "[" * 900 + "]" * 900 + "}}"
    theirs.sendall(
        frame(1, f"{MARKER}{deep}\n".encode())
        + frame(1, f"{MARKER}{nested}\n".encode())
        + frame(1, f'{MARKER}{{"done": true, "output": {{"a": [1, {{"b": 2}}]}}}}\n'.encode())
    )
    assert stream.receive(5.0) == {"done": True, "output": {"a": [1, {"b": 2}]}}
