"""Every sandbox job starts clean: nothing one job leaves in /tmp, HOME or /dev/shm reaches
the next one (real engine). A planted `usercustomize.py` could otherwise forge test results.
"""

from __future__ import annotations

import pytest

from sandbox import open_sandbox
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from tests.repo_samples import CALC_DIFF, tree_digest

pytestmark = pytest.mark.docker

PLANT = (
    "import os, site, sys\n"
    "payload = 'import sys; sys.stderr.write(\"PLANTED CODE RAN\\\\n\")\\n'\n"
    "user_site = site.getusersitepackages()\n"
    "os.makedirs(user_site, exist_ok=True)\n"
    "for target in ('/tmp/usercustomize.py', os.path.join(user_site, 'usercustomize.py'),\n"
    "               os.path.join(os.environ['HOME'], 'planted'), '/dev/shm/planted'):\n"
    "    open(target, 'w').write(payload)\n"
    "print('planted', user_site)\n"
)
LOOK = (
    "import os, site\n"
    "for target in ('/tmp/usercustomize.py', os.path.join(site.getusersitepackages(),\n"
    "               'usercustomize.py'), os.path.join(os.environ['HOME'], 'planted'),\n"
    "               '/dev/shm/planted'):\n"
    "    print(target, os.path.exists(target))\n"
    "print('HOME', os.environ['HOME'], os.path.isdir(os.environ['HOME']))\n"
)


@pytest.fixture
def box(tmp_repo, sandbox_image):
    before = tree_digest(tmp_repo)
    sandbox = open_sandbox(tmp_repo, SandboxConfig(backend="docker", timeout_s=30))
    assert isinstance(sandbox, DockerSandbox)
    yield sandbox
    sandbox.close()
    assert tree_digest(tmp_repo) == before


def test_files_planted_by_one_job_are_gone_for_the_next(box):
    planted = box.run(["python3", "-c", PLANT])
    assert planted.ok, planted.stderr
    assert "planted /tmp/home/" in planted.stdout
    container = box.container_id
    later = box.run(["python3", "-c", LOOK])
    assert box.container_id == container  # the same warm container...
    assert later.ok, later.stderr
    assert "PLANTED CODE RAN" not in later.stderr  # ...but the planted module did not load
    assert " True" not in later.stdout.replace("HOME /tmp/home True", "")
    assert "HOME /tmp/home True" in later.stdout


def test_a_planted_module_does_not_reach_the_next_patch_check(box):
    assert box.run(["python3", "-c", PLANT]).ok
    check = box.check_patch(CALC_DIFF, ["python3", "-m", "pytest", "-q"])
    assert check.check_status == "passed", check.output
    assert "PLANTED CODE RAN" not in check.output
    check = box.check_patch(CALC_DIFF, ["python3", "-c", "import sys; print(sys.version)"])
    assert "PLANTED CODE RAN" not in check.output


def test_what_a_check_writes_in_its_work_tree_is_gone_for_the_next_job(box):
    wrote = box.run(["sh", "-c", "echo junk > pkg/junk.py && sed -i s/a/z/ pkg/calc.py"])
    assert wrote.ok, wrote.stderr
    after = box.run(["sh", "-c", "ls pkg; cat pkg/calc.py"])
    assert "junk.py" not in after.stdout
    assert "return a + b" in after.stdout
    assert box.run(["sh", "-c", "rm -r pkg tests; ls"]).ok
    assert box.run(["cat", "pkg/calc.py"]).stdout == "def add(a, b):\n    return a + b\n"
