"""Host child processes: a neutral directory, the user's environment with clean path lists,
programs resolved on the clean PATH (safety/host_process.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from safety import host_process
from safety.host_process import ProgramNotFound, clean_path_list, resolve_program


def test_clean_path_list_drops_empty_relative_and_untrusted_entries(tmp_path: Path) -> None:
    inside = tmp_path / "repo" / "bin"
    inside.mkdir(parents=True)
    value = f"bin:.::./x:/usr/bin:{inside}:/usr/bin:/usr/local/bin"
    assert clean_path_list(value, [str(tmp_path / "repo")]) == "/usr/bin:/usr/local/bin"


def test_clean_path_list_resolves_symlinks_into_a_workspace(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True)
    (tmp_path / "link").symlink_to(repo / "bin")
    assert clean_path_list(f"{tmp_path / 'link'}:/bin", [str(repo)]) == "/bin"


def test_ld_preload_entries_split_on_spaces_and_colons(tmp_path: Path) -> None:
    env = host_process.vetted_environ(
        extra={"LD_PRELOAD": "./x.so /lib/ok.so:y.so", "PYTHONPATH": ":lib"}
    )
    assert env["LD_PRELOAD"] == "/lib/ok.so"
    assert "PYTHONPATH" not in env  # nothing absolute was left


def test_vetted_environ_leaves_out_entries_inside_a_noted_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "ws"
    (repo / "node_modules" / ".bin").mkdir(parents=True)
    host_process.note_workspace(repo)
    monkeypatch.setenv("PATH", f"{repo}/node_modules/.bin:/usr/bin")
    assert host_process.vetted_environ()["PATH"] == "/usr/bin"
    # what the caller names itself is its choice; only relative entries are left out
    given = host_process.vetted_environ(extra={"PATH": f"bin:{repo}/node_modules/.bin"})
    assert given["PATH"] == f"{repo}/node_modules/.bin"


def test_minimal_environment_keeps_the_basic_keys_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-children")
    env = host_process.vetted_environ(minimal=True, extra={"TOKEN": "given"})
    assert "OPENAI_API_KEY" not in env and env["TOKEN"] == "given"
    assert set(env) <= {*host_process.MINIMAL_KEYS, "TOKEN"}


def test_a_relative_program_with_a_slash_is_refused() -> None:
    with pytest.raises(ProgramNotFound, match="relative path"):
        resolve_program("bin/tool", {"PATH": "/usr/bin"})
    assert resolve_program(sys.executable, {"PATH": ""}) == sys.executable


def test_programs_are_found_on_the_clean_path_only(tmp_path: Path) -> None:
    program = tmp_path / "only-here"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert resolve_program("only-here", {"PATH": str(tmp_path)}) == str(program)
    with pytest.raises(ProgramNotFound, match="not on PATH"):
        resolve_program("only-here", {"PATH": "/usr/bin"})


def test_run_starts_in_a_fresh_empty_directory_that_is_removed() -> None:
    out = host_process.run(
        [sys.executable, "-c", "import os; print(os.getcwd()); print(os.listdir('.'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    where, listing = out.stdout.splitlines()
    assert listing == "[]" and Path(where).name.startswith("lsp-agent-cwd-")
    assert not Path(where).exists()


def test_run_in_a_named_directory_uses_it(tmp_path: Path) -> None:
    out = host_process.run(
        [sys.executable, "-c", "import os; print(os.getcwd())"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(out.stdout.strip()) == tmp_path


def test_a_missing_program_raises_file_not_found() -> None:
    with pytest.raises(FileNotFoundError):
        host_process.run(["no-such-program-here"], capture_output=True)


def test_the_child_gets_the_user_environment_not_a_later_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from safety import host_env

    monkeypatch.setitem(host_env._taken, "environ", {"PATH": os.environ["PATH"], "A": "user"})
    monkeypatch.setenv("B", "loaded by a library")
    out = host_process.run(
        [sys.executable, "-c", "import os; print(os.environ.get('A'), os.environ.get('B'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["user", "None"]


def test_popen_needs_a_directory(tmp_path: Path) -> None:
    proc = host_process.popen(
        [sys.executable, "-c", "print('ok')"], cwd=tmp_path, stdout=subprocess.PIPE
    )
    assert proc.communicate()[0].strip() == b"ok"


ROOT = Path(__file__).resolve().parents[3]
LAUNCH = re.compile(
    r"\bsubprocess\.(run|Popen|call|check_call|check_output|getoutput|getstatusoutput)\("
    r"|\bos\.(system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork)\("
    r"|\b(create_subprocess_exec|create_subprocess_shell|open_process|stdio_client)\("
    r"|\bstart_io\(\s*launch\b|\bstart_io\(\s*[a-z_]+\[0\]"
)
# Modules that may start processes themselves, and why.
ALLOWED = {
    "safety/host_process.py": "the one place",
    # the container's side (stdlib only, sent into the container); the local backend runs
    # driver_steps in-process with the job's vetted environment (sandbox/local_backend.py)
    "sandbox/checks/driver.py": "in the container",
    "sandbox/checks/driver_steps.py": "in the container, or the local backend's vetted job",
    "sandbox/code/runner.py": "in the container",
    # bench edits' peers: the driver and the venv maker run in the peer's container
    "lsp_agent/benchmarks/edits/peers/peer_driver.py": "in the container",
    "lsp_agent/benchmarks/edits/peers/environment.py": "a script sent into the container",
    # runs as the MCP server's parent, itself started from a vetted launch (connection.py)
    "tools/mcp/supervisor.py": "the MCP server's supervisor",
}
# Launchers that start the process themselves, from a `host_process.launch` they made.
VETTED_LAUNCHERS = {
    "tools/mcp/connection.py",  # the MCP SDK's stdio_client
    "lsp_agent/demo/headless_client.py",  # pygls' start_io
    "lsp_agent/cli/phoenix_server.py",  # os.execve: become Phoenix
}


def test_no_module_starts_a_host_process_but_through_host_process() -> None:
    offenders = []
    for package in ("lsp_agent", "tools", "sandbox", "safety"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if relative in ALLOWED or not LAUNCH.search(text):
                continue
            if relative in VETTED_LAUNCHERS and "host_process.launch(" in text:
                continue
            offenders.append(relative)
    assert offenders == [], "start host processes with safety.host_process: " + str(offenders)
