"""`lsp-agent serve` with the scripted stand-in runtime (`tests.lsp.fake_runtime`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    from lsp_agent.logging_setup import configure_logging
    from lsp_agent.lsp.stdio import reserve_stdout_for_rpc

    rpc_out = reserve_stdout_for_rpc()
    configure_logging("INFO", None, suppress_warnings=True)
    from lsp_agent.lsp.server import create_server
    from tests.lsp.fake_runtime import run_scripted_job

    server = create_server(runner=lambda: run_scripted_job)
    server.start_io(sys.stdin.buffer, rpc_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
