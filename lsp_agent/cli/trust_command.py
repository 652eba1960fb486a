"""`lsp-agent trust [DIR] [--forget]`: let a workspace `.env` set security keys.

Like direnv's `allow`: what is trusted is the file's exact content (its SHA-256), so an edit
(a `git pull`, a changed branch) makes it untrusted again.
"""

from __future__ import annotations

from pathlib import Path

from dotenv import dotenv_values

from lsp_agent.settings import Settings
from safety.host_env import user_environ
from safety.user_scope import TrustStore

EXIT_OK, EXIT_FAILURE = 0, 1


def run_trust(directory: Path, *, forget: bool = False) -> int:
    dotenv_path = directory.resolve() / ".env"
    store = TrustStore.of(user_environ())
    if forget:
        removed = store.forget(dotenv_path)
        print(f"{dotenv_path}: " + ("no longer trusted" if removed else "was not trusted"))
        return EXIT_OK
    if not dotenv_path.is_file():
        print(f"{dotenv_path} does not exist: nothing to trust")
        return EXIT_FAILURE
    security = Settings.security_keys()
    keys = sorted(k for k in dotenv_values(dotenv_path) if k in security)
    try:
        digest = store.trust(dotenv_path)
    except OSError as exc:
        print(f"cannot record trust: {exc}")
        return EXIT_FAILURE
    print(f"trusted {dotenv_path} (sha256 {digest[:12]}…) in {store.path}")
    if keys:
        print("it now sets: " + ", ".join(keys))
    else:
        print("it sets no security keys; trust was not needed for its other keys")
    print("any change to the file makes it untrusted again")
    return EXIT_OK
