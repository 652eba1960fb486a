"""Abuse suite on the real engine: hostile code stays in the container; the host is untouched.

Every test runs under `host_untouched`: the repository's bytes (including .git) are the
same afterwards and no marker file appeared on the host.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.repo_samples import CALC_DIFF, tree_digest

pytestmark = pytest.mark.docker

MARKER = Path("/tmp") / f"lsp-agent-pwned-{uuid.uuid4().hex}"


OWNER = 1000  # a non-root user, as on a workstation (CI runs as root)


def make_private(repo: Path, uid: int = OWNER) -> Path:
    """`repo` owned by `uid`, mode 0700 / 0600: readable by its owner only (umask 077)."""
    for path in (repo, *repo.rglob("*")):
        os.lchown(path, uid, uid)
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)
    return repo


@pytest.fixture(params=["root-owned", "0700 of a user"])
def repo_kind(request) -> str:
    return str(request.param)


@pytest.fixture
def host_untouched(tmp_repo, repo_kind):
    if repo_kind != "root-owned":
        make_private(tmp_repo)
    before = tree_digest(tmp_repo)
    names = sorted(p.name for p in tmp_repo.iterdir())
    yield tmp_repo
    assert tree_digest(tmp_repo) == before, "the host repository changed"
    assert sorted(p.name for p in tmp_repo.iterdir()) == names
    assert not MARKER.exists(), "hostile code wrote on the host"
    assert not (tmp_repo / "pwned").exists()


@pytest.fixture
def box(host_untouched, sandbox_image):
    sandbox = open_sandbox(host_untouched, SandboxConfig(backend="docker", timeout_s=15))
    assert isinstance(sandbox, DockerSandbox)
    yield sandbox
    sandbox.close()


def python(code: str) -> list[str]:
    return ["python3", "-c", code]


# The shell's fork bomb; the shell itself then waits, with builtins only (with the bomb at
# the limit an external `sleep` could not start and the shell would stop, "Cannot fork"),
# until the pids cgroup (v2 or v1) has said no once more, and says it survived.
CLASSIC_BOMB = """
events=/sys/fs/cgroup/pids.events
[ -r $events ] || events=/sys/fs/cgroup/pids/pids.events
read _ before < $events
f(){ f|f& }; f
i=0
while [ $i -lt 100000 ]; do
  read _ now < $events
  if [ "$now" -gt "$before" ]; then echo survived; exit 0; fi
  i=$((i+1))
