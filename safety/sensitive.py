"""Sensitive-file rules shared by path validation and the command policy.

A path is sensitive when its last component matches a *name* pattern (and no
*exception*, such as ``.env.example`` or ``*.pub``), any of its components matches a *dir*
pattern, or a trailing run of its components matches a *path* pattern (patterns starting
with ``/`` must match the whole absolute path). Matching is case-insensitive (macOS and
Windows file systems are). Names are grouped by class: environment files, cloud and
package-manager credentials, keys and keystores, Terraform variables and state,
kubeconfigs, shell histories.

Certificates and keys share extensions (``ca.pem`` holds a certificate, ``key.pem`` a
private key): listings, searches and the command policy treat ``CONTENT_NAMES`` as
sensitive, but :func:`safety.validation.validate_path` lets an existing one through when
its content holds no private key (``content_decides``); it refuses any file holding a
private key, whatever its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import PurePosixPath

from safety.globset import GlobSet

_ENV_FILES = (".env", ".env.*", ".envrc", "*.env")
_CLOUD = (
    "credentials",
    "credentials.json",
    "credentials.db",
    "access_tokens.db",
    "accessTokens.json",
    "azureProfile.json",
    "application_default_credentials.json",
    "client_secret*.json",
    "*service-account*.json",
    "*service_account*.json",
    "*-sa-key*.json",
    "*gcp-key*.json",
    ".boto",
    ".s3cfg",
    ".vault-token",
)
_PACKAGE_AUTH = (
    ".netrc",
    "_netrc",
    ".pypirc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    "pip.conf",
    "pip.ini",
    ".git-credentials",
    ".gitcookies",
    ".dockercfg",
)
_KEYS = (
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "identity",
    "authorized_keys",
    "*.key",
    "*.p8",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.jceks",
    "*.bks",
    "*.keystore",
    "*.keytab",
    "*.ppk",
    "*.kdbx",
    "*.gpg",
    "secring.*",
)
_DATABASES = (".pgpass", ".my.cnf", ".htpasswd")
_TERRAFORM = ("*.tfvars", "*.tfvars.json", "*.tfstate", "*.tfstate.backup", ".terraformrc")
_KUBE = ("kubeconfig", "kubeconfig.*", "kubeconfig-*", "*.kubeconfig")
_HISTORIES = (
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
)
# Sensitive by name for listings, searches and the command policy; a file read by a tool is
# decided by content (a private key is refused, a certificate is not).
CONTENT_NAMES: tuple[str, ...] = ("*.pem", "*.crt", "*.cer")
DEFAULT_NAMES: tuple[str, ...] = (
    *_ENV_FILES,
    *CONTENT_NAMES,
    *_CLOUD,
    *_PACKAGE_AUTH,
    *_KEYS,
    *_DATABASES,
    *_TERRAFORM,
    *_KUBE,
    *_HISTORIES,
)
# Never sensitive by name: templates of env files, public keys.
DEFAULT_EXCEPTIONS: tuple[str, ...] = (
    ".env.example",
    ".env.sample",
    ".env.template",
    "*.env.example",
    "*.env.sample",
    "*.env.template",
    "*.pub",
)

DEFAULT_DIRS: tuple[str, ...] = (
    ".git",
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube",
    ".password-store",
)

DEFAULT_PATHS: tuple[str, ...] = (
    ".docker/config.json",
    ".config/gcloud",
    ".config/gcloud/*",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".local/share/keyrings/*",
    ".terraform.d/credentials.tfrc.json",
    "/proc/*/environ",
    "/proc/*/cmdline",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d/*",
)


@dataclass(frozen=True)
class SensitiveRules:
    """Patterns naming files that tools must not read or write."""

    names: tuple[str, ...] = DEFAULT_NAMES
    dirs: tuple[str, ...] = DEFAULT_DIRS
    paths: tuple[str, ...] = DEFAULT_PATHS
    allow: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = DEFAULT_EXCEPTIONS

    def extended(
        self,
        *,
        names: tuple[str, ...] = (),
        dirs: tuple[str, ...] = (),
        paths: tuple[str, ...] = (),
        allow: tuple[str, ...] = (),
    ) -> SensitiveRules:
        """Return rules with extra patterns added (defaults are kept)."""
        return SensitiveRules(
            names=_merge(self.names, names),
            dirs=_merge(self.dirs, dirs),
            paths=_merge(self.paths, paths),
            allow=_merge(self.allow, allow),
            exceptions=self.exceptions,
        )

    @cached_property
    def _exceptions(self) -> GlobSet:
        return GlobSet(self.exceptions, fold_case=True)

    @cached_property
    def _compiled(self) -> tuple[GlobSet, GlobSet, GlobSet, tuple[tuple[int, GlobSet], ...]]:
        relative: dict[int, list[str]] = {}
        for pat in self.paths:
            if not pat.startswith("/"):
                relative.setdefault(pat.count("/") + 1, []).append(pat)
        by_depth = tuple((d, GlobSet(p, fold_case=True)) for d, p in sorted(relative.items()))
        absolute = GlobSet((p for p in self.paths if p.startswith("/")), fold_case=True)
        return (
            GlobSet(self.names, fold_case=True),
            GlobSet(self.dirs, fold_case=True),
            absolute,
            by_depth,
        )

    @cached_property
    def _without_content_names(self) -> SensitiveRules:
        names = tuple(n for n in self.names if n not in CONTENT_NAMES)
        return SensitiveRules(names, self.dirs, self.paths, self.allow, self.exceptions)

    def content_decides(self, path: str | PurePosixPath) -> bool:
        """True when ``path`` is sensitive only for a name in ``CONTENT_NAMES``."""
        last = str(path).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
        return (
            any(fnmatchcase(last, pattern) for pattern in CONTENT_NAMES)
            and self._without_content_names.match(path) is None
        )

    def match(self, path: str | PurePosixPath) -> str | None:
        """Return a short description of the rule ``path`` hits, or None."""
        text = str(path).replace("\\", "/")
        parts = [p for p in text.split("/") if p not in ("", ".")]
        if not parts:
            return None
        names, dirs, absolute, by_depth = self._compiled
        last = parts[-1]
        if git_plain_file(text):
            return None
        if self.allow and GlobSet(self.allow, fold_case=True).first_match(last):
            return None
        hit = None if self._exceptions.first_match(last) else names.first_match(last)
        if hit:
            return f"file name matches {hit!r}"
        for part in parts:
            hit = dirs.first_match(part)
            if hit:
                return f"inside a {hit!r} directory"
        if text.startswith("/"):
            hit = absolute.first_match("/" + "/".join(parts))
            if hit:
                return f"path matches {hit!r}"
        for depth, globs in by_depth:
            if len(parts) >= depth:
                hit = globs.first_match("/".join(parts[-depth:]))
                if hit:
                    return f"path matches {hit!r}"
        return None


_CATCH_ALL_GLOBS = frozenset({"*", "**", "*.*", "?*", "*?"})


def _sample(pattern: str) -> str:
    """A concrete name matching ``pattern`` (``*``/``?`` -> ``x``, ``[ab]`` -> ``a``)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "*?":
            out.append("x")
        elif ch == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            out.append(pattern[i + 1 : end].lstrip("!^")[:1] or "x")
            i = end
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def glob_may_match(rules: SensitiveRules, component: str) -> str | None:
    """If the glob ``component`` could expand to a sensitive name, say which one.

    Bare catch-alls (``*``, ``**``) are not counted; like bash, a glob only matches a
    leading dot when it starts with one.
    """
    if component in _CATCH_ALL_GLOBS or not any(c in component for c in "*?["):
        return None
    glob = component.lower()
    for pattern in (*rules.names, *rules.dirs):
        sample = _sample(pattern).lower()
        if sample.startswith(".") and not glob.startswith("."):
            continue
        if fnmatchcase(sample, glob):
            return f"the glob {component!r} can match {pattern!r}"
    return None


