"""The tool-call grammar: which texts llama.cpp's grammar engine admits (fed as real tokens
of SmolLM2's vocabulary), the same verdicts from the pure-Python checker, the JSON-schema
twin, and that schema reaching Ollama as `format` through LiteLLM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from smolagents import FinalAnswerTool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

from lsp_agent.models.embedded.grammar_sampler import (
    ConstrainedLlama,
    GrammarError,
    grammar_accepts,
    quiet_llama,
)
from lsp_agent.models.embedded.model import embedded_gguf
from lsp_agent.models.embedded.tool_grammar import (
    MAX_ANSWER_CHARS,
    MIN_ANSWER_CHARS,
    call_text,
    check_call,
    offered_after,
    tool_call_grammar,
    tool_call_schema,
    tool_specs,
    value_grammar,
)
from lsp_agent.models.factory import build_model
from lsp_agent.models.robust import RobustModel
from lsp_agent.models.tool_call_format import ToolCallFormat
from lsp_agent.settings import Settings
from lsp_agent.testing import ScriptedOpenAIServer, SpyTool
from tests.tool_context import tool_context
from tools.registry import TOOL_NAMES, build_tools
from tools.workspace import DiskWorkspace

PATHS = ["calc.py", 'odd "name".py']


@pytest.fixture(scope="module")
def vocab() -> Iterator[ConstrainedLlama]:
    llama = quiet_llama(embedded_gguf("embedded"), vocab_only=True, n_ctx=64)
    yield llama
    llama.close()


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    workspace = DiskWorkspace(tmp_path_factory.mktemp("ws"))
    return [*build_tools(tool_context(workspace)), FinalAnswerTool()]


def call(name: str, **arguments: Any) -> str:
    return call_text(name, arguments)


VALID = [
    call("read_file", path="calc.py"),
    call("read_file", path="calc.py", start_line=3),
    call("read_file", path="calc.py", end_line=40),
    call("read_file", path="calc.py", start_line=1, end_line=2),
    call("git_status"),
    call("git_log"),
    call("git_log", n=-3),
    call("propose_patch", path="calc.py", old='x = "a"\n\ty', new="naïve ✓ \\ / \u0001"),
    call("final_answer", answer="Nothing to change."),
    call("run_tests"),
    call("rg_search", pattern="def (\\w+)", glob="*.py"),
    '{"name": "final_answer", "arguments": {"answer": "naïve ✓ – raw UTF-8"}}',
]
INVALID = [
    ('{"name": "nope", "arguments": {}}', "unknown tool"),
    (call("final_answer", answer=""), "shorter than"),
    (call("read_file"), "missing required argument"),
    (call("read_file", path="calc.py", start_line="3"), "must be an integer"),
    (call("read_file", path="calc.py", start_line=1.5), "must be an integer"),
    (call("read_file", path="calc.py", start_line=True), "must be an integer"),
    (call("read_file", path="calc.py", colour="red"), "unknown arguments"),
    (call("read_file", path="calc.py", end_line=2, start_line=1), "out of order"),
    (call("read_file", path="calc.py", start_line=None), "must be an integer"),
    (call("apply_patch", patch_id=1), "must be a string"),
    ('{ "name": "git_status", "arguments": {}}', ""),  # whitespace outside the fixed shape
    ('{"name": "git_status", "arguments": {}} ', ""),
    (call("git_status") + call("git_status"), "not JSON"),
    ('{"arguments": {}, "name": "git_status"}', "exactly"),
    ('{"name": "final_answer", "arguments": {"answer": "a\nb"}}', "not JSON"),  # raw newline
    ("git_status()", "not JSON"),
]


def test_the_grammar_names_every_tool_and_llama_cpp_parses_it(
    vocab: ConstrainedLlama, tools: list[Any]
) -> None:
    grammar = tool_call_grammar(tool_specs(tools))
    for name in [*TOOL_NAMES, "final_answer"]:
        assert f'"{name}\\", \\"arguments\\": {{"' in grammar
    assert grammar_accepts(vocab, grammar, call("final_answer", answer="Done: no change."))
    with pytest.raises(GrammarError):
        grammar_accepts(vocab, "root ::= nowhere", "x")


@pytest.mark.parametrize("text", VALID)
def test_valid_calls_are_admitted_by_grammar_and_checker(
    vocab: ConstrainedLlama, tools: list[Any], text: str
) -> None:
    specs = tool_specs(tools)
    assert grammar_accepts(vocab, tool_call_grammar(specs), text)
    checked = check_call(text, specs)
    assert not isinstance(checked, str)
    assert json.loads(call_text(*checked)) == json.loads(text)


@pytest.mark.parametrize(("text", "why"), INVALID)
def test_invalid_calls_are_rejected_by_grammar_and_checker(
    vocab: ConstrainedLlama, tools: list[Any], text: str, why: str
) -> None:
    specs = tool_specs(tools)
    assert not grammar_accepts(vocab, tool_call_grammar(specs), text)
    if why:
        problem = check_call(text, specs)
        assert isinstance(problem, str) and why in problem


def test_choices_become_enums_for_path_arguments_and_named_arguments(
    vocab: ConstrainedLlama, tools: list[Any]
) -> None:
    specs = tool_specs(tools, choices={"path": PATHS})
    grammar = tool_call_grammar(specs)
    for text in (call("read_file", path=PATHS[1]), call("git_diff", path="calc.py")):
        assert grammar_accepts(vocab, grammar, text)
        assert not isinstance(check_call(text, specs), str)
    for text in (
        call("read_file", path="other.py"),
        call("propose_patch", path="c", old="", new=""),
    ):
        assert not grammar_accepts(vocab, grammar, text)
        assert "must be one of" in str(check_call(text, specs))
    free = call("rg_search", pattern="calc", glob="not/a/path/choice")
    assert grammar_accepts(vocab, grammar, free)
    too_many = tool_specs(tools, choices={"path": [f"f{i}.py" for i in range(1000)]})
    assert grammar_accepts(vocab, tool_call_grammar(too_many), call("read_file", path="x.py"))
    ids = tool_specs(tools, choices={"patch_id": ["p1", "p2"]})
    ids_grammar = tool_call_grammar(ids)
    assert grammar_accepts(vocab, ids_grammar, call("apply_patch", patch_id="p2"))
    assert not grammar_accepts(vocab, ids_grammar, call("apply_patch", patch_id="p3"))
    assert grammar_accepts(vocab, ids_grammar, call("list_files", pattern="*.py"))


def test_a_tool_whose_required_argument_has_no_choice_is_left_out(tools: list[Any]) -> None:
    # Before any patch is proposed, apply_patch and show_patch could only fail (a 1.5B model
    # sent apply_patch("patch_id_from_propose_patch ..."), 440 tokens of it).
    names = {s.name for s in tool_specs(tools, choices={"patch_id": [], "path": PATHS})}
    assert "apply_patch" not in names and "show_patch" not in names
    assert {"read_file", "propose_patch", "final_answer"} <= names
    # An optional argument without choices leaves its tool in (git_diff's path).
    no_paths = {s.name for s in tool_specs(tools, choices={"path": []})}
    assert "git_diff" in no_paths and "read_file" not in no_paths


def test_specs_say_which_tools_read_and_which_want_words_before_their_call(
    tools: list[Any],
) -> None:
    specs = {s.name: s for s in tool_specs(tools, choices={"path": PATHS, "patch_id": ["p1"]})}
    assert all(specs[name].read_only for name in ("read_file", "rg_search", "list_files"))
    assert not any(specs[name].read_only for name in ("propose_patch", "run_cmd", "final_answer"))
    # the edit tools: the model's thought, and for propose_patch what it will replace
    assert specs["propose_patch"].thought_leads == (" The wrong line is `", " So I will replace `")
    assert specs["propose_patch_unified"].thought_leads == ()
    assert specs["read_file"].thought_leads is None
    assert specs["final_answer"].thought_leads is None


def test_a_value_grammar_admits_one_value_of_its_argument(
    vocab: ConstrainedLlama, tools: list[Any]
) -> None:
    (spec,) = [s for s in tool_specs(tools, choices={"path": PATHS}) if s.name == "read_file"]
    path, start = spec.arguments[0], spec.arguments[1]
    assert grammar_accepts(vocab, value_grammar(path), '"calc.py"')
    assert not grammar_accepts(vocab, value_grammar(path), '"x.py"')
    assert grammar_accepts(vocab, value_grammar(start), "12")
    assert not grammar_accepts(vocab, value_grammar(start), '"12"')
    assert not grammar_accepts(vocab, value_grammar(start), "12, ")
    # after a key's colon the value brings its space (a lone space token is unlikely)
    assert grammar_accepts(vocab, value_grammar(start, lead=" "), " 12")
    assert not grammar_accepts(vocab, value_grammar(start, lead=" "), "12")


def test_strings_are_bounded(vocab: ConstrainedLlama) -> None:
    specs = tool_specs([SpyTool("say", {"text": "string"})], max_string_chars=5)
    grammar = tool_call_grammar(specs)
    assert grammar_accepts(vocab, grammar, call("say", text="12345"))
    assert not grammar_accepts(vocab, grammar, call("say", text="123456"))
    assert "longer than 5" in str(check_call(call("say", text="123456"), specs))


def test_a_final_answer_is_a_short_summary(vocab: ConstrainedLlama) -> None:
    specs = tool_specs([FinalAnswerTool(), SpyTool("say", {"text": "string"})])
    grammar = tool_call_grammar(specs)
    longest = "x" * MAX_ANSWER_CHARS
    assert grammar_accepts(vocab, grammar, call("final_answer", answer=longest))
    assert not grammar_accepts(vocab, grammar, call("final_answer", answer=longest + "x"))
    assert grammar_accepts(vocab, grammar, call("say", text=longest + "x"))
    shortest = "x" * MIN_ANSWER_CHARS
    assert grammar_accepts(vocab, grammar, call("final_answer", answer=shortest))
    for bare in ("p1", shortest[1:]):  # a bare patch id is no answer; nor is a word
        assert not grammar_accepts(vocab, grammar, call("final_answer", answer=bare))
        assert "shorter than" in str(check_call(call("final_answer", answer=bare), specs))
    assert grammar_accepts(vocab, grammar, call("say", text="p1"))


def test_number_boolean_and_json_arguments(vocab: ConstrainedLlama) -> None:
    tool = SpyTool(
        "tune",
        {"ratio": "number", "on": "boolean", "extra": {"type": "object", "nullable": True}},
    )
    specs = tool_specs([tool])
    grammar = tool_call_grammar(specs)
    good = call("tune", ratio=-0.25, on=False, extra={"a": [1, "b", None]})
    assert grammar_accepts(vocab, grammar, good)
    assert not isinstance(check_call(good, specs), str)
    for bad in (call("tune", ratio="1", on=True), call("tune", ratio=1, on="yes")):
        assert not grammar_accepts(vocab, grammar, bad)
        assert isinstance(check_call(bad, specs), str)


def test_the_json_schema_twin_agrees_on_values(tools: list[Any]) -> None:
    specs = tool_specs(tools, choices={"path": PATHS})
    schema = tool_call_schema(specs)
    assert len(schema["oneOf"]) == len(tools)
    jsonschema.validate(json.loads(call("read_file", path="calc.py", start_line=2)), schema)
    jsonschema.validate(json.loads(call("git_status")), schema)
    for bad in (
        call("read_file", path="other.py"),
        call("read_file", path="calc.py", start_line="2"),
        call("read_file", path="calc.py", colour="red"),
        call("nope"),
        call("apply_patch"),
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(json.loads(bad), schema)


def test_ollama_gets_the_schema_as_format_and_json_content_becomes_a_call() -> None:
    tools = [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]
    reply_text = call("read_file", path="a.py")
    with ScriptedOpenAIServer([{"text": reply_text}]) as server:
        settings = Settings(
            model_id="ollama_chat/qwen2.5-coder:14b", model_api_base=server.base_url
        )
        model = build_model(settings.model_config(), constrained_calls=True)
        assert isinstance(model, ToolCallFormat)
        user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
        reply = RobustModel(model).generate([user], tools_to_call_from=tools)
        (body,) = server.chat_requests
    assert body["format"] == tool_call_schema(tool_specs(tools))
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "final_answer"]
    (tool_call,) = reply.tool_calls
    assert (tool_call.function.name, tool_call.function.arguments) == (
        "read_file",
        {"path": "a.py"},
    )
    plain = build_model(
        Settings(model_id="anthropic/claude-x").model_config(), constrained_calls=True
    )
    assert not isinstance(plain, ToolCallFormat)


def test_openai_compatible_servers_get_the_schema_as_response_format() -> None:
    tools = [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]
    with ScriptedOpenAIServer([{"text": call("read_file", path="b.py")}]) as server:
        settings = Settings(
            model_id="openai/qwen2.5-coder-7b",
            model_api_base=server.openai_base,
            model_constrained_calls=True,
        )
        model = build_model(
            settings.model_config(), constrained_calls=settings.model_constrained_calls
        )
        user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
        reply = RobustModel(model).generate([user], tools_to_call_from=tools)
        (body,) = server.chat_requests
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == tool_call_schema(tool_specs(tools))
    (tool_call,) = reply.tool_calls
    assert (tool_call.function.name, tool_call.function.arguments) == (
        "read_file",
        {"path": "b.py"},
    )


def test_the_schema_names_only_the_workspace_s_files_and_the_run_s_patches() -> None:
    tools = [
        SpyTool("read_file", {"path": "string"}),
        SpyTool("apply_patch", {"patch_id": "string"}),
        FinalAnswerTool(),
    ]
    turns = [
        {"text": call("read_file", path="calc.py")},
        {"text": call("final_answer", answer="x")},
    ]
    with ScriptedOpenAIServer(turns) as server:
        settings = Settings(model_id="openai/qwen", model_api_base=server.openai_base)
        model = RobustModel(build_model(settings.model_config(), constrained_calls=True))
        patches: list[str] = []
        model.offer_argument_choices(lambda: {"path": PATHS, "patch_id": list(patches)})
        user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
        model.generate([user], tools_to_call_from=tools)
        patches.append("p1")  # asked afresh for every request
        model.generate([user], tools_to_call_from=tools)
        first, second = (
            body["response_format"]["json_schema"]["schema"] for body in server.chat_requests
        )
    names = [c["properties"]["name"]["enum"] for c in first["oneOf"]]
    assert names == [["read_file"], ["final_answer"]]  # no patch yet: apply_patch is left out
    read = first["oneOf"][0]["properties"]["arguments"]["properties"]["path"]
    assert read["enum"] == PATHS
    apply = second["oneOf"][1]["properties"]["arguments"]["properties"]["patch_id"]
    assert apply["enum"] == ["p1"]


def test_a_refused_answer_is_not_given_again_at_once() -> None:
    """L4 (2026-11-28): told its answer held a placeholder, Qwen2.5-Coder-1.5B gave the same
    answer three times until the step limit; the step after a refused answer calls a tool."""
    specs = tool_specs([SpyTool("read_file", {"path": "string"}), FinalAnswerTool()])
    names = [spec.name for spec in specs]
    after_refusal = [s.name for s in offered_after(specs, ("read_file", "final_answer"))]
    assert after_refusal == [n for n in names if n != "final_answer"]
    assert [s.name for s in offered_after(specs, ("read_file",))] == names
    assert [s.name for s in offered_after(specs, ())] == names
    answer_only = tool_specs([FinalAnswerTool()])
    assert [s.name for s in offered_after(answer_only, ("final_answer",))] == ["final_answer"]


def test_a_server_is_not_offered_final_answer_right_after_a_refused_one() -> None:
    tools = [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]
    refused = ChatMessageToolCall(
        id="call_1",
        type="function",
        function=ChatMessageToolCallFunction(name="final_answer", arguments={"answer": "[x_y]"}),
    )
    history = [
        ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}]),
        ChatMessage(role=MessageRole.ASSISTANT, tool_calls=[refused]),
        ChatMessage(
            role=MessageRole.TOOL_RESPONSE,
            content=[{"type": "text", "text": "Error: the final answer holds a placeholder"}],
        ),
    ]
    with ScriptedOpenAIServer([{"text": call("read_file", path="b.py")}]) as server:
        settings = Settings(model_id="openai/qwen", model_api_base=server.openai_base)
        model = build_model(settings.model_config(), constrained_calls=True)
        RobustModel(model).generate(history, tools_to_call_from=tools)
        (body,) = server.chat_requests
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema == tool_call_schema(tool_specs(tools[:1]))
    assert "final_answer" in json.dumps(body["tools"])  # the template still lists it


def test_a_decode_again_of_a_stale_call_leaves_its_tool_out_of_the_schema_only() -> None:
    # Through llama-server with the schema, Qwen2.5-Coder-1.5B read calc.py lines 1-11 of 11
    # again at 0.0, 0.7 and 1.0 until the loop guard stopped the run (L7): the third time a
    # read is made, its decode again has no reader.
    tools = [SpyTool("read_file", {"path": "string"}), FinalAnswerTool()]
    tools[0].read_only = True  # as tools.files.ReadFile: a reader shows what it showed
    replies = [{"text": call("read_file", path="a.py")}, {"text": call("final_answer", answer="x")}]
    with ScriptedOpenAIServer(replies) as server:
        settings = Settings(model_id="openai/qwen", model_api_base=server.openai_base)
        model = RobustModel(build_model(settings.model_config(), constrained_calls=True))
        model.stale_reply = lambda reply: (
            "it repeats the last call" if reply.tool_calls[0].function.name == "read_file" else None
        )
        user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
        read = ChatMessageToolCall(
            id="c1",
            type="function",
            function=ChatMessageToolCallFunction(name="read_file", arguments={"path": "a.py"}),
        )
        result = ChatMessage(role=MessageRole.TOOL_RESPONSE, content="a.py …")
        twice = [ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[read]), result] * 2
        reply = model.generate([user, *twice], tools_to_call_from=tools)
        first, again = server.chat_requests
    assert first["response_format"]["json_schema"]["schema"] == tool_call_schema(tool_specs(tools))
    assert again["response_format"]["json_schema"]["schema"] == tool_call_schema(
        tool_specs(tools[1:])
    )
    assert [t["function"]["name"] for t in again["tools"]] == ["read_file", "final_answer"]
    assert again.get("temperature") == first.get("temperature")  # narrowed, not hotter
    assert reply.tool_calls and reply.tool_calls[0].function.name == "final_answer"
    assert model.inner.left_out_tools == frozenset()  # only for the decode again
