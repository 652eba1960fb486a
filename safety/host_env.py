"""The user's environment, as it was when lsp-agent started: the only one we trust.

Libraries change `os.environ` behind our back: LiteLLM calls `load_dotenv()` at import
(python-dotenv searches upward from LiteLLM's own directory, so with lsp-agent installed in
a virtual environment inside a repository, that repository's `.env` lands in the process
environment), and other libraries do the same when some module of theirs is imported.
What a repository file put there is not the user's environment.

So `lsp_agent/__init__.py` takes a snapshot before any third-party import
(`take_snapshot`), and everything that reads the user's environment reads the snapshot
(`user_environ`): the settings, the sandbox's config, the Docker client and every child
process (`safety.host_process`). `restore_process_environ` puts `os.environ` back to the
snapshot (plus the keys we set ourselves, `set_own`), so that libraries which read
`os.environ` at call time (HTTP proxies, provider base URLs and keys) do not read what a
library loaded; the runtime calls it after the heavy imports and at each job's start.

Standard library only: `safety/`, `sandbox/`, `tools/` and `lsp_agent` all read it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from types import MappingProxyType

log = logging.getLogger(__name__)

_taken: dict[str, Mapping[str, str]] = {}  # "environ": the snapshot, once taken
_own: dict[str, str] = {}


def take_snapshot() -> None:
    """Remember the process environment now (the first call wins)."""
    _taken.setdefault("environ", MappingProxyType(dict(os.environ)))


def user_environ() -> Mapping[str, str]:
    """The user's environment: the snapshot (taken now if nobody took it yet)."""
    take_snapshot()
    return _taken["environ"]


def set_own(key: str, value: str, *, default_only: bool = False) -> None:
    """Set `key` in the process environment for our libraries (not the user's value, and
    not passed to child processes); `default_only`: only when the user did not set it."""
    if default_only and key in user_environ():
        return
    _own[key] = value
    os.environ[key] = value


def restore_process_environ() -> list[str]:
    """Undo what libraries changed in `os.environ` since the snapshot; the keys undone."""
    snapshot = user_environ()
    if snapshot is os.environ:  # tests that follow the live environment
        return []
    wanted = {**snapshot, **_own}
    changed = sorted(
        {key for key in os.environ if wanted.get(key) != os.environ[key]}
        | {key for key in wanted if key not in os.environ}
    )
    for key in changed:
        if key in wanted:
            os.environ[key] = wanted[key]
        else:
            del os.environ[key]
    if changed:
        log.warning(
            "the process environment was changed after start-up (a library loading a .env "
            "file?): %s put back as they were",
            ", ".join(changed),
        )
    return changed


def follow_process_environ() -> None:
    """Tests only: read the live `os.environ` as the user's environment (as if each test
    had started a fresh process with what it set)."""
    _taken["environ"] = os.environ