DEFAULT_SENSITIVE = SensitiveRules()

SHELL_RC_NAMES: frozenset[str] = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
        "config.fish",
        "bash.bashrc",
    }
)


GIT_READABLE: frozenset[tuple[str, ...]] = frozenset(
    {("info",), ("info", "exclude"), ("description",), ("head",), ("commit_editmsg",)}
)
"""Files in a ``.git`` directory that hold no credentials: readable like any file."""
GIT_WRITABLE: frozenset[tuple[str, ...]] = frozenset(
    {("info",), ("info", "exclude"), ("description",), ("commit_editmsg",)}
)
"""Files in a ``.git`` directory that hold neither code nor configuration: writing them
(``echo 'build/' >> .git/info/exclude``) changes nothing that runs."""


def git_plain_file(path: str, *, writing: bool = False) -> bool:
    """True when ``path`` is one of the few files in a ``.git`` directory that are not
    internals (``GIT_READABLE``; ``GIT_WRITABLE`` when ``writing``)."""
    parts = [p.lower() for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".git" not in parts:
        return False
    last_git = len(parts) - 1 - parts[::-1].index(".git")
    tail = tuple(parts[last_git + 1 :])
    return tail in (GIT_WRITABLE if writing else GIT_READABLE)


def is_shell_rc(path: str) -> bool:
    """True when ``path`` names a shell start-up file (writing it runs code later)."""
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
    return name in SHELL_RC_NAMES


def _merge(base: tuple[str, ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    return base + tuple(p for p in extra if p not in base)
