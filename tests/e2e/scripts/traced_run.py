"""A short agent run with a scripted model, traced to the Phoenix endpoint given in argv.

Run in its own process: the global TracerProvider can be installed only once.
Usage: python traced_run.py REPO ENDPOINT PROJECT
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsp_agent.logging_setup import quiet_third_party_imports

quiet_third_party_imports()

from smolagents import ToolCallingAgent  # noqa: E402

from lsp_agent.agent.telemetry import setup_telemetry  # noqa: E402
from lsp_agent.models.scripted import ScriptedModel  # noqa: E402
from lsp_agent.settings import Settings  # noqa: E402
from sandbox import open_sandbox  # noqa: E402
from sandbox.project import project_profile  # noqa: E402
from tools.approval_gate import RejectAll  # noqa: E402
from tools.base import ToolContext  # noqa: E402
from tools.patches import DiskPatchWriter  # noqa: E402
from tools.registry import build_tools  # noqa: E402
from tools.workspace import DiskWorkspace  # noqa: E402


def main() -> int:
    repo, endpoint, project = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    settings = Settings(phoenix_endpoint=endpoint, phoenix_project=project, sandbox_backend="none")
    provider = setup_telemetry(settings.telemetry_config())
    assert provider is not None
    context = ToolContext(
        workspace=DiskWorkspace(repo),
        writer=DiskPatchWriter(repo),
        sandbox_factory=lambda: open_sandbox(repo, settings.sandbox_config()),
        project=project_profile(repo),
        approvals=RejectAll(),
    )
    model = ScriptedModel(
        [
            {"tool": "read_file", "arguments": {"path": "pkg/calc.py"}},
            {"tool": "run_cmd", "arguments": {"command": "pip install numpy"}},
            {"final_answer": "add() returns a + b"},
        ]
    )
    agent = ToolCallingAgent(
        tools=build_tools(context), model=model, max_steps=5, verbosity_level=-1
    )
    answer = agent.run("What does add return?")
    provider.force_flush()
    provider.shutdown()
    print(answer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
