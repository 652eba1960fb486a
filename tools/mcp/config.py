"""The MCP configuration file: `{"mcpServers": {"NAME": {"command", "args", "env", "trust",
"tools"}}}`, the shape most MCP clients share.

Only the user's scope names this file (`MCP_CONFIG`); a workspace cannot add servers.
`trust: true` lets the server's tools run without a question; `tools` is an allow-list of
the tool names offered to the model (default: all, within the toolbox's cap).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class McpConfigError(ValueError):
    """The MCP configuration cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class McpServerSpec:
    """One MCP server as the user configured it."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    trust: bool = False
    tools: tuple[str, ...] | None = None  # allow-list; None = every tool

    def allows(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _server(name: str, entry: Any, where: str) -> McpServerSpec:
    if not _NAME.match(name):
        raise McpConfigError(f"{where}: server names use letters, digits, '_' and '-' only")
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where} must be an object with at least `command`")
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise McpConfigError(f"{where}.command must be a non-empty string")
    env = entry.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise McpConfigError(f"{where}.env must be an object of strings")
    trust = entry.get("trust", False)
    if not isinstance(trust, bool):
        raise McpConfigError(f"{where}.trust must be true or false")
    tools = entry.get("tools")
    return McpServerSpec(
        name=name,
        command=command,
        args=_strings(entry.get("args", []), f"{where}.args"),
        env=dict(env),
        trust=trust,
        tools=None if tools is None else _strings(tools, f"{where}.tools"),
    )


def parse_mcp_config(data: Any, source: str = "MCP_CONFIG") -> list[McpServerSpec]:
    """The servers of an already-decoded configuration."""
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpConfigError(f'{source}: expected {{"mcpServers": {{"NAME": {{...}}}}}}')
    return [_server(name, entry, f"{source}: mcpServers.{name}") for name, entry in servers.items()]


def load_mcp_config(path: str | Path) -> list[McpServerSpec]:
    """The servers of the file at `path` (empty path: no servers)."""
    if not str(path).strip():
        return []
    file = Path(path).expanduser()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise McpConfigError(f"MCP_CONFIG={path}: cannot read it ({exc.strerror})") from exc
    except ValueError as exc:
        raise McpConfigError(f"MCP_CONFIG={path}: not valid JSON ({exc})") from exc
    return parse_mcp_config(data, f"MCP_CONFIG={path}")
