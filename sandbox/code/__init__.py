"""Code mode's container (`AGENT_TYPE=code`): the model's Python runs here, never on the host.

- `runner`: the stdlib-only runner sent with `python3 -c` (exec per step, one proxy
  function per tool, the JSON-lines protocol);
- `container`: the hardened container without any mount, and its channel;
- `session`: one job's runner: a step's code in, its tool calls served on the host;
- `opening`: whether code may run here (`code_mode_problem`) and `open_code_session`.

Outside this folder, import from `sandbox.code` only.
"""

from sandbox.code.container import CodeChannel, start_code_container
from sandbox.code.opening import CODE_BACKENDS, code_mode_problem, open_code_session
from sandbox.code.session import CodeSession, StepOutcome

__all__ = [
    "CODE_BACKENDS",
    "CodeChannel",
    "CodeSession",
    "StepOutcome",
    "code_mode_problem",
    "open_code_session",
    "start_code_container",
]
