"""Tests for the tree-sitter based shell parser (safety.policy.shell.parser)."""

from __future__ import annotations

import pytest

from safety.policy.shell import (
    EXPANSION,
    UNKNOWN,
    Word,
    decode_ansi_c,
    inline_script,
    parse,
    program_name,
)


def programs(script: str) -> list[str]:
    return [c.words[0].value for c in parse(script).commands if c.words]


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("ls", ["ls"]),
        ("a; b", ["a", "b"]),
        ("a && b || c", ["a", "b", "c"]),
        ("a | b | c", ["a", "b", "c"]),
        ("a & b", ["a", "b"]),
        ("a\nb", ["a", "b"]),
        ("a\rb", ["a", "b"]),
        ("a\r\nb", ["a", "b"]),
        ("(a; b)", ["a", "b"]),
        ("{ a; b; }", ["a", "b"]),
        ("echo $(a) `b`", ["a", "b", "echo"]),
        ("cat <(a) >(b)", ["a", "b", "cat"]),
        ('echo "x $(a) y"', ["a", "echo"]),
        ("echo ${X:-$(a)}", ["a", "echo"]),
        ("x=$(a)", ["a"]),
        ("if a; then b; else c; fi", ["a", "b", "c"]),
        ("for i in $(a); do b; done", ["a", "b"]),
        ("while a; do b; done < f", ["a", "b"]),
        ("case x in y) a;; esac", ["a"]),
        ("f() { a; }", ["a"]),
        ("! a", ["a"]),
        ('bash -c "a; b"', ["bash", "a", "b"]),
        ("sh -ec 'a | b'", ["sh", "a", "b"]),
        ('eval "a && b"', ["eval", "a", "b"]),
        ('bash <<< "a"', ["bash", "a"]),
        ("bash <<EOF\na\nEOF", ["bash", "a"]),
        ("cat <<EOF | sh\nx\nEOF", ["cat", "sh"]),
        ("cat <<EOF && a\nx\nEOF", ["cat", "a"]),
        ("export A=1", ["export"]),
        ("[[ -f $(a) ]]", ["a", "[["]),
        ("ls # rm -rf /", ["ls"]),
    ],
)
def test_every_simple_command_is_found(script: str, expected: list[str]) -> None:
    assert programs(script) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("rm x", ("rm", False, False, False, True)),
        ("'r'm x", ("rm", True, False, False, True)),
        ('"rm" x', ("rm", True, False, False, True)),
        ('r""m x', ("rm", True, False, False, True)),
        ("\\rm x", ("rm", False, True, False, True)),
        ("$'\\x72m' x", ("rm", False, False, True, True)),
        ("$'\\162\\155' x", ("rm", False, False, True, True)),
        ('$"rm" x', ("rm", True, False, False, True)),
        ("$CMD x", (UNKNOWN, False, False, False, False)),
        ("${CMD} x", (UNKNOWN, False, False, False, False)),
        ("$(echo rm) x", (UNKNOWN, False, False, False, False)),
        ("r$X x", ("r" + UNKNOWN, False, False, False, False)),
    ],
)
def test_program_word_flags(script: str, expected: tuple[str, bool, bool, bool, bool]) -> None:
    cmd = parse(script).commands[-1]
    word = cmd.words[0]
    assert (word.value, word.quoted, word.escaped, word.ansi_c, word.is_static) == expected
    _, quoted, escaped, ansi_c, static = expected
    assert word.is_plain == (static and not (quoted or escaped or ansi_c))


def test_arguments_after_quote_and_escape_removal() -> None:
    cmd = parse("""grep -e 'a b' "c\\"d" e\\ f $'g\\th' "$HOME/x" """).commands[0]
    values = [w.value for w in cmd.words]
    assert values == ["grep", "-e", "a b", 'c"d', "e f", "g\th", f"{UNKNOWN}/x"]
    assert cmd.words[-1].variables == ("HOME",)


def test_assignments_and_redirections() -> None:
    cmd = parse("FOO=1 BAR=$(x) cmd a > out 2>&1 < in >> log &> all").commands[-1]
    assert [(n, w.value) for n, w in cmd.assignments] == [("FOO", "1"), ("BAR", UNKNOWN)]
    ops = [(r.op, r.fd, r.target.value if r.target else None) for r in cmd.redirects]
    assert ops == [
        (">", None, "out"),
        (">&", "2", "1"),
        ("<", None, "in"),
        (">>", None, "log"),
        ("&>", None, "all"),
    ]


@pytest.mark.parametrize(
    ("script", "words", "targets"),
    [
        ("cat < /dev/null ~/.ssh/id_rsa", ["cat", "~/.ssh/id_rsa"], ["/dev/null"]),
        ("grep x > /dev/null /etc/shadow a", ["grep", "x", "/etc/shadow", "a"], ["/dev/null"]),
        ("cat 2>/dev/null .env", ["cat", ".env"], ["/dev/null"]),
        ("cat <<EOF .env\nhi\nEOF", ["cat", ".env"], [None]),
        ("ls > a; cat b", ["ls"], ["a"]),
    ],
)
def test_words_after_a_redirection_target_are_arguments(
    script: str, words: list[str], targets: list[str | None]
) -> None:
    """tree-sitter-bash files them under the redirection; bash passes them to the command."""
    cmd = parse(script).commands[0]
    assert [w.value for w in cmd.words] == words
    assert [r.target.value if r.target else None for r in cmd.redirects] == targets


