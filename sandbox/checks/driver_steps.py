"""The steps of a sandbox job: copy the repository, lay the overlay, apply, run, capture.

Standard library only. `run_job` does a whole job in this process's machine (the local
backend); `sandbox/checks/driver.py` adds the container modes on top. The Docker backend ships
this file and driver.py, joined, to `python3 -c` in the container (see
`sandbox.checks.driver_script`), so neither may import anything but the stdlib
(driver.py's one `from sandbox.checks.driver_steps import ...` line is dropped when shipped).

A job: {"source", "work", "excludes", "overlay", "diff", "strip", "command",
"merge_output", "timeout_s", "output_limit", "copy_hint"?, "env"?, "tree"?, "junit_path"?,
"node_modules"?}.
With "tree" (a fresh copy-on-write view of the repository, set by the driver) the job works
there and nothing is copied. The answer:
{"stage", "error", "applies", "apply_output", "exit_code", "signal", "stdout", "stderr",
"timed_out", "duration_s", "junit"?}. `junit_path` names the file the command writes its
JUnit XML to (outside the work copy); the answer carries that file's text.
`node_modules` is where a prepared Node environment is mounted (read-only).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any


class Capped:
    """Keep the head and tail of a stream, dropping the middle past `limit` bytes."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.half:
            extra = len(self.tail) - self.half
            self.dropped += extra
            del self.tail[:extra]

    def text(self) -> str:
        gap = f"\n[... {self.dropped} bytes omitted ...]\n".encode() if self.dropped else b""
        return bytes(self.head + gap + self.tail).decode("utf-8", errors="replace")


