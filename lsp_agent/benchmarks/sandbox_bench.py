"""`lsp-agent bench sandbox`: warm checks vs a cold `docker run`, small vs large repository.

Every check does the same job (apply a one-line diff in a fresh copy-on-write view of the
repository, run `python -m pytest -q`): cold in a fresh hardened container (created,
started, waited for, removed), warm in the session's container. Warm checks run at
least as many times as a container has fresh trees (sandbox/repo_view.py), so the mean
includes one container replacement. Targets: warm <= 0.35 x cold on the small
repository; a warm check on the large one (20,000 files, 300 MB, more than the
container's 256 MiB /tmp) <= 2 x the small one. Both repositories name their tests in
pytest.ini (`testpaths`), as large projects do: without it pytest's own collection walks
all 20,000 files (seconds at half a CPU), which is the test runner's cost, not the
sandbox's.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from lsp_agent.settings import load_settings
from sandbox.config import SandboxConfig
from sandbox.docker_backend import DockerSandbox
from sandbox.docker_engine import DockerEngine
from sandbox.engine import EngineError
from sandbox.image import image_tag
from sandbox.repo_view import TREES

TARGET_RATIO = 0.35
TARGET_SIZE_RATIO = 2.0
LARGE_FILES = 20_000
LARGE_MB = 300
DIFF = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return b + a
"""


def make_repo(root: Path) -> Path:
    """A small Python package with a passing test."""
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    # Where the tests are, as a large project says (else pytest itself walks every file).
    (repo / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    (repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests" / "test_calc.py").write_text(
        "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    for path in (repo, *repo.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return repo


def make_large_repo(root: Path, files: int = LARGE_FILES, megabytes: int = LARGE_MB) -> Path:
    """The small repository plus `files` small modules and `megabytes` MB of data files."""
    repo = make_repo(root)
    for index in range(files):
        package = repo / "lib" / f"p{index // 500}"
        if index % 500 == 0:
            package.mkdir(parents=True)
            (package / "__init__.py").write_text("")
        (package / f"m{index}.py").write_text(f"VALUE = {index}\n")
    (repo / "data").mkdir()
    block = b"\0" * (1024 * 1024)
    for index in range(0, megabytes, 50):
        with open(repo / "data" / f"blob{index}.bin", "wb") as handle:
            for _ in range(min(50, megabytes - index)):
                handle.write(block)
    return repo


def measure(runs: int = 5, *, image: str | None = None) -> dict[str, float]:
    """Median seconds of cold and warm checks (small and large repository), and ratios.

    Raises RuntimeError (saying what to do) when Docker or the image is missing.
    """
    runs = max(1, runs)
    warm_runs = max(runs, TREES)
    config = dataclasses.replace(
        load_settings()[0].sandbox_config(), backend="docker", timeout_s=60.0
    )
    tag = image or image_tag(config)
    try:
        engine = DockerEngine()
    except EngineError as exc:
        raise RuntimeError(f"sandbox bench needs Docker: {exc}") from exc
    figures: dict[str, float] = {}
    try:
        if not engine.has_image(tag):
            raise RuntimeError(f"sandbox image {tag} is missing: run `lsp-agent sandbox build`")
        with tempfile.TemporaryDirectory(prefix="lsp-agent-bench-") as scratch:
            small = make_repo(Path(scratch) / "small")
            large = make_large_repo(Path(scratch) / "large")
            with DockerSandbox(
                small, config, engine=engine, image=tag, owns_engine=False
            ) as sandbox:
                job = sandbox.patch_job(DIFF)
                cold = [_cold_once(engine, small, tag, job, config) for _ in range(runs)]
                first, warm = _warm_series(sandbox, warm_runs)
            with DockerSandbox(
                large, config, engine=engine, image=tag, owns_engine=False
            ) as sandbox:
                large_first, large_warm = _warm_series(sandbox, warm_runs)
    finally:
        engine.close()
    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    large_s = statistics.median(large_warm)
    figures.update(
        cold_s=cold_s,
        warm_s=warm_s,
        ratio=warm_s / cold_s,
        target_ratio=TARGET_RATIO,
        warm_mean_s=statistics.mean(warm),
        first_check_s=first,
        large_warm_s=large_s,
        large_warm_mean_s=statistics.mean(large_warm),
        large_first_check_s=large_first,
        size_ratio=large_s / warm_s,
        target_size_ratio=TARGET_SIZE_RATIO,
        large_files=float(LARGE_FILES),
        large_mb=float(LARGE_MB),
        overlay=float(bool(engine.overlay)),
        runs=float(runs),
    )
    return figures


def _warm_series(sandbox: DockerSandbox, runs: int) -> tuple[float, list[float]]:
    """The first check (container start) and `runs` warm checks after it, in seconds."""
    started = time.perf_counter()
    _expect_pass(sandbox.check_patch(DIFF).check_passed, "first warm")
    first = time.perf_counter() - started
    return first, [_warm_once(sandbox) for _ in range(runs)]


def _cold_once(
    engine: DockerEngine, repo: Path, tag: str, job: dict[str, object], config: SandboxConfig
) -> float:
    started = time.perf_counter()
    answer = engine.run_once(repo, tag, job, config.timeout_s)
    elapsed = time.perf_counter() - started
    _expect_pass(answer.get("exit_code") == 0, f"cold ({answer.get('stdout')!r})")
    return elapsed


def _warm_once(sandbox: DockerSandbox) -> float:
    started = time.perf_counter()
    check = sandbox.check_patch(DIFF)
    elapsed = time.perf_counter() - started
    _expect_pass(check.check_passed, f"warm ({check.output!r})")
    return elapsed


def _expect_pass(passed: bool | None, what: str) -> None:
    if not passed:
        raise RuntimeError(f"sandbox bench: the {what} check did not pass")


if __name__ == "__main__":
    for key, value in measure().items():
        print(f"{key:>14}  {value:.4g}")
