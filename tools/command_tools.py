"""Command tools: `run_cmd` and `run_tests`, always run in the sandbox, never in your files.

The wrapper judges every command with the command policy first (DENY never runs;
REQUIRE_APPROVAL waits for the user). The policy's context follows where the command
really runs: "sandbox" in the isolated Docker backend, "host" otherwise (the local
backend is a throwaway copy on this machine, not isolation).
"""

from __future__ import annotations

import shlex
from typing import Any

from safety.errors import ErrorType
from sandbox.project import AUTO_CHECK_COMMAND
from tools.base import AgentTool, ToolFailure
from tools.test_failures import next_step_after_failure

TAIL_LINES = 60


def _tail(text: str, lines: int = TAIL_LINES) -> str:
    kept = text.rstrip("\n").splitlines()
    if len(kept) <= lines:
        return "\n".join(kept)
    return f"[{len(kept) - lines} earlier lines cut]\n" + "\n".join(kept[-lines:])


class CommandToolBase(AgentTool):
    def command_context(self) -> str:
        return "sandbox" if self.context.sandbox().backend == "docker" else "host"

    def run_shell(self, command: str) -> dict[str, Any]:
        sandbox = self.context.sandbox()
        result = sandbox.run(["sh", "-c", command], timeout_s=self.context.limits.command_timeout_s)
        if not result.available:
            raise ToolFailure(
                ErrorType.SANDBOX_ERROR,
                f"Commands cannot run here: {result.stderr.strip() or 'no sandbox available'}",
                "Carry on with the task without running commands: answer what you can "
                "from what you know and the files you read, and propose patches; the user "
                "can run `lsp-agent sandbox build` to enable them.",
            )
        reply: dict[str, Any] = {"exit_code": result.exit_code}
        if result.timed_out:
            reply["timed_out"] = f"killed after {self.context.limits.command_timeout_s:g} s"
        reply["stdout"] = _tail(result.stdout)
        if result.stderr.strip():
            reply["stderr"] = _tail(result.stderr, TAIL_LINES // 3)
        reply["ran_in"] = f"{sandbox.backend} sandbox (a copy; your files are unchanged)"
        return reply


class RunCmd(CommandToolBase):
    name = "run_cmd"
    description = "Run a shell command in a sandboxed copy of the repository."
    inputs = {"command": {"type": "string", "description": "Shell command."}}
    command_input = "command"

    def forward(self, command: str) -> dict[str, Any]:
        return self.run_shell(command)


class RunTests(CommandToolBase):
    name = "run_tests"
    description = "Run the tests in a sandboxed copy of the repository."
    inputs = {
        "command": {
            "type": "string",
            "description": "Test command (optional).",
            "nullable": True,
        }
    }
    command_input = "command"

    def command_of(self, arguments: dict[str, Any]) -> str | None:
        return super().command_of(arguments) or self.default_command()

    def default_command(self) -> str:
        """The project's check command (CHECK_COMMAND, else the automatic rule: `npm test`
        for a Node project); pytest when the project has none."""
        return shlex.join(self.context.project.check_command or AUTO_CHECK_COMMAND)

    def forward(self, command: str | None = None) -> dict[str, Any]:
        reply = self.run_shell(command or self.default_command())
        passed = reply["exit_code"] == 0
        context = self.context
        hint = (
            ""
            if passed
            else next_step_after_failure(_output(reply), context.workspace, context.seen_paths)
        )
        return {"passed": passed, **({"next": hint} if hint else {}), **reply}


def _output(reply: dict[str, Any]) -> str:
    return f"{reply.get('stdout', '')}\n{reply.get('stderr', '')}"
