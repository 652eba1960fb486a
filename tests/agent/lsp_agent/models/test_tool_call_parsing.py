"""Tool calls written as text: every accepted form, every repair, and failures with reasons."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_agent.models.tool_call_parsing import (
    ParseFailure,
    ParseSuccess,
    loads_lenient,
    normalise_arguments,
    parse_tool_calls_from_text,
)

TOOLS = {
    "read_file": ["path", "start_line", "end_line"],
    "rg_search": ["pattern", "glob"],
    "git_status": [],
    "final_answer": ["answer"],
}
READ = ("read_file", {"path": "a.py"})
READ_JSON = '{"name": "read_file", "arguments": {"path": "a.py"}}'
GIT_JSON = '{"name": "git_status", "arguments": {}}'

# (id, text, expected calls as (name, arguments), a repair note that must appear or None)
CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]], str | None]] = [
    ("bare-json", '{"name": "read_file", "arguments": {"path": "a.py"}}', [READ], None),
    (
        "fenced-json",
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
        [READ],
        None,
    ),
    (
        "fenced-plain",
        '```\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
        [READ],
        None,
    ),
    ("tool-key", '{"tool": "read_file", "arguments": {"path": "a.py"}}', [READ], None),
    ("tool-args", '{"tool": "read_file", "args": {"path": "a.py"}}', [READ], None),
    ("parameters", '{"name": "read_file", "parameters": {"path": "a.py"}}', [READ], None),
    ("tool_name-input", '{"tool_name": "read_file", "input": {"path": "a.py"}}', [READ], None),
    (
        "openai-function",
        '{"type": "function", "function": {"name": "read_file", "arguments": {"path": "a.py"}}}',
        [READ],
        None,
    ),
    (
        "openai-function-string-args",
        '{"function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}}',
        [READ],
        "decoded arguments given as a JSON string",
    ),
    ("action-input", '{"action": "read_file", "action_input": {"path": "a.py"}}', [READ], None),
    (
        "list-of-calls",
        f"[{READ_JSON}, {GIT_JSON}]",
        [READ, ("git_status", {})],
        None,
    ),
    (
        "tool_calls-key",
        '{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}',
        [READ],
        None,
    ),
    (
        "two-objects",
        f"{READ_JSON}\n{GIT_JSON}",
        [READ, ("git_status", {})],
        None,
    ),
    (
        "qwen-tag",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>',
        [READ],
        None,
    ),
    (
        "qwen-tag-unclosed",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}',
        [READ],
        None,
    ),
    (
        "qwen-two-tags",
        f"<tool_call>{READ_JSON}</tool_call>\n<tool_call>{GIT_JSON}</tool_call>",
        [READ, ("git_status", {})],
        None,
    ),
    ("tag-python-call", "<tool_call>read_file(path='a.py')</tool_call>", [READ], None),
    ("python-call", 'read_file(path="a.py")', [READ], None),
    (
        "python-call-int",
        'read_file(path="a.py", start_line=3)',
        [("read_file", {"path": "a.py", "start_line": 3})],
        None,
    ),
    ("python-call-in-prose", 'I will now call read_file(path="a.py") to look.', [READ], None),
    (
        "python-positional",
        'read_file("a.py", 1, 10)',
        [("read_file", {"path": "a.py", "start_line": 1, "end_line": 10})],
        "named the positional arguments",
    ),
    (
        "python-prefixed",
        'functions.read_file(path="a.py")',
        [READ],
        None,
    ),
    (
        "python-json-words",
        'rg_search(pattern="x", glob=null)',
        [("rg_search", {"pattern": "x", "glob": None})],
        None,
    ),
    (
        "python-negative",
        'read_file(path="a.py", start_line=-1)',
        [("read_file", {"path": "a.py", "start_line": -1})],
        None,
    ),
    ("python-fenced", '```python\nread_file(path="a.py")\n```', [READ], None),
    (
        "single-quotes",
        "{'name': 'read_file', 'arguments': {'path': 'a.py'}}",
        [READ],
        "single quotes",
    ),
    (
        "trailing-comma",
        '{"name": "read_file", "arguments": {"path": "a.py",},}',
        [READ],
        "trailing commas",
    ),
    ("unquoted-keys", '{name: "read_file", arguments: {path: "a.py"}}', [READ], "unquoted keys"),
    (
        "python-literals",
        '{"name": "rg_search", "arguments": {"pattern": "x", "glob": None}}',
        [("rg_search", {"pattern": "x", "glob": None})],
        "Python literals",
    ),
    (
        "python-true",
        "{'name': 'read_file', 'arguments': {'path': 'a.py', 'start_line': True}}",
        [("read_file", {"path": "a.py", "start_line": True})],
        "single quotes",
    ),
    (
        "args-as-json-string",
        '{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}',
        [READ],
        "decoded arguments given as a JSON string",
    ),
    (
        "args-as-single-quoted-string",
        '{"name": "read_file", "arguments": "{\'path\': \'a.py\'}"}',
        [READ],
        "single quotes",
    ),
    (
        "missing-closing-braces",
        '{"name": "read_file", "arguments": {"path": "a.py"',
        [READ],
        "added missing closing brackets",
    ),
    (
        "missing-quote-and-braces",
        '{"name": "read_file", "arguments": {"path": "a.py',
        [READ],
        "added missing closing brackets",
    ),
    (
        "extra-closing-braces",
        '{"name": "read_file", "arguments": {"path": "a.py"}}}}',
        [READ],
        "ignored text around the call",
    ),
    (
        "text-before",
        'Sure! Here is the call:\n{"name": "read_file", "arguments": {"path": "a.py"}}',
        [READ],
        "ignored text around the call",
    ),
    (
        "text-after",
        '{"name": "read_file", "arguments": {"path": "a.py"}}\nThis reads the file.',
        [READ],
        "ignored text around the call",
    ),
    (
        "braces-in-prose-first",
        'Use {curly} braces, then {"name": "read_file", "arguments": {"path": "a.py"}}',
        [READ],
        None,
    ),
    (
        "raw-newline-in-string",
        '{"name": "rg_search", "arguments": {"pattern": "a\nb"}}',
        [("rg_search", {"pattern": "a\nb"})],
        "raw control characters inside strings",
    ),
    (
        "prefix-functions",
        '{"name": "functions.read_file", "arguments": {"path": "a.py"}}',
        [READ],
        "removed the `functions.` prefix from the tool name",
    ),
    ("no-arguments-key", '{"name": "git_status"}', [("git_status", {})], None),
    (
        "arguments-beside-name",
        '{"name": "read_file", "path": "a.py"}',
        [READ],
        "took the arguments from beside the tool name",
    ),
    (
        "final-answer-key",
        '{"final_answer": "All done."}',
        [("final_answer", {"answer": "All done."})],
        None,
    ),
    (
        "final-answer-nested",
        '{"final_answer": {"answer": "All done."}}',
        [("final_answer", {"answer": "All done."})],
        None,
    ),
    (
        "final-answer-plain-args",
        '{"name": "final_answer", "arguments": "All done."}',
        [("final_answer", {"answer": "All done."})],
        "arguments were plain text",
    ),
    (
        "final-answer-text",
        "Final Answer: the bug is on line 3",
        [("final_answer", {"answer": "the bug is on line 3"})],
        "read `Final Answer:` text as a final_answer call",
    ),
    ("final-answer-bold", "**Final Answer:** 42", [("final_answer", {"answer": "42"})], None),
    ("tool-name-as-key", '{"read_file": {"path": "a.py"}}', [READ], None),
    (
        "unicode-argument",
        '{"name": "rg_search", "arguments": {"pattern": "héllo ✓"}}',
        [("rg_search", {"pattern": "héllo ✓"})],
        None,
    ),
    (
        "escaped-slash-single-quotes",
        "{'name': 'rg_search', 'arguments': {'pattern': 'a\\/b'}}",
        [("rg_search", {"pattern": "a/b"})],
        "single quotes",
    ),
    (
        "nested-diff-argument",
        '{"name": "rg_search", "arguments": {"pattern": "def f(x): return {\\"a\\": [1, 2]}"}}',
        [("rg_search", {"pattern": 'def f(x): return {"a": [1, 2]}'})],
        None,
    ),
]

FAILURES: list[tuple[str, str, str]] = [
    ("empty", "", "empty"),
    ("whitespace", "   \n\t ", "empty"),
    ("prose", "I think the bug is in the parser.", "no tool call"),
    ("json-without-name", '{"path": "a.py"}', "names no tool"),
    ("unreadable-json", '{"name": read_file, "arguments": {path: a.py}}', "no tool call"),
    ("python-call-non-literal", "read_file(path=some_variable)", "no tool call"),
    ("python-call-unknown-in-prose", "You could call open(path) here.", "no tool call"),
    ("python-call-ellipsis", "read_file(path=...)", "no tool call"),
    ("too-long", "x" * 300_000, "too long"),
    ("numbers-only", "[1, 2, 3]", "no tool call"),
]


def _as_pairs(result: ParseSuccess) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in result.calls]


@pytest.mark.parametrize(
    ("text", "expected", "note"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_parses_calls_written_as_text(
    text: str, expected: list[tuple[str, dict[str, Any]]], note: str | None
) -> None:
    result = parse_tool_calls_from_text(text, TOOLS)
    assert isinstance(result, ParseSuccess), result
    assert _as_pairs(result) == expected
    if note is not None:
        assert note in result.repairs


def test_the_table_has_at_least_forty_cases() -> None:
    assert len(CASES) + len(FAILURES) >= 40


@pytest.mark.parametrize(
    ("text", "reason"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES]
)
def test_failures_carry_a_short_reason(text: str, reason: str) -> None:
    result = parse_tool_calls_from_text(text, TOOLS)
    assert isinstance(result, ParseFailure), result
    assert reason in result.reason
    assert len(result.reason) < 120


def test_clean_json_reports_no_repairs_and_its_source() -> None:
    result = parse_tool_calls_from_text('{"name": "git_status", "arguments": {}}', TOOLS)
    assert isinstance(result, ParseSuccess)
    assert result.repairs == ()
    assert result.source == "json"
    tagged = parse_tool_calls_from_text('<tool_call>{"name": "git_status"}</tool_call>', TOOLS)
    assert isinstance(tagged, ParseSuccess) and tagged.source == "tool_call_tag"


def test_python_call_of_an_unknown_name_counts_only_as_the_whole_reply() -> None:
    whole = parse_tool_calls_from_text('open_file(path="a.py")', TOOLS)
    assert isinstance(whole, ParseSuccess)
    assert _as_pairs(whole) == [("open_file", {"path": "a.py"})]
    in_prose = parse_tool_calls_from_text('Maybe open_file(path="a.py") works.', TOOLS)
    assert isinstance(in_prose, ParseFailure)


def test_without_tool_names_positional_values_stay_positional() -> None:
    result = parse_tool_calls_from_text('read_file("a.py")')
    assert isinstance(result, ParseSuccess)
    assert result.calls[0].positional == ("a.py",)
    assert result.calls[0].arguments == {}


def test_python_calls_are_never_evaluated(tmp_path: Any) -> None:
    marker = tmp_path / "pwned"
    text = f"read_file(path=__import__('pathlib').Path({str(marker)!r}).touch())"
    assert isinstance(parse_tool_calls_from_text(text, TOOLS), ParseFailure)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("raw", "named", "positional", "error"),
    [
        (None, {}, (), False),
        ({"path": "a.py"}, {"path": "a.py"}, (), False),
        ('{"path": "a.py"}', {"path": "a.py"}, (), False),
        ("", {}, (), False),
        ("null", {}, (), False),
        ("42", {}, (42,), False),
        ('["a.py", 3]', {}, ("a.py", 3), False),
        ("just some words", {}, ("just some words",), False),
        ('{"path": "a.py"', {"path": "a.py"}, (), False),
        ('{"path": "a.py"} trailing', {"path": "a.py"}, (), False),
        ("{path: a.py b}", {}, (), True),
        (7, {}, (7,), False),
    ],
)
def test_normalise_arguments(
    raw: Any, named: dict[str, Any], positional: tuple[Any, ...], error: bool
) -> None:
    result = normalise_arguments(raw)
    assert result.named == named
    assert result.positional == positional
    assert (result.error is not None) is error


def test_loads_lenient_reads_python_and_json_spellings() -> None:
    assert loads_lenient('{"a": 1}') == ({"a": 1}, [])
    value, notes = loads_lenient("{'a': (1, 2), 'b': None,}") or (None, [])
    assert value == {"a": [1, 2], "b": None}
    assert "single quotes" in notes and "trailing commas" in notes
    assert loads_lenient("{not json at all") is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    result = parse_tool_calls_from_text(text, TOOLS)
    assert isinstance(result, ParseSuccess | ParseFailure)


JSONISH = st.text(alphabet="{}[]()\"':,. \n\\tnulrefasTFNx0123_abc<>/", max_size=300)


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_never_raises_on_bracket_soup(text: str) -> None:
    for tools in (TOOLS, None):
        result = parse_tool_calls_from_text(text, tools)
        assert isinstance(result, ParseSuccess | ParseFailure)
        if isinstance(result, ParseSuccess):
            assert all(isinstance(call.arguments, dict) for call in result.calls)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(sorted(TOOLS)),
    st.dictionaries(
        st.sampled_from(["path", "pattern", "n"]), st.text(max_size=30) | st.integers()
    ),
)
def test_any_well_formed_call_round_trips(name: str, arguments: dict[str, Any]) -> None:
    import json

    text = "Calling now: " + json.dumps({"name": name, "arguments": arguments})
    result = parse_tool_calls_from_text(text, TOOLS)
    assert isinstance(result, ParseSuccess)
    assert _as_pairs(result) == [(name, arguments)]


@pytest.mark.parametrize(
    "text",
    [
        "{" * 100_000,
        "[{" * 50_000,
        '{"' * 60_000,
        "a" * 199_000,
        "read_file(" * 20_000,
        "{a: [1, {b: (2" * 10_000,
    ],
)
def test_hostile_input_is_handled_quickly(text: str) -> None:
    import time

    start = time.monotonic()
    result = parse_tool_calls_from_text(text, TOOLS)
    assert isinstance(result, ParseFailure)
    assert time.monotonic() - start < 2.0