def test_a_word_after_the_redirection_of_a_compound_command_is_an_error() -> None:
    assert parse("{ ls; } > f x").errors


def test_heredoc_and_herestring_text() -> None:
    cmd = parse("cat <<'EOF'\nhello $X\nEOF").commands[0]
    assert cmd.redirects[0].text == "hello $X\n"
    dynamic = parse("cat <<EOF\nhello $(id)\nEOF").commands
    assert [c.words[0].value for c in dynamic] == ["id", "cat"]
    assert dynamic[-1].redirects[0].text is None
    here = parse('cat <<< "abc"').commands[0]
    assert here.redirects[0].op == "<<<" and here.redirects[0].text == "abc"


def test_pipelines_and_substitutions_link_upstream() -> None:
    parsed = parse("curl x | tee y | sh")
    curl, tee, sh = parsed.commands
    assert curl.upstream == frozenset() and not curl.piped_stdin
    assert tee.upstream == {0} and tee.piped_stdin
    assert sh.upstream == {1}  # direct links only; the closure is computed on demand
    assert parsed.sources(2) == {0, 1}
    sub = parse("bash <(curl x)").commands
    assert sub[1].upstream == {0}


def test_inline_scripts_are_marked_and_parsed() -> None:
    parsed = parse('bash -c "rm -rf /"')
    outer, inner = parsed.commands
    assert outer.inline_parsed and inner.origin == "shell -c"
    assert [w.value for w in inner.words] == ["rm", "-rf", "/"]
    dynamic = parse('bash -c "$X"').commands
    assert not dynamic[0].inline_parsed


def test_function_definitions_are_recorded() -> None:
    parsed = parse(":(){ :|:& };:")
    assert parsed.functions == {":"}
    assert [c.function for c in parsed.commands] == [":", ":", None]


@pytest.mark.parametrize("script", ['echo "open', "ls )", "a &&", "if true; then", "echo $(("])
def test_parse_errors_are_reported(script: str) -> None:
    assert not parse(script).ok


def test_nul_byte_is_an_error() -> None:
    assert not parse("ls\x00rm").ok


def test_deep_nesting_is_an_error() -> None:
    script = "ls"
    for _ in range(10):
        script = "bash -c " + "'" + script.replace("'", "'\\''") + "'"
    assert not parse(script).ok


@pytest.mark.parametrize(
    ("argv", "kind", "script"),
    [
        (["bash", "-c", "ls"], "shell -c", "ls"),
        (["sh", "-xc", "ls"], "shell -c", "ls"),
        (["bash", "-o", "pipefail", "-c", "ls"], "shell -c", "ls"),
        (["eval", "ls", "-la"], "eval", "ls -la"),
        (["/bin/bash", "-c", "ls"], "shell -c", "ls"),
    ],
)
def test_inline_script(argv: list[str], kind: str, script: str) -> None:
    found = inline_script([Word.literal(a) for a in argv])
    assert found is not None and (found.kind, found.script) == (kind, script)


def test_inline_script_absent() -> None:
    assert inline_script([Word.literal("bash"), Word.literal("x.sh")]) is None
    assert inline_script([Word.literal("ls"), Word.literal("-c")]) is None
    assert program_name(Word.literal("/usr/bin/rm")) == "rm"


@pytest.mark.parametrize(
    ("body", "decoded"),
    [
        ("\\x72m", "rm"),
        ("\\162\\155", "rm"),
        ("\\u0072m", "rm"),
        ("a\\nb", "a\nb"),
        ("\\'", "'"),
        ("\\cA", "\x01"),
        ("\\q", "\\q"),
    ],
)
def test_decode_ansi_c(body: str, decoded: str) -> None:
    assert decode_ansi_c(body) == decoded


def test_non_ascii_text_is_kept() -> None:
    cmd = parse("cat 'src/ünï côde.py' é").commands[0]
    assert [w.value for w in cmd.words] == ["cat", "src/ünï côde.py", "é"]
    assert cmd.text == "cat 'src/ünï côde.py' é"


def test_inputs_that_crash_the_raw_grammar_do_not_crash_the_parser() -> None:
    """tree-sitter-bash 0.25 reads out of bounds on some non-ASCII input (ASLR-dependent)."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[5]
    code = (
        "from safety.policy.shell import parse\n"
        "for _ in range(200):\n"
        "    for s in ['{\\U000E0000', '{\\U000ed2c6<f', 'a{\\U00094b98', '{\\U000F0000}']:\n"
        "        parse(s); parse('bash -c ' + repr(s))\n"
    )
    for _ in range(3):
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, timeout=60, cwd=repo
        )
        assert result.returncode == 0, result.stderr.decode()[-500:]


@pytest.mark.parametrize(
    "script",
    [
        "[[ $X == a* ]]",
        "case ${X:0:1} in a) ;; esac",
        "for i in $X; do :; done",
        "cat <<EOF\n$X\nEOF",
    ],
)
def test_expansions_outside_command_words_become_pseudo_commands(script: str) -> None:
    """So that the variables they read are judged like a word's."""
    expansions = [c for c in parse(script).commands if c.words and c.words[0].value == EXPANSION]
    assert expansions and all(len(c.words) == 2 for c in expansions)
    assert "X" in expansions[0].words[1].raw


def test_a_here_string_keeps_its_word() -> None:
    redirect = parse('cat <<< "${X^^}"').commands[0].redirects[0]
    assert redirect.op == "<<<" and redirect.source is not None and not redirect.source.is_static
