"""The in-container driver: a warm fork server for sandbox jobs (or one cold job).

Modes (argv after `python3 -c SOURCE`):
  serve [--sweep] [--trees A:B:...]
             pre-import pytest, print a ready line, then read one JSON job per stdin line
             and answer each with one `@@lsp-agent@@ {...}` stdout line. Every job runs in
             a forked child (new session, stdin /dev/null, output to pipes, first in line
             for the OOM killer) that is killed at the job's timeout. With --sweep (only
             as a container's main process) stray processes are killed after each job and
             /tmp and /dev/shm are emptied, so every job starts with a fresh /tmp and HOME.
             Exits at end of input, so the container ends with us.
  once B64 [--sweep] [--trees A]
             the same for one job given as base64 JSON (what a cold `docker run` does).

--trees lists fresh copy-on-write views of the repository (overlay mounts): each job
gets the next unused one as its work tree instead of a copy, and every answer says
how many are left (`trees_left`); the host replaces the container when none is.

Standard library only (see sandbox/checks/driver_steps.py for the job format).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
import traceback
from typing import Any

from sandbox.checks.driver_steps import finish, killpg, prepare, read_report, supervise

MARKER = "@@lsp-agent@@ "
SCRATCH_DIRS = ("/tmp", "/dev/shm")  # emptied between jobs (serve --sweep)
PROBED_PROGRAMS = ("node", "npm", "go", "cargo")  # toolchains the auto check commands need
# In the image (recipe/build-rootfs.sh): hides Debian's npm packages from project code.
NODE_PRELOAD = "/usr/lib/lsp-agent/node-hermetic.js"
_PYTHON = re.compile(r"^python(3(\.\d+)?)?$")


def run_forked(job: dict[str, Any], pytest_module: Any) -> dict[str, Any]:
    """Do a job in a forked child (container mode); pytest runs in-process when it can."""
    started = time.monotonic()
    merged = bool(job.get("merge_output"))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe() if not merged else (-1, out_w)
    res_r, res_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        _child(job, pytest_module, readers=(out_r, err_r, res_r), writers=(out_w, err_w, res_w))
    for fd in {out_w, err_w, res_w}:
        os.close(fd)
    fds = {out_r: "stdout", res_r: "report"}
    if not merged:
        fds[err_r] = "stderr"

    def poll() -> int | None:
        done, status = os.waitpid(pid, os.WNOHANG)
        return os.waitstatus_to_exitcode(status) if done else None

    deadline = started + float(job["timeout_s"])
    texts, code, timed_out = supervise(
        poll, lambda: killpg(pid), fds, deadline, int(job["output_limit"])
    )
    killpg(pid)
    raw_report = str(texts.pop("report", ""))
    try:
        report: dict[str, Any] = json.loads(raw_report)
    except ValueError:
        report = {"stage": "command" if timed_out else "driver", "applies": None}
        report["error"] = None if timed_out else f"the job died early: {raw_report[-300:]}"
    report.setdefault("stderr", "")
    report.update(texts)
    finish(report, code if report.get("stage") == "command" else None, timed_out, started)
    report["junit"] = read_report(job) if report.get("stage") == "command" else None
    return report


def _child(  # pragma: no cover - runs in the forked child
    job: dict[str, Any],
    pytest_module: Any,
    *,
    readers: tuple[int, int, int],
    writers: tuple[int, int, int],
) -> None:
    out_w, err_w, res_w = writers
    code = 70
    try:
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")  # an out-of-memory kill picks the job, not the driver
        except OSError:
            pass
        for fd in readers:
            if fd >= 0:
                os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        report = prepare(job)
        os.write(res_w, json.dumps(report).encode())
        os.close(res_w)
        if report["stage"] != "command":
            os._exit(0)
        argv = list(job["command"])
        os.chdir(job["work"])
        if pytest_module is not None and _is_pytest(argv):
            if len(argv) > 1 and argv[1] == "-m":
                sys.path.insert(0, os.getcwd())
                argv = argv[2:]
            sys.argv = ["pytest", *argv[1:]]
            code = int(pytest_module.console_main())
        else:
            try:
                os.execvp(argv[0], argv)
            except OSError as exc:
                os.write(2, f"cannot run {argv[0]!r}: {exc}\n".encode())
                code = 127
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:
        os.write(2, traceback.format_exc().encode())
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _is_pytest(argv: list[str]) -> bool:
    name = os.path.basename(argv[0])
    if name in ("pytest", "py.test"):
        return True
    if not (_PYTHON.match(name) and argv[1:3] == ["-m", "pytest"]):
        return False
    found = shutil.which(argv[0])
    return found is not None and os.path.realpath(found) == os.path.realpath(sys.executable)


def _sweep_strays() -> None:
    """Kill every process but init, the driver and its parent (leftovers of the last job).

    Only for a driver that is the container's main process (`serve --sweep`, parent is
    the container's init): anywhere else this would hit unrelated processes.
    """
    if os.getppid() != 1:
        return
    keep = {1, os.getpid(), os.getppid()}
    for _round in range(50):  # again while some remain: a fork bomb forks while we kill
        strays = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
        strays = [pid for pid in strays if pid not in keep and not _is_zombie(pid)]
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # gone already


def clean_scratch(dirs: tuple[str, ...] = SCRATCH_DIRS) -> None:
    """Empty the writable scratch directories and make a fresh HOME (between jobs).

    Only for a driver that is the container's main process (its parent is the
    container's init), after `_sweep_strays`: nothing else runs then, so nothing can
    write while this deletes. Anywhere else it does nothing.
    """
    if os.getppid() != 1:
        return
    for directory in dirs:
        with contextlib.suppress(OSError):
            for entry in os.listdir(directory):
                _remove(os.path.join(directory, entry))
    home = os.environ.get("HOME", "")
    if home.startswith("/tmp/"):
        with contextlib.suppress(OSError):
            os.makedirs(home, mode=0o700, exist_ok=True)


def _remove(path: str) -> None:
    def make_writable(_func: Any, failed: str, _exc: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(failed), 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
                shutil.rmtree(failed, ignore_errors=True)
            else:
                os.unlink(failed)

    if os.path.isdir(path) and not os.path.islink(path):
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=make_writable)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _emit(message: dict[str, Any]) -> None:
    sys.stdout.write(MARKER + json.dumps(message) + "\n")
    sys.stdout.flush()


def _answer(request: dict[str, Any], pytest_module: Any, trees: list[str] | None) -> dict[str, Any]:
    job = request["job"]
    try:
        if trees is not None:
            if not trees:
                raise RuntimeError("no fresh work tree left in this container")
            job = dict(job, tree=trees.pop(0))
        answer = run_forked(job, pytest_module)
    except Exception as exc:
        answer = {"stage": "driver", "error": f"driver error: {exc!r}"}
    answer["id"] = request.get("id")
    if trees is not None:
        answer["trees_left"] = len(trees)
    return answer


def _option(argv: list[str], name: str) -> list[str] | None:
    if name not in argv:
        return None
    value = argv[argv.index(name) + 1]
    return [part for part in value.split(":") if part]


def main(argv: list[str]) -> int:
    if os.path.isfile(NODE_PRELOAD):  # every Node process of every job loads it first
        os.environ["NODE_OPTIONS"] = f"--require {NODE_PRELOAD}"
    pytest_module: Any = None
    with contextlib.suppress(ImportError):
        import pytest as pytest_module
    trees = _option(argv, "--trees")
    if argv[:1] == ["once"]:
        if "--sweep" in argv:
            clean_scratch()  # makes HOME
        job = json.loads(base64.b64decode(argv[1]))
        _emit(_answer({"id": "once", "job": job}, pytest_module, trees))
        return 0
    sweep = "--sweep" in argv
    if sweep:
        clean_scratch()
    programs = {name: shutil.which(name) is not None for name in PROBED_PROGRAMS}
    _emit(
        {
            "ready": True,
            "pytest": pytest_module is not None,
            "pid": os.getpid(),
            "programs": programs,
        }
    )
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return 0
        if line.strip():
            _emit(_answer(json.loads(line), pytest_module, trees))
            if sweep:
                _sweep_strays()
                clean_scratch()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
