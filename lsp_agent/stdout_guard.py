"""Reserve stdout for a protocol stream (LSP or ACP) before anything else can write to it.

Any stray write to stdout — a `print` in a library, a C extension writing to fd 1, a
progress bar — would corrupt the message stream and break the editor. So before a server
starts, the real stdout file descriptor is duplicated for the protocol writer and fd 1
(and `sys.stdout`) are pointed at stderr.
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO


def reserve_stdout_for_rpc() -> BinaryIO:
    """Return a binary stream on the real stdout; make fd 1 and `sys.stdout` go to stderr."""
    sys.stdout.flush()
    rpc_fd = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return os.fdopen(rpc_fd, "wb", buffering=0)
