"""Before a job: the settings for a workspace, and what the user must be told about them.

One function for every front end. `preflight(root, client=...)` reads the settings the way
`lsp_agent.settings.load_settings` does (user config, the workspace's `.env` within its trust
rules, the environment, the editor's overrides) and returns them with the notices each front
end shows in its own way before the job runs:

- `setting`: a value that was not valid, so its key kept its default;
- `ignored_setting`: a security key in an untrusted workspace `.env`;
- `policy`: what the workspace's `.lsp-agent/policy.toml` tried and was refused;
- `approvals`: nobody can answer approvals (`lsp-agent run` without a terminal or `--yes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_agent.agent.job_types import ClientInfo, Notice
from lsp_agent.settings import IgnoredSetting, Settings, load_settings

NO_ONE_TO_ASK = (
    "no terminal to ask and no --yes: approvals (patches, commands) will be rejected; "
    "run with --yes to approve them"
)


@dataclass(frozen=True)
class Preflight:
    """The settings a job runs with, and the notices to show before it."""

    settings: Settings
    notices: tuple[Notice, ...] = ()


def preflight(
    root: Path | None,
    *,
    client: ClientInfo | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Preflight:
    """The settings for workspace `root` (None: the user's scope alone) and the notices."""
    settings, problems = load_settings(workspace=root, environ=environ, overrides=overrides)
    notices = [
        Notice(
            "ignored_setting" if isinstance(problem, IgnoredSetting) else "setting", str(problem)
        )
        for problem in problems
    ]
    if root is not None:
        from safety.policy import workspace_policy_warnings

        warnings = workspace_policy_warnings(root, settings.policy_file or None)
        notices += [Notice("policy", warning) for warning in warnings]
    if client is not None and client.approvals == "reject_all":
        notices.append(Notice("approvals", NO_ONE_TO_ASK))
    return Preflight(settings, tuple(notices))
