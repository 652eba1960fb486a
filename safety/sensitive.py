"""Sensitive-file rules shared by path validation and the command policy.

A path is sensitive when its last component matches a *name* pattern (and no
*exception*, such as ``.env.example`` or ``*.pub``), any of its components matches a *dir*
pattern, or a trailing run of its components matches a *path* pattern (patterns starting
with ``/`` must match the whole absolute path). Matching is case-insensitive (macOS and
Windows file systems are). Names are grouped by class: environment files, cloud and
package-manager credentials, keys and keystores, Terraform variables and state,
kubeconfigs, shell histories.

Certificates and keys share extensions (``ca.pem`` holds a certificate, ``key.pem`` a
private key; ``talk.key`` is a Keynote document, ``server.key`` a key): listings, searches
and the command policy treat ``CONTENT_NAMES`` as sensitive, but
:func:`safety.validation.validate_path` lets an existing one through when its content says
it holds no secret (``content_decides`` and ``content_clears``); it refuses any file holding
a private key, whatever its name.

A name is also sensitive when it is a backup or editor file of a sensitive name
(``.env~``, ``.npmrc.bak``), and not when it is a template's (``.env.local.example``) or,
for patterns with a wildcard, a source file's (``kubeconfig.go``): see
:mod:`safety.name_variants`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import PurePosixPath

from safety.globset import GlobSet
from safety.name_variants import is_source_code, is_template, original_names

_ENV_FILES = (".env", ".env.*", ".envrc", ".envrc.*", "*.env")
_APP_SECRETS = (
    "database.yml",
    "database.yaml",
    "secrets.yml",
    "secrets.yaml",
    "secrets.json",
    "secrets.toml",
    "master.key",
    "local.settings.json",
    "wp-config.php",
    "key.properties",
    "keystore.properties",
    ".vault_pass*",
    "vault_pass*",
    "*vault-pass*",
    "*vault_password*",
    "*vault-password*",
    "rclone.conf",
    ".authinfo",
    "*.ovpn",
    "*.keychain",
    "*.keychain-db",
    ".dockerconfigjson",
    "wg[0-9]*.conf",
)
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
    "*serviceaccount*.json",
    "firebase-adminsdk*.json",
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
_DATABASES = (".pgpass", "pgpass.conf", ".my.cnf", ".mylogin.cnf", ".htpasswd")
_TERRAFORM = ("*.tfvars", "*.tfvars.json", "*.tfstate", "*.tfstate.*", ".terraformrc")
_KUBE = ("kubeconfig", "kubeconfig.*", "kubeconfig-*", "*.kubeconfig")
_HISTORIES = (
    ".*_history",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
)
# Sensitive by name for listings, searches and the command policy; a file read by a tool is
# decided by content (a private key is refused, a certificate is not).
CONTENT_NAMES: tuple[str, ...] = ("*.pem", "*.crt", "*.cer", "*.key")
_KEYNOTE = ("*.key",)
"""Names a Keynote document shares with keys: cleared when the content is a zip archive."""
_ZIP_MAGIC = b"PK\x03\x04"
DEFAULT_NAMES: tuple[str, ...] = (
    *_ENV_FILES,
    *_APP_SECRETS,
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
    ".envs",
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
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    "composer/auth.json",
    "pypoetry/auth.toml",
    "wireguard/*",
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
    def _allowed(self) -> GlobSet:
        return GlobSet(self.allow, fold_case=True)

    @cached_property
    def _without_content_names(self) -> SensitiveRules:
        names = tuple(n for n in self.names if n not in CONTENT_NAMES)
        return SensitiveRules(names, self.dirs, self.paths, self.allow, self.exceptions)

    def excluded_by_name(self) -> tuple[str, ...]:
        """Globs a search may skip without looking (``rg --iglob !GLOB``): the directories,
        the exact names and the extension patterns (``*.pem``) that no template, source
        file or exception can share. What a search still finds is filtered by ``match``
        (``.env.*`` is not among them: ``.env.example`` is searchable)."""
        kept = []
        for name in self.names:
            wild = any(c in name for c in "*?[")
            extension = name[2:] if name.startswith("*.") else ""
            plain_extension = extension and not any(c in extension for c in "*?[")
            if not wild or (plain_extension and not is_source_code("x." + extension)):
                kept.append(name)
        return (*kept, *self.dirs)

    def content_clears(self, path: str | PurePosixPath, head: bytes) -> bool:
        """For a name in ``CONTENT_NAMES``: True when the file's first bytes say it is not a
        secret by its name (a Keynote ``.key`` is a zip archive; a certificate's name is
        cleared here, its content is checked for a private key by the caller)."""
        last = str(path).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
        if any(fnmatchcase(last, pattern) for pattern in _KEYNOTE):
            return head.startswith(_ZIP_MAGIC)
        return True

    def content_decides(self, path: str | PurePosixPath) -> bool:
        """True when ``path`` is sensitive only for a name in ``CONTENT_NAMES``."""
        last = str(path).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
        return (
            any(fnmatchcase(last, pattern) for pattern in CONTENT_NAMES)
            and self._without_content_names.match(path) is None
        )

    def name_match(self, name: str, chain: list[str] | None = None) -> str | None:
        """The name pattern a file name hits, itself or as a backup or editor file of a
        sensitive name (``chain``: its ``original_names``); None for templates, exceptions
        and (for patterns with a wildcard) source files."""
        chain = chain or original_names(name)
        names = self._compiled[0]
        if not any(candidate in names for candidate in chain):
            return None  # the common case: one regular-expression match
        if any(is_template(n) or self._exceptions.first_match(n) for n in chain):
            return None
        source = next((n for n in chain if is_source_code(n)), None)
        for candidate in chain:
            hit = names.first_match(candidate)
            if hit and source is not None:
                hit = self._pattern_for_source(candidate, source)
            if hit:
                return hit if candidate == name else f"{hit} (as a copy {name!r})"
        return None

    def _pattern_for_source(self, candidate: str, source: str) -> str | None:
        """A pattern ``candidate`` matches that names a source file's extension itself
        (``wp-config.php``, a user's ``*.md``), not one that only has a wildcard there
        (``kubeconfig.*``)."""
        extension = "." + source.rsplit(".", 1)[-1].lower()
        lowered = candidate.lower()
        for pattern in self.names:
            wild = any(c in pattern for c in "*?[")
            if (not wild or pattern.lower().endswith(extension)) and fnmatchcase(
                lowered, pattern.lower()
            ):
                return pattern
        return None

    def match(self, path: str | PurePosixPath) -> str | None:
        """Return a short description of the rule ``path`` hits, or None."""
        text = str(path).replace("\\", "/")
        parts = [p for p in text.split("/") if p not in ("", ".")]
        if not parts:
            return None
        _, dirs, absolute, by_depth = self._compiled
        last = parts[-1]
        if ".git" in text.lower() and git_plain_file(text):
            return None
        if self.allow and self._allowed.first_match(last):
            return None
        chain = original_names(last)
        hit = self.name_match(last, chain)
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
            if len(parts) < depth:
                continue
            head = "/".join(parts[-depth:-1])
            for name in chain:
                hit = globs.first_match(f"{head}/{name}" if head else name)
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
