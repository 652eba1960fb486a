"""Whether the sandbox image can run a check command, and how a command is shown.

Which command checks a patch is the project profile's answer (`sandbox.project`). The
default image has Python and Node with npm; Go and Rust are not in it (size). A command
whose program the image lacks is not run: the check says `cannot run` with
`toolchain_problem`'s text, pointing at sandbox/README.md ("Adding a toolchain").
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable

# Programs of the auto commands that an image may lack, with the Debian package to add.
TOOLCHAINS = {"npm": "npm", "go": "golang-go", "cargo": "cargo"}


def toolchain_problem(command: Iterable[str], has_program: Callable[[str], bool]) -> str:
    """Why `command` cannot run when its toolchain is missing from the image; "" if not.

    Only the auto commands' programs (`TOOLCHAINS`) are asked about; `has_program`
    answers for the sandbox image (the driver looks them up when it starts).
    """
    argv = list(command)
    program = argv[0] if argv else ""
    package = TOOLCHAINS.get(program)
    if package is None or has_program(program):
        return ""
    return (
        f"`{program}` is not in the sandbox image; fix: add the Debian package "
        f'`{package}` to the image recipe (sandbox/README.md, "Adding a toolchain") '
        "and run `lsp-agent sandbox build`, or set CHECK_COMMAND"
    )


def format_command(argv: Iterable[str]) -> str:
    return shlex.join(list(argv))