done
echo "the pids limit was never hit"
"""


def test_fork_bomb_is_contained_by_the_pids_limit(box):
    code = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(60)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print(n, exc.errno)\n"
    )
    result = box.run(python(code))
    count, errno = result.stdout.split()
    assert int(count) < 100
    assert errno == "11"  # EAGAIN: the pids cgroup said no
    classic = box.run(["sh", "-c", CLASSIC_BOMB])
    assert "survived" in classic.stdout
    assert "fork" in classic.stderr.lower()
    assert box.run(["true"]).ok  # the sandbox is usable afterwards


def test_memory_bomb_is_oom_killed(box):
    bomb = box.run(python("x = []\nwhile True:\n    x.append(b'x' * 10_000_000)"))
    assert bomb.exit_code == 137
    assert bomb.timed_out is False
    assert "out of memory" in bomb.stderr
    counters = box.run(
        ["sh", "-c", "cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events"]
    ).stdout
    oom_kills = [int(line.split()[1]) for line in counters.splitlines() if "oom_kill " in line]
    assert oom_kills and oom_kills[0] >= 1
    assert box.run(["true"]).ok  # only the bomb died, not the sandbox


def test_network_egress_fails(box):
    code = (
        "import socket\n"
        "for host, port in [('1.1.1.1', 53), ('172.17.0.1', 2375), ('deb.debian.org', 80)]:\n"
        "    try:\n"
        "        socket.create_connection((host, port), timeout=3).close()\n"
        "        print('CONNECTED', host)\n"
        "    except OSError as exc:\n"
        "        print('blocked', host, type(exc).__name__)\n"
    )
    out = box.run(python(code)).stdout
    assert "CONNECTED" not in out
    assert out.count("blocked") == 3


@pytest.mark.parametrize("target", ["/evil", "/etc/evil", "/usr/bin/evil", "/sandbox/pwned"])
def test_writes_outside_tmp_fail(box, target):
    result = box.run(["sh", "-c", f"echo x > {target}"])
    assert result.exit_code != 0
    assert "Read-only file system" in result.stderr


def test_the_work_tree_changes_but_never_the_repository(box):
    # The job's tree is a copy-on-write view: it may wreck it; the host repository is
    # byte-identical afterwards (host_untouched) and the next job gets a fresh view.
    result = box.run(
        ["sh", "-c", "rm -f pkg/calc.py; chmod 777 .; mv tests t2; echo x > pwned; ls"]
    )
    assert result.stdout.split() == ["pkg", "pwned", "t2"]
    assert box.run(["ls"]).stdout.split() == ["pkg", "tests"]


def test_proc_sys_writes_fail(box):
    code = (
        "for path in ['/proc/sys/vm/drop_caches', '/proc/sys/kernel/core_pattern',\n"
        "             '/proc/sys/net/ipv4/ip_forward', '/proc/sysrq-trigger']:\n"
        "    try:\n"
        "        open(path, 'w').write('1')\n"
        "        print('WROTE', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.errno)\n"
    )
    out = box.run(python(code)).stdout
    assert "WROTE" not in out
    assert out.count("refused") == 4


def test_no_capabilities_and_no_new_privileges(box):
    status = box.run(["cat", "/proc/self/status"]).stdout
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(fields[name], 16) == 0, name
    assert fields["NoNewPrivs"].strip() == "1"
    assert fields["Seccomp"].strip() == "2"
    chown = box.run(["chown", "0:0", "/tmp"])
    assert chown.exit_code != 0


def test_malicious_conftest_runs_only_inside_the_container(box, host_untouched):
    payload = (
        "import os, socket\n"
        "notes = [f'uid={os.getuid()}', f'host={socket.gethostname()}']\n"
        f"for target in [{str(MARKER)!r}, '/workspace/pwned', {str(host_untouched / 'pwned')!r}]:\n"
        "    try:\n"
        "        open(target, 'w').write('pwned')\n"
        "        notes.append('wrote ' + target)\n"
        "    except OSError as exc:\n"
        "        notes.append(f'refused {target} {exc.errno}')\n"
        "print('PWN ' + ' '.join(notes))\n"
    )
    lines = payload.splitlines()
    diff = f"--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(
        f"+{line}\n" for line in lines
    )
    result = box.check_patch(diff, ["python", "-m", "pytest", "-q", "-s"])
    assert result.applies is True
    uid = os.stat(host_untouched).st_uid or 65534  # the owner's uid; nobody's for root's
    assert f"PWN uid={uid} host=sandbox" in result.output
    assert f"wrote {MARKER}" in result.output  # it wrote its marker: in the container's /tmp
    assert "refused /workspace/pwned" in result.output
    assert not MARKER.exists()  # ...and not on the host (checked again by host_untouched)


def test_infinite_loop_is_killed_at_the_timeout_and_the_container_replaced(box):
    import docker

    first = box.run(["true"])
    assert first.ok
    old = box.container_id
    started = time.monotonic()
    loop = box.run(python("while True: pass"), timeout_s=2)
    elapsed = time.monotonic() - started
    assert loop.timed_out is True
    assert 2 <= elapsed < 10
    assert "longer than 2 s" in loop.stderr
    client = docker.from_env()
    with pytest.raises(docker.errors.NotFound):
        client.api.inspect_container(old)
    after = box.run(["echo", "fresh"])
    assert after.stdout == "fresh\n"
    assert box.container_id not in (None, old)
    assert box.containers_started == 2


def test_looping_check_command_times_out(host_untouched, sandbox_image):
    settings = SandboxConfig(backend="docker", timeout_s=2)
    with open_sandbox(host_untouched, settings) as quick:
        result = quick.check_patch(
            CALC_DIFF,
            ["sh", "-c", "while :; do :; done"],
        )
    assert result.applies is True
    assert result.timed_out is True
    assert result.check_status == "timed out"


def test_escaped_background_processes_are_swept(box):
    box.run(["sh", "-c", "setsid sleep 600 & echo started"])
    ps = box.run(["sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"]).stdout
    assert "sleep 600" not in ps
