"""A patch check: which command checks it, the in-container driver that runs it, and what it says.

- `command`: the check command (`CHECK_COMMAND`, else the automatic rule) and whether the
  image has its toolchain;
- `driver` + `driver_steps`: the stdlib-only driver sent to a container with `python3 -c`
  (copy the repository, lay the overlay, apply, run, capture); the local backend runs the
  same steps in a throwaway directory;
- `driver_backend`: `run` and `check_patch` for the backends that hand jobs to that driver;
- `test_results` (JUnit results, before vs after) and `baseline` (the unpatched run, cached
  by the tree's content).

Outside this folder, import from `sandbox.checks` only.
"""

from sandbox.checks.command import COPY_EXCLUDES
from sandbox.checks.driver_backend import DriverBackedSandbox, SandboxUnavailable

__all__ = ["COPY_EXCLUDES", "DriverBackedSandbox", "SandboxUnavailable"]
