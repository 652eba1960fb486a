"""`lsp-agent bench sandbox`: a patch check in the warm container vs a cold `docker run`.

Both do the same job on a small repository (copy it, apply a one-line diff, run
`python -m pytest -q`): cold in a fresh hardened container (created, started, waited
for, removed), warm in the session's reused container. Target: warm <= 0.35 x cold.
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

TARGET_RATIO = 0.35
DIFF = """\
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return b + a
"""


def make_repo(root: Path) -> Path:
    """A small Python package with a passing test, readable by the sandbox user."""
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests" / "test_calc.py").write_text(
        "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    for path in (repo, *repo.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return repo


def measure(runs: int = 5, *, image: str | None = None) -> dict[str, float]:
    """Median seconds of cold and warm checks, and `ratio` = warm / cold.

    Raises RuntimeError (saying what to do) when Docker or the image is missing.
    """
    runs = max(1, runs)
    config = dataclasses.replace(
        load_settings()[0].sandbox_config(), backend="docker", timeout_s=60.0
    )
    tag = image or image_tag(config)
    try:
        engine = DockerEngine()
    except EngineError as exc:
        raise RuntimeError(f"sandbox bench needs Docker: {exc}") from exc
    try:
        if not engine.has_image(tag):
            raise RuntimeError(f"sandbox image {tag} is missing: run `lsp-agent sandbox build`")
        with tempfile.TemporaryDirectory(prefix="lsp-agent-bench-") as scratch:
            repo = make_repo(Path(scratch))
            with DockerSandbox(
                repo, config, engine=engine, image=tag, owns_engine=False
            ) as sandbox:
                job = sandbox.patch_job(DIFF)
                cold = [_cold_once(engine, repo, tag, job, config) for _ in range(runs)]
                started = time.perf_counter()
                _expect_pass(sandbox.check_patch(DIFF).check_passed, "first warm")
                first = time.perf_counter() - started
                warm = [_warm_once(sandbox) for _ in range(runs)]
    finally:
        engine.close()
    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    return {
        "cold_s": cold_s,
        "warm_s": warm_s,
        "ratio": warm_s / cold_s,
        "target_ratio": TARGET_RATIO,
        "first_check_s": first,
        "runs": float(runs),
    }


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
