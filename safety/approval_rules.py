"""Always-allow rules for exact commands, and the reviewable JSON file that keeps them.

The file looks like ``{"version": 1, "rules": [{"command": ..., "kind": ..., "workspace": ...,
"content_hash": ..., "created_at": ISO-8601, "expires_at": ISO-8601, "approved_by": ...}]}``.
``kind`` is what was approved (``command``: a command in the sandbox, ``mcp_call``: a call
of an MCP tool; missing means ``command``): a rule covers that kind of effect only, never
the same text as another kind. Entries whose hash does not match their kind and command,
or that have expired, are ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class AlwaysRule:
    """Always allow this exact command in this workspace (until it expires)."""

    command: str
    content_hash: str
    workspace: str
    created_at: float
    expires_at: float
    approved_by: str
    kind: str = "command"

    def active(self, now: float) -> bool:
        """True before the expiry time."""
        return now < self.expires_at


def content_hash(kind: str, content: str, workspace: str | None = None) -> str:
    """SHA-256 over kind, workspace and the exact content."""
    digest = hashlib.sha256()
    for part in (str(kind), workspace or "", content):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


def load_rules_file(path: Path, now: float) -> list[AlwaysRule]:
    """Active rules from ``path`` (missing file: none). Raises ValueError if unreadable."""
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text("utf-8"))
        entries = list(data.get("rules", []))
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    rules = [_rule_from_json(entry) for entry in entries]
    return [r for r in rules if r is not None and r.active(now)]


def save_rules_file(path: Path, rules: list[AlwaysRule]) -> None:
    """Write ``rules`` to ``path`` atomically (readable, indented JSON)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    payload = {"version": 1, "rules": [_rule_to_json(r) for r in rules]}
    tmp.write_text(json.dumps(payload, indent=2) + "\n", "utf-8")
    os.replace(tmp, path)


def iso_time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _rule_to_json(rule: AlwaysRule) -> dict[str, Any]:
    data = asdict(rule)
    data["created_at"] = iso_time(rule.created_at)
    data["expires_at"] = iso_time(rule.expires_at)
    return data


def _rule_from_json(entry: Any) -> AlwaysRule | None:
    try:
        command = str(entry["command"])
        workspace = str(entry["workspace"])
        created = datetime.fromisoformat(str(entry["created_at"])).timestamp()
        expires = datetime.fromisoformat(str(entry["expires_at"])).timestamp()
        by = str(entry.get("approved_by", "user"))
        kind = str(entry.get("kind", "command"))
    except (KeyError, TypeError, ValueError):
        return None
    digest = content_hash(kind, command, workspace)
    if entry.get("content_hash") not in (None, digest):
        return None
    return AlwaysRule(command, digest, workspace, created, expires, by, kind)
