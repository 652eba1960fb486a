"""The unpatched run of a check, cached by the content of the tree it ran on.

A check compares the tests on the patched tree with the same tests on the unpatched
tree (sandbox/checks/test_results.py). The unpatched run is the same for every patch until
the repository (or an unsaved buffer, the command, the project environment) changes,
so it is kept here under a key made from all of those.

The tree's content digest walks the files a job copies (the same exclusions) and hashes
each one, remembering digests by (size, mtime, inode) like git's index, so a repeated
check re-reads only files that changed.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from sandbox.checks.test_results import CheckRun

MAX_ENTRIES = 8  # cached baselines per sandbox (a session rarely has more trees)


class TreeDigest:
    """A content digest of the repository as a sandbox job copies it."""

    def __init__(self, root: Path, excludes: Iterable[str]) -> None:
        self.root = Path(root)
        self.excludes = tuple(excludes)
        # One compiled pattern: fnmatch per name and pattern was most of a digest's time.
        self._excluded_name = re.compile(
            "|".join(fnmatch.translate(pattern) for pattern in self.excludes) or "(?!)"
        ).match
        self._known: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._lock = threading.Lock()

    def digest(self, overlay: Mapping[str, str] | None = None) -> str:
        """Hex digest of every copied file's path and content, with `overlay` laid on top."""
        overlay = dict(overlay or {})
        total = hashlib.sha256()
        with self._lock:
            entries = sorted(self._entries())
            seen: dict[str, tuple[tuple[int, int, int], str]] = {}
            for relative, full in entries:
                if relative in overlay:
                    continue
                file_digest = self._file_digest(relative, full)
                if file_digest is None:
                    continue
                seen[relative] = self._known[relative]
                total.update(f"{relative}\0{file_digest}\n".encode())
            self._known = seen
        for relative in sorted(overlay):
            text_digest = hashlib.sha256(overlay[relative].encode()).hexdigest()
            total.update(f"{relative}\0overlay:{text_digest}\n".encode())
        return total.hexdigest()

    def _entries(self) -> Iterable[tuple[str, str]]:
        """(relative path, full path) of every copied file and directory link."""
        pending = [(str(self.root), "")]
        while pending:
            directory, prefix = pending.pop()
            try:
                with os.scandir(directory) as listing:
                    found = list(listing)
            except OSError:
                continue
            for entry in found:
                if self._excluded_name(entry.name):
                    continue
                relative = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, relative + "/"))
                else:  # files, and links (to directories too: copied as links)
                    yield relative, entry.path

    def _file_digest(self, relative: str, full: str) -> str | None:
        try:
            info = os.lstat(full)
        except OSError:
            return None
        stamp = (info.st_size, info.st_mtime_ns, info.st_ino)
        known = self._known.get(relative)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            value = "link:" + os.readlink(full) if os.path.islink(full) else _hash_file(full)
        except OSError:
            value = "unreadable"
        self._known[relative] = (stamp, value)
        return value


def _hash_file(path: str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a named pipe must not block the digest
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "special"
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def baseline_key(tree: str, command: Sequence[str], environment: str) -> str:
    """The cache key of an unpatched run: tree digest, command and project environment."""
    text = "\0".join([tree, *command, "\0env:", environment])
    return hashlib.sha256(text.encode()).hexdigest()


class BaselineCache:
    """The last few unpatched runs by key (thread-safe, least recently used dropped)."""

    def __init__(self, size: int = MAX_ENTRIES) -> None:
        self._size = size
        self._runs: OrderedDict[str, CheckRun] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> CheckRun | None:
        with self._lock:
            run = self._runs.get(key)
            if run is None:
                self.misses += 1
                return None
            self._runs.move_to_end(key)
            self.hits += 1
            return run

    def put(self, key: str, run: CheckRun) -> None:
        with self._lock:
            self._runs[key] = run
            self._runs.move_to_end(key)
            while len(self._runs) > self._size:
                self._runs.popitem(last=False)
