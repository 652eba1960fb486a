"""An ACP client's MCP servers become untrusted MCP specs (stdio only)."""

from __future__ import annotations

from lsp_agent.acp.session import client_mcp_specs


def test_stdio_servers_become_untrusted_specs_and_others_are_left_out() -> None:
    specs = client_mcp_specs(
        [
            {
                "name": "my files",
                "command": "npx",
                "args": ["-y", "server-fs", "/w"],
                "env": [{"name": "TOKEN", "value": "t"}],
            },
            {"type": "http", "name": "remote", "url": "https://example.invalid/mcp"},
        ]
    )
    assert len(specs) == 1
    [spec] = specs
    assert spec.name == "my_files" and spec.command == "npx"
    assert spec.args == ("-y", "server-fs", "/w") and dict(spec.env) == {"TOKEN": "t"}
    assert spec.trust is False