def prepare(job: dict[str, Any]) -> dict[str, Any]:
    """Copy, overlay, apply. `stage` ends as "command" (run it next), "done" or the failure."""
    report: dict[str, Any] = {"stage": "copy", "error": None, "applies": None, "apply_output": ""}
    if job.get("tree"):  # a fresh copy-on-write view of the repository: nothing to copy
        job["work"] = job["tree"]
    else:
        try:
            copy_repository(job["source"], job["work"], job["excludes"])
        except (OSError, shutil.Error) as exc:
            hint = job.get("copy_hint", "")
            report["error"] = f"cannot copy the repository: {_short(exc)}{hint}"
            return report
    work = job["work"]
    _link_node_modules(job)
    if job.get("junit_path"):
        with contextlib.suppress(OSError):
            os.unlink(job["junit_path"])  # a stale report must not pass for this run's
    report["stage"] = "overlay"
    root = os.path.realpath(work)
    for path, text in (job.get("overlay") or {}).items():
        dest = os.path.join(work, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.realpath(dest).startswith(root + os.sep):
            report["error"] = f"overlay path {path!r} leads out of the repository (symlink)"
            return report
        # A new file put in place (not written into): the tree's files may belong to
        # another uid than the job's, while its directories are the job's.
        fresh = dest + ".lsp-agent-overlay"
        with open(fresh, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(fresh, dest)
    if job.get("diff") is not None:
        report["stage"] = "apply"
        report["applies"], report["apply_output"] = _git_apply(
            work, job["diff"], job["strip"], job.get("env")
        )
        if not report["applies"]:
            return report
    report["stage"] = "command" if job.get("command") else "done"
    return report


def _link_node_modules(job: dict[str, Any]) -> None:
    """A copied work tree sees a prepared `node_modules` from its parent directory.

    Work trees at /sandbox/tree-N find the read-only mount /sandbox/node_modules as
    their parent's `node_modules`; a copy (/tmp/work) gets /tmp/node_modules pointing
    there, since Node (CommonJS and ESM) and `npm test`'s PATH look in every ancestor.
    """
    modules = job.get("node_modules")
    if not modules or job.get("tree") or not os.path.isdir(modules):
        return
    link = os.path.join(os.path.dirname(os.path.realpath(job["work"])), "node_modules")
    if not os.path.lexists(link):
        with contextlib.suppress(OSError):
            os.symlink(modules, link)


def copy_repository(source: str, work: str, excludes: list[str]) -> None:
    """Copy `source` to a fresh `work`, skipping `excludes` and symlinks leading outside.

    Symlinks stay symlinks; one whose target resolves outside `source` is left out, so
    nothing run in the copy reaches the rest of the machine through it.
    """
    if os.path.lexists(work):
        shutil.rmtree(work)
    root = os.path.realpath(source)
    skip = shutil.ignore_patterns(*excludes)

    def ignore(directory: str, names: list[str]) -> set[str]:
        ignored = set(skip(directory, names))
        for name in names:
            path = os.path.join(directory, name)
            if name not in ignored and os.path.islink(path):
                target = os.path.realpath(path)
                if target != root and not target.startswith(root + os.sep):
                    ignored.add(name)
        return ignored

    shutil.copytree(source, work, symlinks=True, ignore=ignore)


def _git_apply(
    work: str, diff: str, strip: int, base_env: dict[str, str] | None = None
) -> tuple[bool, str]:
    """`git apply` in `work`; with the job's environment where the job has one (the local
    backend: the user's start-up environment with a clean PATH, never this process's)."""
    env = dict(os.environ if base_env is None else base_env)
    env.update(
        GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.realpath(work)),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
    )
    argv = ["git", "apply", "--whitespace=nowarn", f"-p{strip}", "-"]
    try:
        proc = subprocess.run(
            argv, input=diff.encode(), cwd=work, env=env, capture_output=True, timeout=60
        )
    except FileNotFoundError:
        return False, "git is not installed where the patch is checked"
    except subprocess.TimeoutExpired:
        return False, "git apply did not finish in 60 s"
    output = (proc.stdout + proc.stderr).decode("utf-8", errors="replace").strip()
    return proc.returncode == 0, output


def _short(exc: BaseException) -> str:
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        return "; ".join(str(entry[-1]) for entry in exc.args[0][:3])
    return str(exc)


def supervise(
    poll: Callable[[], int | None],
    kill: Callable[[], None],
    fds: dict[int, str],
    deadline: float,
    limit: int,
) -> tuple[dict[str, bytes | str], int | None, bool]:
    """Read `fds` until the process exits (polled) or the deadline; kill it then."""
    buffers = {name: Capped(limit) for name in fds.values()}
    open_fds = dict(fds)
    code: int | None = None
    exited_at = 0.0
    timed_out = False
    try:
        while True:
            now = time.monotonic()
            if code is None:
                code = poll()
                exited_at = now
            if code is not None and (not open_fds or now - exited_at > 0.5):
                break
            if code is None and now >= deadline:
                timed_out = True
                kill()
                while code is None:
                    code = poll()
                    time.sleep(0.005)
                break
            wait = min(0.05, max(deadline - now, 0.0)) if open_fds else 0.002
            ready = select.select(list(open_fds), [], [], wait)[0] if open_fds else []
            if not open_fds:
                time.sleep(wait)
            for fd in ready:
                chunk = os.read(fd, 65536)
                if chunk:
                    buffers[open_fds[fd]].add(chunk)
                else:
                    del open_fds[fd]
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
    texts: dict[str, bytes | str] = {name: buf.text() for name, buf in buffers.items()}
    return texts, code, timed_out


def finish(report: dict[str, Any], code: int | None, timed_out: bool, started: float) -> None:
    signum = -code if code is not None and code < 0 else None
    report["signal"] = signum
    report["exit_code"] = 128 + signum if signum else code
    report["timed_out"] = timed_out
    report["duration_s"] = time.monotonic() - started


REPORT_LIMIT = 4_000_000  # bytes of a JUnit report carried back


def read_report(job: dict[str, Any]) -> str | None:
    """The JUnit XML the job's command wrote (None when it wrote none); the file is removed."""
    path = job.get("junit_path")
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(REPORT_LIMIT + 1)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    if len(data) > REPORT_LIMIT:
        return None
    return data.decode("utf-8", errors="replace")


def killpg(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Do a job in this process's host (no isolation): the local backend's engine."""
    started = time.monotonic()
    report = prepare(job)
    report.update(stdout="", stderr="", exit_code=None, signal=None, timed_out=False)
    if report["stage"] != "command":
        report["duration_s"] = time.monotonic() - started
        return report
    merged = bool(job.get("merge_output"))
    try:
        proc = subprocess.Popen(
            job["command"],
            cwd=job["work"],
            env=job.get("env"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        report.update(stderr=f"cannot run {job['command'][0]!r}: {exc}", exit_code=127)
        report["duration_s"] = time.monotonic() - started
        return report
    fds = {os.dup(proc.stdout.fileno()): "stdout"} if proc.stdout else {}
    if proc.stderr:
        fds[os.dup(proc.stderr.fileno())] = "stderr"
    deadline = time.monotonic() + float(job["timeout_s"])
    texts, code, timed_out = supervise(
        proc.poll, lambda: killpg(proc.pid), fds, deadline, int(job["output_limit"])
    )
    killpg(proc.pid)
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()
    report.update(texts)
    finish(report, code, timed_out, started)
    report["junit"] = read_report(job)
    return report
