"""MCP tools against a real FastMCP server over stdio: listing, calls, schema checks,
approval, a hanging and a crashing server, and no process left behind."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from safety.approvals import ApprovalKind
from tests import REPO_ROOT
from tests.tool_context import tool_context
from tools.instrumented import InstrumentedTool
from tools.mcp.config import McpConfigError, McpServerSpec, load_mcp_config, parse_mcp_config
from tools.mcp.connection import McpConnection, McpServerError
from tools.mcp.mcp_tool import agent_inputs, agent_tool_name
from tools.mcp.toolbox import McpToolbox
from tools.registry import TOOL_NAMES
from tools.workspace import DiskWorkspace

SERVER = [sys.executable, "-m", "tests.mcp_servers.flaky_server"]
ROOT = REPO_ROOT


def spec(**overrides) -> McpServerSpec:
    values = {"name": "t", "command": SERVER[0], "args": tuple(SERVER[1:]), "trust": True}
    values["env"] = {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    values.update(overrides)
    return McpServerSpec(**values)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return (
        Path(f"/proc/{pid}").exists()
        and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    )


@pytest.fixture
def connection(tmp_path: Path):
    conn = McpConnection(spec(), tmp_path, call_timeout_s=2)
    conn.start()
    yield conn
    conn.close()


def test_config_shape_and_errors(tmp_path: Path) -> None:
    good = {"mcpServers": {"fs": {"command": "npx", "args": ["x"], "tools": ["read"]}}}
    [server] = parse_mcp_config(good)
    assert server.name == "fs" and server.args == ("x",) and not server.trust
    assert server.allows("read") and not server.allows("write")
    for bad, words in (
        ({}, "mcpServers"),
        ({"mcpServers": {"a b": {"command": "x"}}}, "server names"),
        ({"mcpServers": {"a": {"args": []}}}, "command must be"),
        ({"mcpServers": {"a": {"command": "x", "trust": "yes"}}}, "trust must be"),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "env must be"),
    ):
        with pytest.raises(McpConfigError, match=words):
            parse_mcp_config(bad)
    with pytest.raises(McpConfigError, match="cannot read"):
        load_mcp_config(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(McpConfigError, match="not valid JSON"):
        load_mcp_config(tmp_path / "bad.json")
    assert load_mcp_config("") == []


def test_names_cannot_shadow_builtins_and_inputs_follow_the_schema() -> None:
    assert agent_tool_name("my-fs", "read.file") == "mcp_my_fs_read_file"
    assert not any(name.startswith("mcp_") for name in TOOL_NAMES)
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}},
        "required": ["a"],
    }
    assert agent_inputs(schema) == {
        "a": {"type": "integer", "description": "a"},
        "b": {"type": "string", "description": "b", "nullable": True},
    }


def test_lists_and_calls_tools_of_a_real_server(connection: McpConnection) -> None:
    names = {tool.name for tool in connection.tools}
    assert {"add", "pid", "hang", "crash"} <= names
    result = connection.call("add", {"a": 2, "b": 40})
    assert result.content[0].text == "42"


def test_the_server_gets_only_the_environment_it_was_given(connection: McpConnection) -> None:
    os.environ["LSP_AGENT_TEST_SECRET"] = "s3cret"
    try:
        assert connection.call("secret_env", {}).content[0].text == "absent"
    finally:
        del os.environ["LSP_AGENT_TEST_SECRET"]


def test_a_hanging_call_times_out(connection: McpConnection) -> None:
    started = time.monotonic()
    with pytest.raises(McpServerError, match="did not answer hang within 2 s"):
        connection.call("hang", {"seconds": 30})
    assert time.monotonic() - started < 10


def test_a_crash_is_reported_and_later_calls_fail_fast(connection: McpConnection) -> None:
    with pytest.raises(McpServerError, match="'t' exited while running crash"):
        connection.call("crash", {})
    with pytest.raises(McpServerError, match="not running"):
        connection.call("add", {"a": 1, "b": 1})


def test_close_leaves_no_process(tmp_path: Path) -> None:
    conn = McpConnection(spec(), tmp_path)
    conn.start()
    pid = int(conn.call("pid", {}).content[0].text)
    assert alive(pid)
    conn.close()
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid)


def test_a_server_that_does_not_start_is_left_out(tmp_path: Path) -> None:
    broken = spec(name="broken", command=sys.executable, args=("-c", "import sys; sys.exit(2)"))
    with McpToolbox([broken, spec()], tmp_path) as box:
        tools = box.tools(tool_context(DiskWorkspace(tmp_path)))
        assert {t.name for t in tools} >= {"mcp_t_add", "mcp_t_pid"}
        assert len(box.problems) == 1 and "'broken' did not start" in box.problems[0]


def test_allow_list_and_cap_bound_what_is_offered(tmp_path: Path) -> None:
    context = tool_context(DiskWorkspace(tmp_path))
    with McpToolbox([spec(tools=("add", "pid"))], tmp_path) as box:
        assert sorted(t.name for t in box.tools(context)) == ["mcp_t_add", "mcp_t_pid"]
    with McpToolbox([spec()], tmp_path, max_tools=2) as box:
        assert len(box.tools(context)) == 2


def error_of(observation: str) -> dict:
    """The error object at the start of an observation."""
    return json.JSONDecoder().raw_decode(observation)[0]


class Recorder:
    def __init__(self, approve: bool) -> None:
        self.approve, self.asked = approve, []

    def ask(self, ask):
        from safety.approvals import Outcome, Status

        self.asked.append(ask)
        status = Status.APPROVED if self.approve else Status.REJECTED
        return Outcome("a1", status, by="test", reason="", at=time.time())


def wrapped(tmp_path: Path, approvals, **overrides) -> tuple[dict, McpToolbox]:
    context = tool_context(DiskWorkspace(tmp_path), approvals=approvals)
    box = McpToolbox([spec(**overrides)], tmp_path)
    tools = {t.name: InstrumentedTool(t, context) for t in box.tools(context)}
    return tools, box


def test_untrusted_server_calls_ask_naming_server_tool_and_arguments(tmp_path: Path) -> None:
    gate = Recorder(approve=False)
    tools, box = wrapped(tmp_path, gate, trust=False)
    with box:
        out = json.loads(tools["mcp_t_add"].forward(a=1, b=2))
    assert out["error"] == "approval_rejected"
    [ask] = gate.asked
    assert ask.kind is ApprovalKind.MCP_CALL
    assert "`add` of MCP server `t`" in ask.summary and '"a": 1' in ask.summary


def test_trusted_calls_run_and_bad_arguments_are_observations(tmp_path: Path) -> None:
    gate = Recorder(approve=False)
    tools, box = wrapped(tmp_path, gate)
    with box:
        assert tools["mcp_t_add"].forward(a=20, b=22) == "42"
        bad = error_of(tools["mcp_t_add"].forward(a="x", b=2))
        missing = error_of(tools["mcp_t_add"].forward(a=1))  # (a loop hint may follow)
        off_schema = error_of(tools["mcp_t_pick"].forward(color="blue"))
        assert tools["mcp_t_pick"].forward(color="red") == "red"
    assert gate.asked == []
    assert bad["error"] == "invalid_argument" and bad["recovery_suggestion"]
    assert missing["error"] == "invalid_argument" and "'b'" in missing["message"]
    assert off_schema["error"] == "invalid_argument"
    assert "color: 'blue' is not one of ['red', 'green']" in off_schema["message"]


def test_tool_names_that_collide_after_renaming_get_a_number() -> None:
    from tools.mcp.mcp_tool import MAX_NAME, agent_tool_name

    first = agent_tool_name("t-1", "add")
    assert first == "mcp_t_1_add"
    assert agent_tool_name("t_1", "add", {first}) == "mcp_t_1_add_2"
    assert agent_tool_name("t_1", "add", {first, "mcp_t_1_add_2"}) == "mcp_t_1_add_3"
    long = agent_tool_name("s", "x" * 80)
    numbered = agent_tool_name("s", "x" * 80, {long})
    assert len(long) == len(numbered) == MAX_NAME and numbered.endswith("_2")
