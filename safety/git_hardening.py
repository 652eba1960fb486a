"""The hardened git configuration for every git run inside ``run_cmd`` (issue 16, class 7).

The git tools already run git with a hardened environment (``tools.workspace.git_env``);
commands the model runs through ``run_cmd`` must get the same, or a repository can make
git run its programs: an embedded bare repository's ``diff.external`` or
``core.fsmonitor``, hooks, a pager. The settings travel in ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n``, which override every configuration file,
so they hold for git run by any program in the command. The command policy asks before a
command that takes them away (``git -c``, ``GIT_*=``, ``env -u GIT_*``, ``unset GIT_*``,
``git --bare`` / ``--git-dir``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType

PLAIN_DIFF = 'f() { git --no-pager diff --no-index --no-ext-diff -- "$2" "$5"; true; }; f'
"""Stands in for an external diff program: git's own diff of the two files it is given
(an empty ``diff.external`` makes ``git diff`` fail instead)."""

HARDENED_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("safe.bareRepository", "explicit"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("diff.external", PLAIN_DIFF),
    ("credential.helper", ""),
    ("protocol.ext.allow", "never"),
    ("log.showSignature", "false"),
)

HARDENED_GIT_VARIABLES: Mapping[str, str] = MappingProxyType(
    {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "GIT_OPTIONAL_LOCKS": "0",
    }
)
_KEPT = frozenset({"GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH"})


def hardened_git_env(
    base: Mapping[str, str], extra_config: tuple[tuple[str, str], ...] = ()
) -> dict[str, str]:
    """``base`` without its other ``GIT_*`` variables, plus the hardened configuration
    (and ``extra_config``, e.g. the sandbox's ``safe.directory``)."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_") or k in _KEPT}
    env.update(HARDENED_GIT_VARIABLES)
    config = HARDENED_GIT_CONFIG + extra_config
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env
