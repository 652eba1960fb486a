"""The check driver as a container receives it: one stdlib-only script for `python3 -c`.

`driver_steps.py` and `driver.py` joined (driver.py's `from sandbox.` import line dropped), and
the marker that starts the driver's protocol lines on its stdout.
"""

from __future__ import annotations

from pathlib import Path

from sandbox.checks import driver, driver_steps

MARKER = driver.MARKER


def driver_source() -> str:
    """driver_steps.py and driver.py as one stdlib-only script for `python3 -c`."""
    steps = Path(driver_steps.__file__).read_text(encoding="utf-8")
    main = Path(driver.__file__).read_text(encoding="utf-8").splitlines()
    kept = [line for line in main if not line.startswith(("from sandbox.", "from __future__"))]
    return steps + "\n\n" + "\n".join(kept) + "\n"


DRIVER_SOURCE = driver_source()
