"""Named checks that program rules reference (``checks = [...]`` in the policy data).

This module holds the registry and the checks on files, processes and the machine;
checks on programs that run code are in :mod:`safety.policy.code_checks`. Each check
only adds findings (it never loosens the rule's own verdict).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from safety.policy import code_checks as code
from safety.policy.args import ParsedArgs, split_word
from safety.policy.disk import foreign_repository
from safety.policy.paths import PathKind
from safety.policy.rules import ProgramRule
from safety.policy.shell import UNKNOWN, Word

if TYPE_CHECKING:
    from safety.policy.evaluator import Evaluator

Check = Callable[["Evaluator", ProgramRule, Sequence[Word], ParsedArgs, int], None]

_EXEC_FLAGS = ("-exec", "-execdir", "-ok", "-okdir")
_MODE_FLAG = re.compile(r"-[rwxXstugoa=+,0-7]+")


def check_rm(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """rm/rmdir/unlink/shred: deleting outside the workspace, the root or .git is denied."""
    if args.has("--no-preserve-root"):
        ev.hit("deny.no_preserve_root")
    if not args.positionals:
        ev.hit("rm.from_input", words[0].value)
    for target in args.positionals:
        for info in ev.classify(target):
            if info.temp:
                ev.hit("rm.temp", info.shown)
            elif info.kind in (PathKind.OUTSIDE, PathKind.NULL):
                ev.hit("deny.rm_outside", info.shown)
            elif info.kind is PathKind.WORKSPACE_ROOT:
                ev.hit("deny.rm_workspace", target.raw)
            elif info.git_internal and _git_lock_file(info.shown):
                ev.hit("rm.git_lock", info.shown)
            elif info.git_internal:
                ev.hit("deny.rm_git", info.shown)
            elif info.kind is PathKind.DYNAMIC:
                ev.hit("rm.dynamic", info.shown)
            elif info.sensitive:
                ev.hit("path.sensitive", f"{info.shown} ({info.sensitive})")


def _git_lock_file(path: str) -> bool:
    """A lock file git left behind (``.git/index.lock``): deleting it is routine."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name.endswith(".lock") and len(name) > 5 and not any(c in path for c in "*?[{")


def check_dd(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """dd operands: ``of=`` a device is denied; other ``of=``/``if=`` are judged as paths."""
    for word in words[1:]:
        if word.value.startswith("of="):
            target = split_word(word, 3)
            infos = ev.classify(target)
            if any(i.device and i.kind is not PathKind.NULL for i in infos):
                ev.hit("deny.dd_device", target.value)
            else:
                ev.path_write(target)
        elif word.value.startswith("if="):
            ev.path_read(split_word(word, 3))


def check_kill(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """kill with pid -1 signals every process: denied."""
    signal_seen = ended = False
    pids: list[str] = []
    values = [w.value for w in words[1:]]
    i = 0
    while i < len(values):
        value = values[i]
        if ended:
            pids.append(value)
        elif value == "--":
            ended = True
        elif value in ("-s", "-n"):
            signal_seen = True
            i += 1
        elif value in ("-l", "-L", "--list", "--table"):
            return
        elif value.startswith("-") and len(value) > 1 and not signal_seen:
            signal_seen = True
        else:
            pids.append(value)
        i += 1
    if "-1" in pids:
        ev.hit("deny.kill_all", " ".join(values))


def check_chmod(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """chmod/chown/chgrp: recursive on a system path is denied; targets are writes."""
    mode_in_flags = any(_MODE_FLAG.fullmatch(w.value) and w.value != "-R" for w in words[1:])
    positionals = list(args.positionals)
    reference = args.has("--reference")
    targets = positionals if mode_in_flags or reference else positionals[1:]
    recursive = args.has("-R", "--recursive")
    for target in targets:
        infos = ev.classify(target)
        if recursive and any(i.kind is PathKind.OUTSIDE and i.system for i in infos):
            ev.hit("deny.chmod_system", f"{words[0].value} -R {target.raw}")
        ev.path_write(target)


def check_find(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, depth: int
) -> None:
    """find: start paths are reads; -exec commands are judged; -delete outside is denied."""
    starts: list[Word] = []
    for word in words[1:]:
        if word.value.startswith(("-", "(", "!", ")")):
            break
        starts.append(word)
    for start in starts:
        ev.path_read(start)
    base = (starts[0].value if starts and starts[0].is_static else ".").rstrip("/") or "/"
    values = [w.value for w in words]
    for i, value in enumerate(values):
        if value in _EXEC_FLAGS:
            end = next((k for k in range(i + 1, len(values)) if values[k] in (";", "+")), None)
            inner = [_fill(w, base) for w in words[i + 1 : end]]
            if inner:
                ev.argv(inner, depth + 1)
    if "-delete" in values:
        for start in starts or [Word.literal(".")]:
            if any(i.kind is PathKind.OUTSIDE for i in ev.classify(start)):
                ev.hit("deny.rm_outside", f"find {start.raw} -delete")


def _fill(word: Word, base: str) -> Word:
    if word.is_static and "{}" in word.value:
        return Word.literal(word.value.replace("{}", f"{base}/found-file"))
    return word


def check_ln(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """ln: the link is a write; a hard link's target is a file made writable under a new
    name (judged as a write); a symbolic link's target is resolved from the link's
    directory (``ln -r``: from here) and asks when it leaves the workspace or names a
    secret (reading through the link later is not judged)."""
    operands = list(args.positionals)
    directories = args.values("-t", "--target-directory")
    if not directories and len(operands) > 1:
        *targets, last = operands
        ev.path_write(last)
        # ``ln -s T NAME``: the link is NAME, or NAME/T when NAME is a directory
        if last.value.endswith("/"):
            bases = [last.value]
        elif args.has("-T", "--no-target-directory"):
            bases = [_parent(last.value)]
        else:
            bases = [_parent(last.value), last.value]
    else:
        targets = operands
        bases = [d.value for d in directories] or ["."]
    if not args.has("-s", "--symbolic"):
        for target in targets:
            ev.path_write(target)
        return
    relative_to_here = args.has("-r", "--relative")
    for target in targets:
        for base in ["."] if relative_to_here else bases:
            _link_target(ev, target, base)


def _parent(path: str) -> str:
    head = path.rstrip("/").rpartition("/")[0]
    return head or ("/" if path.startswith("/") else ".")


def _link_target(ev: Evaluator, target: Word, base: str) -> None:
    """Judge where a symbolic link in ``base`` whose text is ``target`` points."""
    if not target.is_static or UNKNOWN in base:
        ev.hit("path.dynamic", target.raw)
        return
    text = target.value
    where = text if text.startswith(("/", "~")) else posixpath.join(base, text)
    for info in ev.classify(Word.literal(where)):
        if info.sensitive:
            ev.hit("path.sensitive", f"{target.raw} ({info.sensitive})")
        elif info.kind in (PathKind.OUTSIDE, PathKind.DYNAMIC, PathKind.REMOTE):
            ev.hit("link.outside", f"{target.raw} -> {info.shown}")


def check_git_repository(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """git below the workspace root: in a directory that is (or is inside) another
    repository, git would take that repository's configuration, which can run programs
    (an embedded bare repository's ``diff.external``)."""
    cwd = ev.cwd
    if cwd is None or cwd == "." or cwd.startswith("/"):
        return  # the root, or a directory that already asked (cd.outside)
    reason = foreign_repository(ev.workspace, cwd)
    if reason:
        ev.hit("git.other_repository", reason)


def check_cd(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """cd/pushd: track the directory; leaving the workspace needs approval."""
    target = args.positionals[0] if args.positionals else None
    if target is None or target.value in ("~", "-"):
        ev.cwd = None
        ev.hit("cd.outside", target.raw if target else "home directory")
        return
    ev.chdir(target)


def check_cwd_unknown(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """popd: the directory afterwards is not known."""
    ev.cwd = None


def check_declare(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """export/declare/typeset/readonly without names print the environment; ``-n`` makes
    a name reference (assigning through it sets the variable it names); array subscripts
    in the names are evaluated."""
    if args.has("-n") and words[0].value != "export":
        ev.hit("env.nameref", " ".join(w.raw for w in words))
    for word in args.positionals:
        ev.variable_name(word, assigns=False)
        if args.has("-p") and word.value in ev.rules.secret_variables:
            ev.hit("env.secret_variable", f"{words[0].value} -p {word.raw}")
    if args.positionals or args.has("-f", "-F"):
        return
    ev.hit("env.dump", " ".join(w.value for w in words))


def check_test(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """``test -v NAME`` / ``[ -v NAME ]``: bash evaluates an array subscript in NAME."""
    for i in range(1, len(words) - 1):
        if words[i].value in ("-v", "-R"):
            ev.variable_name(words[i + 1], assigns=False)


def check_set(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """``set`` alone prints every variable."""
    if len(words) == 1:
        ev.hit("env.dump", "set")


def check_env_dump(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """printenv and friends print the environment."""
    ev.hit("env.dump", " ".join(w.value for w in words))


_PS_ARGUMENT_FIELDS = frozenset({"args", "cmd", "command", "%a", "cmdline"})
_PS_FULL_FORMATS = frozenset({"-f", "-F"})


def check_ps(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """ps: BSD-style ``ps e`` prints process environments; BSD-style selections
    (``ps aux``), full formats (``-f``) and formats with ``args`` print every process's
    command line, where other programs' tokens and passwords are."""
    shown = " ".join(w.value for w in words)
    if any("e" in w.value for w in args.positionals):
        ev.hit("ps.environment", shown)
    fields = [
        field.split("=", 1)[0].split(":", 1)[0].strip().lower()
        for value in args.values("-o", "-O", "--format")
        for field in value.value.replace(" ", ",").split(",")
    ]
    if (
        args.positionals
        or any(f.name in _PS_FULL_FORMATS for f in args.flags)
        # ps -aux is read as ps aux (BSD x: every process, with its command line)
        or any(w.value[:1] == "-" and w.value[1:2] != "-" and "x" in w.value for w in words[1:])
        or any(f in _PS_ARGUMENT_FIELDS for f in fields)
    ):
        ev.hit("ps.arguments", shown)


_PATCH_FLAGS = frozenset(
    {
        "-p",
        "-u",
        "--patch",
        "--patch-with-stat",
        "--patch-with-raw",
        "--cc",
        "-U",
        "--unified",
        "--word-diff",
        "--word-diff-regex",
        "--color-words",
        "--binary",
        "--full-diff",
        "-m",
        "--diff-merges",
        "--remerge-diff",
        "--dd",
        "--ext-diff",
        "--textconv",
    }
)
_EVERY_REVISION = frozenset(
    {
        "--all",
        "--branches",
        "--tags",
        "--remotes",
        "--glob",
        "--reflog",
        "-g",
        "--walk-reflogs",
        "--stdin",
        "--alternate-refs",
        "--indexed-objects",
        "--exclude-hidden",
    }
)


def check_git_history(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """git log/show/diff-tree printing patches of every commit (``--all``, ``--reflog``)
    or of revisions read from the input (``--stdin``): committed secrets come back."""
    names = {f.name for f in args.flags}
    every = names & _EVERY_REVISION
    if not every:
        return
    patches = rule.name == "show" or bool(names & _PATCH_FLAGS)
    if patches:
        ev.hit("git.history_patches", " ".join(sorted(every)))


_METADATA_ONLY = frozenset({"-t", "-s", "-e", "--batch-check"})
_HASH = re.compile(r"[0-9a-fA-F]{4,64}")


def check_git_object(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """git cat-file printing an object named by its hash: what it holds cannot be known
    (``git ls-tree HEAD`` gives the hash of a committed ``.env``)."""
    if any(f.name in _METADATA_ONLY for f in args.flags):
        return
    for word in args.positionals:
        if not word.is_static or _HASH.fullmatch(word.value):
            ev.hit("git.object_by_hash", word.raw)


def check_runlevel(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """init/telinit 0 or 6 halts or reboots the machine."""
    if any(w.value in ("0", "6") for w in args.positionals):
        ev.hit("deny.runlevel", " ".join(w.value for w in words))


CHECKS: Mapping[str, Check] = MappingProxyType(
    {
        "rm": check_rm,
        "dd": check_dd,
        "kill": check_kill,
        "chmod": check_chmod,
        "find": check_find,
        "sed": code.check_sed,
        "awk": code.check_awk,
        "jq": code.check_jq,
        "shell": code.check_shell,
        "eval": code.check_eval,
        "source": code.check_source,
        "interpreter": code.check_interpreter,
        "make": code.check_make,
        "cd": check_cd,
        "ln": check_ln,
        "git_repository": check_git_repository,
        "cwd_unknown": check_cwd_unknown,
        "declare": check_declare,
        "test": check_test,
        "set": check_set,
        "ps": check_ps,
        "env_dump": check_env_dump,
        "runlevel": check_runlevel,
        "git_history": check_git_history,
        "git_object": check_git_object,
    }
)
