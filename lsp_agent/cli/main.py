"""The `lsp-agent` command. Each subcommand's work lives in its own module, imported lazily
so that `serve` starts fast and only what a subcommand needs is loaded."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsp_agent import __version__
from lsp_agent.logging_setup import configure_logging, quiet_third_party_imports
from lsp_agent.settings import load_settings

Handler = Callable[[argparse.Namespace], int]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def _serve(args: argparse.Namespace) -> int:
    from lsp_agent.lsp.stdio import serve_stdio

    return serve_stdio()


def _acp(args: argparse.Namespace) -> int:
    from lsp_agent.acp.server import serve_acp

    return serve_acp()


def _run(args: argparse.Namespace) -> int:
    from lsp_agent.cli.run import run_headless

    return run_headless(
        args.task,
        args.repo,
        yes=args.yes,
        max_steps=args.max_steps,
        model=args.model,
        undo=args.undo,
    )


def _trust(args: argparse.Namespace) -> int:
    from lsp_agent.cli.trust_command import run_trust

    return run_trust(args.directory, forget=args.forget)


def _doctor(args: argparse.Namespace) -> int:
    from lsp_agent.cli.doctor import run_doctor

    return run_doctor(as_json=args.json, probe=not args.no_probe)


def _demo(args: argparse.Namespace) -> int:
    from lsp_agent.demo.run import run_demo

    return run_demo(model=args.model)


def _phoenix(args: argparse.Namespace) -> int:
    from lsp_agent.cli.phoenix_server import run_phoenix

    return run_phoenix(port=args.port, setup_only=args.setup_only, grpc_port=args.grpc_port)


def _sandbox(args: argparse.Namespace) -> int:
    from lsp_agent.cli.sandbox_command import run

    return run(args)


def _memory(args: argparse.Namespace) -> int:
    from lsp_agent.cli.memory_command import run

    return run(args)


def _bench(args: argparse.Namespace) -> int:
    from lsp_agent.benchmarks.runner import BenchOptions, run_bench

    options = BenchOptions(
        models=tuple(args.model or ()),
        levels=tuple(part for part in (args.levels or "").split(",") if part.strip()),
        chart=args.chart,
        serve_llama_cpp=args.serve_llama_cpp,
        serve_llama_server=args.serve_llama_server or "",
        agent_type=args.agent_type,
        planning_interval=args.planning_interval,
        subagents=_words(args.subagents),
        show_prompts=args.show_prompts,
        sample=args.sample,
        exercises=_words(args.exercises),
        peers=_words(args.peers),
        peers_only=args.peers_only,
        max_steps=args.max_steps,
        timeout_s=args.timeout,
        llama_server=args.llama_server,
        output=args.output,
    )
    return run_bench(args.name, runs=args.runs, output=args.output, options=options)


def _words(text: str | None) -> tuple[str, ...]:
    """`a,b , c` -> ("a", "b", "c")."""
    return tuple(part.strip() for part in (text or "").split(",") if part.strip())


def _add_bench_edits_options(bench: Any) -> None:
    """`bench edits`: which exercises, which peers, and their limits."""
    bench.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="bench edits: the first N exercises of one fixed shuffle of the 133 (default 3)",
    )
    bench.add_argument(
        "--exercises", metavar="a,b,c", help="bench edits: these exercises (e.g. leap,two-fer)"
    )
    bench.add_argument(
        "--peers",
        metavar="aider,mini-swe-agent",
        help="bench edits: also run these agents on the same exercises and model "
        "(each from its own environment, made on first use, in a throwaway container)",
    )
    bench.add_argument(
        "--peers-only", action="store_true", help="bench edits: run the peers, not lsp-agent"
    )
    bench.add_argument(
        "--max-steps",
        type=int,
        metavar="N",
        help="bench edits: step limit of lsp-agent and mini-swe-agent (default AGENT_MAX_STEPS)",
    )
    bench.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="bench edits: seconds one agent may spend on one exercise (default 1800)",
    )
    bench.add_argument(
        "--llama-server",
        type=Path,
        metavar="PATH",
        help="bench edits: llama.cpp's llama-server, to serve an embedded:… model to the peers "
        "(lsp-agent runs it in-process; default $LLAMA_SERVER or llama-server on PATH)",
    )


def _add_bench_agent_options(bench: Any) -> None:
    """`bench models`: which server and which kind of agent the levels run with."""
    bench.add_argument(
        "--serve-llama-cpp",
        action="store_true",
        help="bench models: start llama-cpp-python's server with SmolLM2 on 127.0.0.1 and add "
        "it as the model `openai/smollm2` (needs the dev group's server extras)",
    )
    bench.add_argument(
        "--serve-llama-server",
        nargs="?",
        const="qwen2.5-coder-1.5b",
        metavar="NAME",
        help="bench models: start llama.cpp's llama-server --jinja (built once into the user "
        "cache) with the embedded model NAME (default qwen2.5-coder-1.5b, the `qwen` extra) "
        "on 127.0.0.1 and add it as the model `openai/NAME`",
    )
    bench.add_argument(
        "--agent-type",
        choices=("tool_calling", "code"),
        default="tool_calling",
        help="bench models: the agent the levels run with (`code`: the model writes Python, "
        "run in the Docker sandbox; the scripted model plays the code-form references); "
        "bench edits: the agent lsp-agent's jobs run with",
    )
    bench.add_argument(
        "--planning-interval",
        type=int,
        default=0,
        metavar="N",
        help="bench models: plan first and every N steps (AGENT_PLANNING_INTERVAL; 0 = off)",
    )
    bench.add_argument(
        "--subagents",
        metavar="explorer",
        help="bench models: offer these helper agents (AGENT_SUBAGENTS; `explorer`)",
    )
    bench.add_argument(
        "--show-prompts",
        action="store_true",
        help="bench prompt: also print the fixed prompt of each agent mode (tool calling, "
        "code, planning, explorer)",
    )


def _add_bench(sub: Any) -> None:
    bench = sub.add_parser("bench", help="measure speed, size and success; prints figures")
    from lsp_agent.benchmarks.runner import BENCHMARKS

    in_all = [name for name, entry in BENCHMARKS.items() if entry.in_all]
    left_out = [name for name in BENCHMARKS if name not in in_all]
    bench.add_argument(
        "name",
        help=f"one of: {', '.join(BENCHMARKS)}; or `all` ({', '.join(in_all)}; "
        f"not {', '.join(left_out)})",
    )
    bench.add_argument("--runs", type=int, default=None, help="repetitions (default per bench)")
    bench.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write results as JSON here (bench edits: as it goes, and resumes from it)",
    )
    bench.add_argument(
        "--model",
        action="append",
        metavar="ID",
        help="bench models: model to run the compliance suite on, repeatable "
        "(default `scripted`: the built-in reference solutions; else a MODEL_ID); "
        "bench demo: the model the demo runs (default `embedded`); "
        "bench complete: the completion model (default `embedded:qwen2.5-coder-1.5b`); "
        "bench edits: the one model every agent uses (default `scripted`: the example "
        "solutions, lsp-agent alone)",
    )
    bench.add_argument(
        "--levels",
        metavar="L0,L3",
        help="bench models: only these levels; bench bugfix: only these tasks (default: all)",
    )
    bench.add_argument(
        "--chart",
        type=Path,
        metavar="PNG",
        help="bench models: draw pass rate per level here; bench edits: pass rate and "
        "seconds per solved exercise, per agent",
    )
    _add_bench_agent_options(bench)
    _add_bench_edits_options(bench)
    bench.set_defaults(handler=_bench)


def _add_trust(sub: Any) -> None:
    trust = sub.add_parser(
        "trust",
        help="trust the security keys of a workspace's .env (this exact content)",
        description="Security keys (MODEL_*, SANDBOX_*, PHOENIX_*, CHECK_COMMAND, POLICY_FILE, "
        "MCP_CONFIG, AGENT_TYPE, AGENT_SUBAGENTS, AGENT_MEMORY) in a workspace's .env are "
        "ignored until you trust that file. This records the SHA-256 of DIR/.env in "
        "$XDG_DATA_HOME/lsp-agent/trusted-env.json; once the file changes it is untrusted "
        "again. Read the file before you trust it: it decides where code runs and where your "
        "code and prompts are sent.",
    )
    trust.add_argument(
        "directory", nargs="?", type=Path, default=Path.cwd(), help="workspace (default: .)"
    )
    trust.add_argument("--forget", action="store_true", help="withdraw the trust instead")
    trust.set_defaults(handler=_trust)


def _add_run(sub: Any) -> None:
    run = sub.add_parser("run", help="run one task headless on a repository")
    run.add_argument("task", nargs="?", help="what the agent should do")
    run.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: .)")
    run.add_argument("--yes", action="store_true", help="approve patches and commands")
    run.add_argument("--max-steps", type=int, help="override AGENT_MAX_STEPS")
    run.add_argument("--model", help="override MODEL_ID")
    run.add_argument(
        "--undo",
        action="store_true",
        help="put back what the last run in --repo wrote (lines changed since stay; a file "
        "whose written lines changed since is left and named)",
    )
    run.set_defaults(handler=_run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lsp-agent",
        description="An editor-integrated coding agent for small local models. "
        "With no subcommand, runs the language server on stdio (same as `serve`).",
    )
    parser.add_argument("--version", action="version", version=f"lsp-agent {__version__}")
    parser.add_argument("--log-file", type=Path, help="also write logs to this file")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the language server on stdio (default)")
    serve.add_argument(
        "--log-file", type=Path, default=argparse.SUPPRESS, help="also write logs to this file"
    )
    serve.add_argument("--stdio", action="store_true", help="accepted for editor compatibility")
    serve.set_defaults(handler=_serve)

    acp = sub.add_parser(
        "acp",
        help="run the agent for ACP clients (Zed, JetBrains, CodeCompanion, avante.nvim) on stdio",
        description="Speak the Agent Client Protocol (version 1) on stdin/stdout: the same "
        "agent, tools, policy and sandbox in an editor's agent panel. The session's cwd is "
        "the workspace root; settings are read as for `serve`.",
    )
    acp.set_defaults(handler=_acp)

    _add_run(sub)

    demo = sub.add_parser(
        "demo",
        help="show the whole flow on a sample repository",
        description="Fix a real defect in a sample repository through the real server, a "
        "headless editor and the agent; exit 0 when its test passes afterwards, else 1.",
    )
    demo.add_argument("--model", default=None, help="model id (default: the embedded model)")
    demo.set_defaults(handler=_demo)

    _add_trust(sub)

    doctor = sub.add_parser("doctor", help="check the installation and report what is missing")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.add_argument(
        "--no-probe",
        action="store_true",
        help="skip the tiny model requests that show what the endpoint supports",
    )
    doctor.set_defaults(handler=_doctor)

    sandbox = sub.add_parser(
        "sandbox", help="build or inspect the patch-check sandbox, or prepare a project for it"
    )
    from lsp_agent.cli.sandbox_command import configure

    configure(sandbox)
    sandbox.set_defaults(handler=_sandbox)

    memory = sub.add_parser("memory", help="show or clear the notes workspace memory keeps")
    from lsp_agent.cli.memory_command import configure as configure_memory

    configure_memory(memory)
    memory.set_defaults(handler=_memory)

    _add_bench(sub)

    phoenix = sub.add_parser("phoenix", help="start a local Arize Phoenix server for traces")
    phoenix.add_argument("--port", type=int, default=6006, help="HTTP and OTLP port (6006)")
    phoenix.add_argument("--grpc-port", type=int, default=None, help="OTLP/gRPC port (4317)")
    phoenix.add_argument(
        "--setup-only", action="store_true", help="create Phoenix's environment and exit"
    )
    phoenix.set_defaults(handler=_phoenix)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    quiet_third_party_imports()
    parser = build_parser()
    args = parser.parse_args(argv)
    settings, _ = load_settings(workspace=Path.cwd())
    configure_logging(
        settings.log_level, args.log_file, suppress_warnings=settings.suppress_warnings
    )
    handler: Handler = getattr(args, "handler", _serve)
    return handler(args)
