"""The small process every MCP server runs under: it bounds the server's messages and ends
everything the server started when the server ends.

`python -I -c SUPERVISOR_SOURCE LIMIT PROGRAM ARGS...` starts the server with the
supervisor's stdin and stderr and relays its stdout line by line:

- a line (one JSON-RPC message) longer than LIMIT bytes is never held: it is dropped as it
  streams, and the supervisor sends a JSON-RPC error for its id instead (`the result was
  larger than ...`), so a 100 MB result costs this machine LIMIT bytes, not gigabytes;
- on Linux it is a child subreaper (`PR_SET_CHILD_SUBREAPER`): a process the server started
  and detached (double fork, `setsid`) is reparented to it, not to init, and when the
  server exits, or the supervisor is told to stop (SIGTERM, SIGHUP), every such process is
  killed before the supervisor exits. No process of a job's MCP server outlives the job.

Standard library only; it is sent with `python -I -c` like the sandbox's runners.
"""

from __future__ import annotations

SUPERVISOR_SOURCE = r"""
import ctypes, os, re, signal, sys, time

limit = int(sys.argv[1])
argv = sys.argv[2:]
ME = os.getpid()
try:  # orphans of the server's tree come to us, not to init
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass

read_end, write_end = os.pipe()
child = os.fork()
if child == 0:
    os.dup2(write_end, 1)
    os.close(read_end)
    os.close(write_end)
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot start {argv[0]}: {exc}\n".encode())
        os._exit(127)
os.close(write_end)


def children():
    found = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ME:
            found.append(int(name))
    return found


def end_all(code):
    for _ in range(50):  # descendants reparent to us as their parents die
        alive = [pid for pid in children()] or ([child] if _alive(child) else [])
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        time.sleep(0.02)
    os._exit(code)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(sig, lambda *_: end_all(143))

ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
out = sys.stdout.buffer
line, dropping = b"", False
while True:
    chunk = os.read(read_end, 65536)
    if not chunk:
        break
    while chunk:
        newline = chunk.find(b"\n")
        part, chunk = (chunk, b"") if newline < 0 else (chunk[: newline + 1], chunk[newline + 1 :])
        if dropping:
            pass
        elif len(line) + len(part) > limit:
            dropping, head = True, (line + part)[:4096]
        else:
            line += part
        if newline < 0:
            continue
        if dropping:
            found = ID.search(head)
            if found:
                error = (
                    b'{"jsonrpc":"2.0","id":' + found.group(1) + b',"error":{"code":-32603,'
                    b'"message":"the result was larger than ' + str(limit).encode()
                    + b' bytes and was dropped"}}\n'
                )
                out.write(error)
                out.flush()
        else:
            out.write(line)
            out.flush()
        line, dropping = b"", False
_, status = os.waitpid(child, 0)
end_all(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 0)
"""

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def supervised(argv: list[str], python: str, limit: int = MAX_MESSAGE_BYTES) -> list[str]:
    """The argv that runs `argv` (program absolute) under the supervisor."""
    return [python, "-I", "-c", SUPERVISOR_SOURCE, str(limit), *argv]
