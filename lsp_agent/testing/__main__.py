"""`python -m lsp_agent.testing serve-openai --script FILE [--port N]`.

Serves the script on 127.0.0.1 (OpenAI `/v1/chat/completions` and Ollama `/api/chat`), prints
the port on the first line of stdout, and runs until SIGTERM/SIGINT (or, with
`--exit-on-stdin-close`, until stdin closes).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from lsp_agent.models.scripted.script import ScriptError, load_script
from lsp_agent.testing.scripted_server import ScriptedOpenAIServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lsp_agent.testing")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve-openai", help="serve a scripted model endpoint")
    serve.add_argument("--script", type=Path, required=True, help="JSON list of turns")
    serve.add_argument("--port", type=int, default=0, help="port (0 = a free one)")
    serve.add_argument(
        "--exit-on-stdin-close",
        action="store_true",
        help="also stop when stdin closes (for a parent process that holds a pipe)",
    )
    args = parser.parse_args(argv)
    try:
        turns = load_script(args.script)
    except ScriptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with ScriptedOpenAIServer(turns, port=args.port) as server:
        print(server.port, flush=True)
        if args.exit_on_stdin_close:
            threading.Thread(target=_stop_on_stdin_close, args=(stop,), daemon=True).start()
        stop.wait()
    return 0


def _stop_on_stdin_close(stop: threading.Event) -> None:
    try:
        while sys.stdin.readline():
            pass
    except (OSError, ValueError):
        pass
    stop.set()


if __name__ == "__main__":
    sys.exit(main())
