"""Named checks that program rules reference (``checks = [...]`` in the policy data).

This module holds the registry and the checks on files, processes and the machine;
checks on programs that run code are in :mod:`safety.policy.code_checks`. Each check
only adds findings (it never loosens the rule's own verdict).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from safety.policy import code_checks as code
from safety.policy.args import ParsedArgs, split_word
from safety.policy.paths import PathKind
from safety.policy.rules import ProgramRule
from safety.policy.shell import Word

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


def check_ps(
    ev: Evaluator, rule: ProgramRule, words: Sequence[Word], args: ParsedArgs, _: int
) -> None:
    """BSD-style ``ps e`` prints process environments."""
    if any("e" in w.value for w in args.positionals):
        ev.hit("ps.environment", " ".join(w.value for w in words))


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
        "cwd_unknown": check_cwd_unknown,
        "declare": check_declare,
        "test": check_test,
        "set": check_set,
        "ps": check_ps,
        "env_dump": check_env_dump,
        "runlevel": check_runlevel,
    }
)
