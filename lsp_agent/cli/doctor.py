"""`lsp-agent doctor`: what is installed, reachable and configured — and what is not.

Each check reports OK, WARN or FAIL with a one-line detail and, where something is
missing, how to fix it. The exit code is non-zero when a *required* check fails: Python,
the packages, valid settings, the configured model's endpoint, and Docker when
`SANDBOX_BACKEND=docker` is asked for explicitly.

When the model's endpoint answers, one tiny request per feature shows what it supports
(`lsp_agent.cli.capability_probe`): tool calls, `tool_choice: "required"`, the
`response_format` kinds, streaming. These checks are optional: a missing feature is a WARN
naming what the agent does instead. `--no-probe` skips them (no model calls).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from enum import Enum
from importlib import metadata
from pathlib import Path

import httpx

from lsp_agent.settings import IgnoredSetting, Settings, load_settings
from safety import host_process

REQUIRED_DISTRIBUTIONS = (
    "pygls",
    "lsprotocol",
    "smolagents",
    "litellm",
    "opentelemetry-sdk",
    "opentelemetry-exporter-otlp-proto-http",
    "arize-phoenix-otel",
    "openinference-instrumentation-smolagents",
    "docker",
    "unidiff",
    "tree-sitter",
    "tree-sitter-bash",
    "python-dotenv",
    "rich",
    "httpx",
)
HTTP_TIMEOUT_S = 2.0


class Status(Enum):
    OK = "OK"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    required: bool = False

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "status": self.status.value}


def check_python() -> Check:
    version = ".".join(str(part) for part in sys.version_info[:3])
    ok = sys.version_info >= (3, 11)
    detail = f"{version} at {sys.executable}" + ("" if ok else " (3.11 or newer is needed)")
    return Check("python", Status.OK if ok else Status.FAIL, detail, required=True)


def check_packages() -> Check:
    found, missing = [], []
    for name in REQUIRED_DISTRIBUTIONS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        detail = "missing: " + ", ".join(missing) + " (run `uv sync` in the checkout)"
        return Check("packages", Status.FAIL, detail, required=True)
    return Check("packages", Status.OK, "; ".join(found), required=True)


def check_settings(errors: list[str], ignored: list[str] | None = None) -> Check:
    if errors:
        return Check("settings", Status.FAIL, " | ".join(errors), required=True)
    if ignored:
        return Check("settings", Status.WARN, " | ".join(ignored), required=True)
    return Check("settings", Status.OK, "every value valid", required=True)


def _get(url: str) -> httpx.Response | str:
    try:
        return httpx.get(url, timeout=HTTP_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"


def check_model(settings: Settings) -> Check:
    from lsp_agent.models.errors import ModelConfigError
    from lsp_agent.models.factory import check_model_reachable, is_embedded

    model_id = settings.model_id
    if model_id.startswith("scripted:"):
        path = Path(model_id.removeprefix("scripted:"))
        ok = path.is_file()
        return Check(
            "model",
            Status.OK if ok else Status.FAIL,
            f"scripted model from {path}" + ("" if ok else " (file not found)"),
            True,
        )
    if is_embedded(model_id):
        from lsp_agent.models.embedded.loader import describe_embedded

        try:
            what = describe_embedded(model_id)
        except ModelConfigError as exc:
            return Check("model", Status.FAIL, str(exc), True)
        return Check("model", Status.OK, f"{model_id}: {what}; in-process (no endpoint)", True)
    problem = check_model_reachable(settings.model_config())
    if problem is not None:
        return Check("model", Status.FAIL, f"{model_id}: {problem}", True)
    base = settings.model_config().effective_api_base()
    if not base:
        detail = f"{model_id}: provider default endpoint, not checked"
        return Check("model", Status.WARN, detail, required=False)
    return Check("model", Status.OK, f"{model_id} at {base} answers", True)


def check_model_features(settings: Settings) -> list[Check]:
    """One optional check per feature the endpoint was probed for (none for other providers)."""
    from lsp_agent.cli.capability_probe import probe_endpoint

    base = settings.model_config().effective_api_base()
    return [
        Check(
            f"model: {probe.feature}",
            Status.OK if probe.supported else Status.WARN,
            probe.detail if probe.supported else f"{probe.detail}; without it: {probe.fallback}",
        )
        for probe in probe_endpoint(settings.model_id, base)
    ]


def check_docker(settings: Settings) -> Check:
    required = settings.sandbox_backend == "docker"
    status = Status.FAIL if required else Status.WARN
    try:
        from sandbox.docker import RemoteEngine, connect

        client = connect(timeout_s=5)
        try:
            version = client.version().get("Version", "?")
        finally:
            client.close()
        return Check("docker", Status.OK, f"engine {version} reachable", required)
    except RemoteEngine as exc:
        return Check("docker", status, f"{exc}; patches are not checked until then", required)
    except Exception as exc:
        detail = (
            f"engine not reachable ({type(exc).__name__}); patches are not checked "
            "(`check: unavailable`). Install docker.io and start dockerd"
        )
        return Check("docker", status, detail, required)


def check_sandbox_image(settings: Settings) -> Check:
    required = settings.sandbox_backend == "docker"
    try:
        from sandbox.docker import image_exists, image_tag

        tag = image_tag(settings.sandbox_config())
        if image_exists(tag):
            return Check("sandbox image", Status.OK, tag, required)
        detail = f"{tag} not built: run `lsp-agent sandbox build`"
    except Exception as exc:
        detail = f"cannot tell ({type(exc).__name__}: {exc})"
    return Check("sandbox image", Status.FAIL if required else Status.WARN, detail, required)


def check_code_mode(settings: Settings) -> list[Check]:
    """With AGENT_TYPE=code: whether model code can run in the Docker sandbox (else jobs
    fall back to tool calling)."""
    if settings.agent_type != "code":
        return []
    from sandbox.code import code_mode_problem

    problem = code_mode_problem(settings.sandbox_config())
    if problem is None:
        return [Check("code mode", Status.OK, "model code runs in the Docker sandbox")]
    return [Check("code mode", Status.WARN, f"unavailable ({problem}): jobs use tool calling")]


def check_project_env(workspace: Path) -> Check:
    """Whether the project's declared dependencies (Python, Node) are prepared for checks."""
    from sandbox.project_envs import project_status

    detail = project_status(workspace)
    waiting = "not prepared" in detail or "cannot prepare" in detail
    status = Status.WARN if waiting else Status.OK
    return Check("project env", status, detail)


