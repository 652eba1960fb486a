"""Heavy imports in slices another thread can get between (for the server's warm-up).

The warm-up imports LiteLLM, smolagents and their dependencies in a background thread
while the event loop answers the editor. Python switches threads between bytecodes, but a
C call keeps the GIL until it returns. Measured on the warm-up (another thread pinging, the
warm-up thread's CPU time between two pings): the cyclic garbage collector's full
collections of the growing heap (6 of them, 100-240 ms each on a loaded 2-core machine, 1 s
of the 1.2 s spent in stretches over 4 ms), then `json.dumps` of LiteLLM's 2.4 MB Anthropic
tokenizer at import (25-210 ms) and `json.load` of it (34 ms). A code action arriving
meanwhile waited for them. With all three below, no stretch was over 10 ms.

- `collection_paused()`: no cyclic collection while importing (the modules' objects live as
  long as the process anyway); at the end everything is frozen (`gc.freeze()`), so later
  collections, during jobs too, no longer walk the imported modules.

- `yielding_imports(pause)`: before each module the thread imports, `pause()` runs; the
  server's `pause` sleeps while the editor is talking to it (`lsp_agent.lsp.warm_up_gate`).
  Only the thread that entered the context pauses; other threads import as usual.
- `preemptible_json()`: in that thread, `json.loads`/`load`/`dumps` without options
  use the standard library's pure-Python scanner and encoder (slower, but a thread switch
  can happen inside them); every other call, and every other thread, is unchanged.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.abc
import json
import json.scanner
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["collection_paused", "preemptible_json", "yielding_imports"]


class _PauseBeforeImport(importlib.abc.MetaPathFinder):
    """First on `sys.meta_path`: calls `pause()` in one thread, finds nothing itself."""

    def __init__(self, pause: Callable[[], None], thread_id: int) -> None:
        self.pause = pause
        self.thread_id = thread_id

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if threading.get_ident() == self.thread_id:
            self.pause()
        return None


@contextlib.contextmanager
def yielding_imports(pause: Callable[[], None]) -> Iterator[None]:
    """Within: `pause()` before each new module this thread imports."""
    finder = _PauseBeforeImport(pause, threading.get_ident())
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)


def _python_decoder() -> json.JSONDecoder:
    decoder = json.JSONDecoder()
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder


@contextlib.contextmanager
def preemptible_json() -> Iterator[None]:
    """Within: this thread's plain `json` calls run in pure Python."""
    thread_id = threading.get_ident()
    originals = {name: getattr(json, name) for name in ("loads", "dumps")}
    decoder, encoder = _python_decoder(), json.JSONEncoder()

    def loads(text: Any, *args: Any, **kwargs: Any) -> Any:
        options = args or any(value is not None for value in kwargs.values())  # load passes Nones
        if options or threading.get_ident() != thread_id:
            return originals["loads"](text, *args, **kwargs)
        if isinstance(text, (bytes, bytearray)):
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        return decoder.decode(text)

    def dumps(value: Any, *args: Any, **kwargs: Any) -> str:
        if args or kwargs or threading.get_ident() != thread_id:
            result: str = originals["dumps"](value, *args, **kwargs)
            return result
        return "".join(encoder.iterencode(value))

    # json.load calls the module's `loads`; json.dump already encodes in Python.
    json.loads, json.dumps = loads, dumps  # type: ignore[assignment]
    try:
        yield
    finally:
        json.loads, json.dumps = originals["loads"], originals["dumps"]


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Within: no cyclic garbage collection; then what was made is frozen, and it resumes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
