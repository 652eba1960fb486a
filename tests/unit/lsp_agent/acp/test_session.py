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


def test_the_agent_panel_sees_the_facts_after_the_answer() -> None:
    from lsp_agent.acp.session import result_message
    from lsp_agent.agent.job_types import JobResult

    claim = JobResult(
        "answered",
        answer="I fixed the bug.",
        facts=["No file was changed: no patch was applied."],
    )
    assert result_message(claim) == (
        "I fixed the bug.\n\nNo file was changed: no patch was applied."
    )
    stopped = JobResult(
        "max_steps", steps=3, error="step limit", facts=["p1 (a.py) was proposed, not applied."]
    )
    assert result_message(stopped).endswith("\n\np1 (a.py) was proposed, not applied.")
