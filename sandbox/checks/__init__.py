"""A patch check: which command checks it, the in-container driver that runs it, and what it says.

- `command`: whether the image has the check command's toolchain, and how a command is
  shown (which command checks is the job's project profile, `sandbox.project`);
- `driver` + `driver_steps`: the stdlib-only driver sent to a container with `python3 -c`
  (copy the repository, lay the overlay, apply, run, capture; `driver_script` joins them);
  the local backend runs the same steps in a throwaway directory (`run_job`);
- `driver_backend`: `run` and `check_patch` for the backends that hand jobs to that driver;
- `test_results` (JUnit results, before vs after) and `baseline` (the unpatched run, cached
  by the tree's content).

Outside this folder, import from `sandbox.checks` only.
"""

from sandbox.checks.driver_backend import DriverBackedSandbox, SandboxUnavailable
from sandbox.checks.driver_script import DRIVER_SOURCE
from sandbox.checks.driver_script import MARKER as DRIVER_MARKER
from sandbox.checks.driver_steps import run_job

__all__ = [
    "DRIVER_MARKER",
    "DRIVER_SOURCE",
    "DriverBackedSandbox",
    "SandboxUnavailable",
    "run_job",
]