def check_phoenix(settings: Settings) -> Check:
    if not settings.phoenix_enabled:
        return Check("phoenix", Status.OK, "export off (PHOENIX_ENABLED=false)")
    base = settings.phoenix_endpoint.removesuffix("/v1/traces")
    reply = _get(base + "/healthz")
    if isinstance(reply, str):
        return Check(
            "phoenix",
            Status.WARN,
            f"{base} not reachable; traces are dropped. Start one: `lsp-agent phoenix`",
        )
    return Check("phoenix", Status.OK, f"{settings.phoenix_endpoint} (HTTP {reply.status_code})")


def check_executable(name: str, purpose: str) -> Check:
    try:
        path = host_process.resolve_program(name, host_process.vetted_environ())
    except host_process.ProgramNotFound:
        return Check(name, Status.WARN, f"not found ({purpose})")
    try:
        out = host_process.run([path, "--version"], capture_output=True, text=True, timeout=10)
        first = (out.stdout or out.stderr).splitlines()[0] if (out.stdout or out.stderr) else ""
    except (OSError, subprocess.TimeoutExpired) as exc:
        first = f"({type(exc).__name__})"
    return Check(name, Status.OK, f"{first} at {path}")


def check_mcp(settings: Settings, workspace: Path) -> list[Check]:
    """Each MCP server of `MCP_CONFIG`: does it start, and which tools does it offer."""
    if not settings.mcp_config:
        return [Check("mcp", Status.OK, "no MCP servers (MCP_CONFIG is not set)")]
    import time

    from tools.mcp import McpConfigError, McpConnection, McpServerError, load_mcp_config

    try:
        specs = load_mcp_config(settings.mcp_config)
    except McpConfigError as exc:
        return [Check("mcp", Status.FAIL, str(exc))]
    checks = []
    for spec in specs:
        began = time.monotonic()
        connection = McpConnection(spec, workspace)
        try:
            tools = [tool.name for tool in connection.start()]
        except McpServerError as exc:
            checks.append(Check(f"mcp {spec.name}", Status.FAIL, str(exc)))
            continue
        finally:
            connection.close()
        offered = [name for name in tools if spec.allows(name)]
        detail = (
            f"started in {time.monotonic() - began:.1f} s; {len(offered)} of {len(tools)} "
            f"tools offered: {', '.join(offered) or '(none)'}; "
            + ("trusted (no questions)" if spec.trust else "each call asks first")
        )
        checks.append(Check(f"mcp {spec.name}", Status.OK, detail))
    return checks


def check_instructions(workspace: Path) -> Check:
    """The workspace's AGENTS.md: found, and how much of it reaches the model."""
    from lsp_agent.agent.instructions import FILE_NAME, load_instructions

    found = load_instructions(workspace)
    if found is None:
        return Check("instructions", Status.OK, f"no {FILE_NAME} in {workspace}")
    return Check("instructions", Status.OK, found.describe())


def collect(workspace: Path | None = None, *, probe: bool = True) -> list[Check]:
    root = workspace or Path.cwd()
    settings, errors = load_settings(workspace=root)
    model = check_model(settings)
    answers = model.status is Status.OK and settings.model_config().effective_api_base() != ""
    return [
        check_python(),
        check_packages(),
        check_settings(
            [str(e) for e in errors if not isinstance(e, IgnoredSetting)],
            [str(e) for e in errors if isinstance(e, IgnoredSetting)],
        ),
        model,
        *(check_model_features(settings) if probe and answers else []),
        check_docker(settings),
        check_sandbox_image(settings),
        *check_code_mode(settings),
        check_project_env(root),
        check_phoenix(settings),
        check_executable("nvim", "Neovim client and its tests"),
        check_executable("rg", "faster search; a Python fallback is used otherwise"),
        check_executable("git", "git tools and patch checks"),
        check_instructions(root),
        *check_mcp(settings, root),
    ]


def run_doctor(as_json: bool = False, workspace: Path | None = None, *, probe: bool = True) -> int:
    checks = collect(workspace, probe=probe)
    failed = [c for c in checks if c.required and c.status is Status.FAIL]
    if as_json:
        print(json.dumps({"ok": not failed, "checks": [c.as_dict() for c in checks]}, indent=2))
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            need = "required" if c.required else "optional"
            print(f"{c.status.value:<4}  {c.name:<{width}}  [{need}]  {c.detail}")
        print(
            "doctor: "
            + (
                "all required checks passed"
                if not failed
                else f"{len(failed)} required check(s) failed: " + ", ".join(c.name for c in failed)
            )
        )
    return 1 if failed else 0
