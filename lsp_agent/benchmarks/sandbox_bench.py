"""`lsp-agent bench sandbox`: warm checks vs a cold `docker run`, small vs large repository.

Every check does the same job (apply a one-line diff in a fresh copy-on-write view of the
repository, run `python -m pytest -q`): cold in a fresh hardened container (created,
started, waited for, removed), warm in the session's container. Warm checks run at
least as many times as a container has fresh trees (sandbox/docker/repo_view.py), so the mean
includes one container replacement. Targets: warm <= 0.35 x cold on the small
repository; a warm check on the large one (20,000 files, 300 MB, more than the
container's 256 MiB /tmp) <= 2 x the small one. Both repositories name their tests in
pytest.ini (`testpaths`), as large projects do: without it pytest's own collection walks
all 20,000 files (seconds at half a CPU), which is the test runner's cost, not the
sandbox's.

A check also compares with the unpatched tree's run (the baseline), cached by the tree's
content after the first check. `baseline_ratio` = a warm check with a cached baseline /
one plain test run (`sandbox.run` of the same command). Target: <= 1.3. The same for a
small Node project checked with `npm test` (`npm_warm_s`, `npm_test_run_s`,
`npm_baseline_ratio`).
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from lsp_agent.settings import load_settings
from lsp_agent.testing.calc_repo import CALC_DIFF, write_calc_repo
from sandbox.config import SandboxConfig
from sandbox.docker import TREES, DockerEngine, EngineError, image_tag
from sandbox.docker_backend import DockerSandbox

TARGET_RATIO = 0.35
TARGET_SIZE_RATIO = 2.0
TARGET_BASELINE_RATIO = 1.3
TEST_COMMAND = ("python", "-m", "pytest", "-q")
LARGE_FILES = 20_000
LARGE_MB = 300
DIFF = CALC_DIFF
NPM_TEST = ("npm", "test")
NODE_FILES = {
    "package.json": '{"name": "calc", "version": "1.0.0", "scripts": {"test": "node test.js"}}\n',
    "calc.js": "exports.add = (a, b) => a - b;\n",
    "test.js": "const assert = require('assert');\nconst { add } = require('./calc');\n"
    "assert.strictEqual(add(2, 3), 5);\n",
}
NODE_DIFF = (
    "--- a/calc.js\n+++ b/calc.js\n@@ -1 +1 @@\n"
    "-exports.add = (a, b) => a - b;\n+exports.add = (a, b) => a + b;\n"
)


def make_repo(root: Path) -> Path:
    """A small Python package with a passing test."""
    repo = root / "repo"
    write_calc_repo(repo)
    # Where the tests are, as a large project says (else pytest itself walks every file).
    (repo / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
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


def make_node_repo(root: Path) -> Path:
    """A small Node project whose `npm test` fails until `NODE_DIFF` fixes it."""
    repo = root / "node"
    repo.mkdir(parents=True)
    for name, text in NODE_FILES.items():
        (repo / name).write_text(text)
        (repo / name).chmod(0o644)
    repo.chmod(0o755)
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
                plain = [_plain_once(sandbox) for _ in range(runs)]
                hits = sandbox.baselines.hits
            with DockerSandbox(
                large, config, engine=engine, image=tag, owns_engine=False
            ) as sandbox:
                large_first, large_warm = _warm_series(sandbox, warm_runs)
            node = make_node_repo(Path(scratch))
            with DockerSandbox(
                node, config, engine=engine, image=tag, owns_engine=False
            ) as sandbox:
                _, npm_warm = _warm_series(sandbox, runs, NODE_DIFF)
                npm_plain = [_plain_once(sandbox, NPM_TEST, ok=False) for _ in range(runs)]
    finally:
        engine.close()
    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    large_s = statistics.median(large_warm)
    plain_s = statistics.median(plain)
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
        test_run_s=plain_s,
        baseline_ratio=warm_s / plain_s,
        target_baseline_ratio=TARGET_BASELINE_RATIO,
        baseline_hits=float(hits),
        npm_warm_s=statistics.median(npm_warm),
        npm_test_run_s=statistics.median(npm_plain),
        npm_baseline_ratio=statistics.median(npm_warm) / statistics.median(npm_plain),
        runs=float(runs),
    )
    return figures


def _warm_series(sandbox: DockerSandbox, runs: int, diff: str = DIFF) -> tuple[float, list[float]]:
    """The first check (container start) and `runs` warm checks after it, in seconds."""
    started = time.perf_counter()
    _expect_pass(sandbox.check_patch(diff).check_passed, "first warm")
    first = time.perf_counter() - started
    return first, [_warm_once(sandbox, diff) for _ in range(runs)]


def _cold_once(
    engine: DockerEngine, repo: Path, tag: str, job: dict[str, object], config: SandboxConfig
) -> float:
    started = time.perf_counter()
    answer = engine.run_once(repo, tag, job, config.timeout_s)
    elapsed = time.perf_counter() - started
    _expect_pass(answer.get("exit_code") == 0, f"cold ({answer.get('stdout')!r})")
    return elapsed


def _warm_once(sandbox: DockerSandbox, diff: str = DIFF) -> float:
    started = time.perf_counter()
    check = sandbox.check_patch(diff)
    elapsed = time.perf_counter() - started
    _expect_pass(check.check_passed, f"warm ({check.output!r})")
    return elapsed


def _plain_once(
    sandbox: DockerSandbox, command: tuple[str, ...] = TEST_COMMAND, *, ok: bool = True
) -> float:
    """One plain run of `command` (`ok`: it must pass; the Node one fails unpatched)."""
    started = time.perf_counter()
    result = sandbox.run(list(command))
    elapsed = time.perf_counter() - started
    _expect_pass(result.ok or not ok, f"plain test run ({result.stdout!r})")
    _expect_pass(result.exit_code >= 0 and not result.timed_out, "plain test run (ran)")
    return elapsed


def _expect_pass(passed: bool | None, what: str) -> None:
    if not passed:
        raise RuntimeError(f"sandbox bench: the {what} check did not pass")


if __name__ == "__main__":
    for key, value in measure().items():
        print(f"{key:>14}  {value:.4g}")
