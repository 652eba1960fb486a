"""Code mode's escapes, attempted for real: model code run through `lsp-agent run` with
AGENT_TYPE=code on the real Docker engine.

Each script's first step is hostile code, its next step a final answer. Every test checks
that the effect did not happen on the host (no marker file, the repository's bytes the same),
that the step still ran (its output names the container, or its error says why not) and
that the run went on to its final answer with the host process alive.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.e2e.code_mode import FINAL, code_turn, run_code_mode
from tests.repo_samples import tree_digest

pytestmark = pytest.mark.docker


@pytest.fixture
def marker() -> Path:
    return Path("/tmp") / f"lsp-agent-code-pwned-{uuid.uuid4().hex}"


@pytest.fixture
def repo(tmp_repo: Path, sandbox_image: str):
    """The repository; afterwards, its bytes (with .git) must be what they were."""
    before = tree_digest(tmp_repo)
    yield tmp_repo
    assert tree_digest(tmp_repo) == before, "model code changed the repository"
    assert not (tmp_repo / "pwned").exists()


def escape(repo: Path, tmp_path: Path, marker: Path, source: str, *more: dict) -> str:
    """Run `source` as the first code step; the run must end answered, the host untouched."""
    turns = [code_turn(source), *more, FINAL]
    out = run_code_mode(repo, turns, tmp_path)
    text = out.stdout + out.stderr
    print(out.stdout)  # shown by pytest -rP
    assert out.returncode == 0, text
    assert "answered after" in out.stdout and "The run went on" in out.stdout, text
    assert "Code mode is unavailable" not in text, text
    assert not marker.exists(), "model code wrote on the host"
    return out.stdout


def test_os_system_runs_in_the_container_not_on_the_host(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        f"import os\n"
        f"rc = os.system('touch {marker} {repo}/pwned; echo pwned >> {repo}/pkg/calc.py')\n"
        f"print('container', os.uname().nodename, os.path.exists('{marker}'), "
        f"os.path.exists('{repo}'))",
    )
    # The marker was made in the container's own /tmp; the repository is not there at all.
    assert "container sandbox True False" in stdout, stdout


def test_dunder_import_and_subprocess_stay_in_the_container(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        f"sp = __import__('subprocess')\n"
        f"sp.run(['sh', '-c', 'touch {marker}; id -u > /tmp/uid'])\n"
        f"print('uid', open('/tmp/uid').read().strip())",
    )
    assert "uid 65534" in stdout, stdout  # nobody, never root


def test_open_on_a_repository_path_finds_nothing(repo, tmp_path, marker):
    stdout = escape(repo, tmp_path, marker, f"print(open('{repo}/pkg/calc.py').read())")
    assert "FileNotFoundError" in stdout, stdout
    stdout = escape(repo, tmp_path, marker, "print(open('pkg/calc.py').read())")
    assert "FileNotFoundError" in stdout, stdout


def test_open_on_a_host_path_finds_nothing(repo, tmp_path, marker):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("the host's secret\n")
    stdout = escape(repo, tmp_path, marker, f"print(open('{secret}').read())")
    assert "FileNotFoundError" in stdout and "the host's secret" not in stdout, stdout


def test_a_subclass_walk_reaches_only_the_container(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "wrap = [c for c in ().__class__.__base__.__subclasses__() "
        "if c.__name__ == '_wrap_close'][0]\n"
        "system = wrap.__init__.__globals__['system']\n"
        f"system('touch {marker}; echo pwned > {repo}/pkg/calc.py')\n"
        "warn = [c for c in ().__class__.__base__.__subclasses__() "
        "if c.__name__ == 'catch_warnings'][0]\n"
        "b = warn()._module.__builtins__\n"
        f"print('walked', b['__import__']('os').path.exists('{marker}'))",
    )
    assert "walked True" in stdout, stdout


def test_getattr_tricks_reach_only_the_container_or_the_wrapped_tools(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "g = getattr(read_file, '__globals__')\n"
        f"getattr(g['os'], 'sys' + 'tem')('touch {marker}')\n"
        "run = getattr(__builtins__, 'ex' + 'ec')\n"
        f"run(\"open('/tmp/evil', 'w').write('x')\")\n"
        "print('runner pid', g['os'].getpid(), 'evil' in g['os'].listdir('/tmp'))",
    )
    assert "runner pid" in stdout and "True" in stdout, stdout
    # A tool called by name goes through the host's wrapper: paths outside are refused.
    stdout = escape(repo, tmp_path, marker, "print(read_file(path='../../../../etc/passwd'))")
    assert "ToolCallError" in stdout and "root:x:0" not in stdout, stdout


def test_writing_repository_files_directly_changes_nothing(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "import os\n"
        "os.makedirs('pkg', exist_ok=True)\n"
        "open('pkg/calc.py', 'w').write('pwned')\n"
        "for target in ('/workspace/pkg/calc.py', '/pkg/calc.py'):\n"
        "    try:\n"
        "        open(target, 'w').write('pwned')\n"
        "    except OSError as exc:\n"
        "        print('refused', type(exc).__name__)\n"
        "print('wrote only', os.getcwd() + '/pkg/calc.py')",
    )
    assert "wrote only /tmp/pkg/calc.py" in stdout, stdout


def test_an_endless_loop_is_stopped_and_loses_its_variables(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "x = 41\nprint('x is', x)",
        code_turn("while True:\n    pass"),
        code_turn("print(x + 1)"),
    )
    assert "ran longer than 5 s" in stdout, stdout
    assert "NameError" in stdout, stdout  # a fresh container: x is gone


def test_a_memory_bomb_fails_its_step_only(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "kept = 'still here'\nhog = []\nwhile True:\n    hog.append(bytearray(64 * 1024 * 1024))",
        code_turn("del hog\nprint(kept)"),
    )
    assert "MemoryError" in stdout or "container ended" in stdout, stdout
    if "MemoryError" in stdout:  # the runner lived on, and so did its variables
        assert "still here" in stdout, stdout


def test_a_huge_print_is_cut_and_the_run_goes_on(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "for i in range(300_000):\n    print('line', i)\nprint('x' * 5_000_000)",
    )
    assert len(stdout) < 20_000, len(stdout)


def test_code_that_kills_its_runner_loses_only_its_container(repo, tmp_path, marker):
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "x = 1\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
        code_turn("print('fresh container', 'x' in globals())"),
    )
    assert "container ended" in stdout and "variables are lost" in stdout, stdout
    assert "fresh container False" in stdout, stdout


def test_a_forged_line_nested_too_deep_does_not_break_the_host(repo, tmp_path, marker):
    """Issue 28, low: a protocol line nested 100,000 deep raised RecursionError on the host
    and the job failed; it is skipped like any line that is not a message."""
    stdout = escape(
        repo,
        tmp_path,
        marker,
        "import os\n"
        "deep = '@@lsp-agent-code@@ ' + '[' * 100000 + ']' * 100000 + '\\n'\n"
        'call = (\'@@lsp-agent-code@@ {"call": "read_file", "id": 99, "arguments": \'\n'
        "        '{\"path\": ' + '[' * 900 + ']' * 900 + '}}\\n')\n"
        "for fd in map(int, os.listdir('/proc/self/fd')):\n"
        "    if fd > 2:\n"
        "        try:\n"
        "            os.write(fd, deep.encode()); os.write(fd, call.encode())\n"
        "        except OSError:\n"
        "            pass\n"
        "print('forged lines written')",
    )
    assert "forged lines written" in stdout, stdout
