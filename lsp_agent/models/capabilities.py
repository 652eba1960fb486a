"""Capability fallbacks: meet each model server where it is.

OpenAI-compatible servers differ in the request parameters the agent relies on. When a server
rejects one, the request is sent again once with a weaker form of that parameter:

- `tool_choice`: `"required"` -> `"auto"` (llama-cpp-python's function-calling handler asserts
  `"auto"` and answers HTTP 500 with an empty message; llama.cpp's server accepts it but, when
  the model writes its calls as text, lets it pad until `max_tokens`: a reply that loops
  under `required` takes the same step, `looped_under_required`);
- `response_format` (`MODEL_CONSTRAINED_CALLS`): `json_schema` -> `json_object`, with the schema
  stated in the system prompt -> no `response_format` (the schema stays in the prompt);
  llama-cpp-python accepts only `text` and `json_object`;
- `parallel_tool_calls: false` (the agent takes one call per reply) -> not sent.

A rejection is an HTTP 400, 422 or 500 whose body names the parameter (LiteLLM's own
"does not support parameters" error counts too). A 500 with an *empty* message names nothing:
the first parameter still in its strong form is then downgraded as a guess, once per endpoint,
and kept only if the retried request succeeds. Any other error is raised as before (the model
boundary turns it into an observation); each step of the ladder is taken at most once, so no
error is retried in a loop. What an endpoint was found to reject is remembered in its
`EndpointCapabilities` for the session (a `CapabilityMemory` per server or CLI run) and logged
once, as a warning.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

REJECTION_STATUSES = (400, 422, 500)
TOOL_CHOICE = "tool_choice"
RESPONSE_FORMAT = "response_format"
PARALLEL_TOOL_CALLS = "parallel_tool_calls"
LADDER_STEPS = 4  # tool_choice 1, response_format 2, parallel_tool_calls 1
SCHEMA_PROMPT = "Reply with exactly one JSON object and no other text, one of:\n{schema}"
_EMPTY_MESSAGE = re.compile(r"""['"]message['"]\s*:\s*(''|"")""")


@dataclass(frozen=True)
class Downgrade:
    """One step down the ladder: `parameter` goes from `before` to `after`."""

    parameter: str
    before: str
    after: str
    guessed: bool = False
    looped: bool = False  # not refused: the reply to it looped as text

    def describe(self) -> str:
        was = f"{self.parameter}={self.before}"
        how = f"answered HTTP 500 with no message to {was}" if self.guessed else f"rejected {was}"
        if self.looped:
            how = f"let the model write text until it looped under {was}"
        return f"{how}; sending {self.parameter}={self.after}"


@dataclass
class EndpointCapabilities:
    """What one endpoint accepts, as learnt so far this session (strong forms until rejected)."""

    endpoint: str
    tool_choice: str = "required"
    response_format: str = "json_schema"
    parallel_tool_calls: bool = True
    guess_spent: bool = False
    streams: bool = True  # False once its streamed replies came back empty (native_replay)
    downgrades: list[Downgrade] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    # -- shaping requests ----------------------------------------------------------------------
    def shape(self, request: dict[str, Any], *, ask_single_call: bool = False) -> dict[str, Any]:
        """`request` (LiteLLM completion kwargs) with every parameter in the form it accepts."""
        if ask_single_call and request.get("tools") and self.parallel_tool_calls:
            request[PARALLEL_TOOL_CALLS] = False
        elif not self.parallel_tool_calls:
            request.pop(PARALLEL_TOOL_CALLS, None)
        if request.get(TOOL_CHOICE) == "required" and self.tool_choice == "auto":
            request[TOOL_CHOICE] = "auto"
        response_format = request.get(RESPONSE_FORMAT)
        weaker = self.response_format != "json_schema"
        if isinstance(response_format, dict) and _kind(response_format) == "json_schema" and weaker:
            schema = response_format.get("json_schema", {}).get("schema", {})
            request["messages"] = with_schema_in_prompt(list(request.get("messages", [])), schema)
            if self.response_format == "json_object":
                request[RESPONSE_FORMAT] = {"type": "json_object"}
            else:
                request.pop(RESPONSE_FORMAT, None)
        return request

    # -- learning from a rejection -------------------------------------------------------------
    def downgrade_after(self, exc: BaseException, request: dict[str, Any] | None) -> bool:
        """Take the step `exc` calls for (True: send again) or none (False: raise `exc`)."""
        if request is None:
            return False
        status = http_status(exc)
        if status not in REJECTION_STATUSES:
            return False
        text = " | ".join(str(e) for e in exception_chain(exc)).lower()
        with self._lock:
            steps = self._candidates(request)
            named = [s for s in steps if _names(text, s)]
            if named:
                self._take(named[0])
                return True
            if status == 500 and steps and not self.guess_spent and _empty_message(exc, text):
                self.guess_spent = True
                step = steps[0]
                self._take(Downgrade(step.parameter, step.before, step.after, guessed=True))
                return True
        return False

    def streaming_fails(self) -> None:
        """A streamed reply came back empty or broke off where the same request without
        streaming did not (llama-cpp-python's server fails inside a 200 stream, and closes it
        cleanly or not): do not stream to it again."""
        with self._lock:
            if self.streams:
                self.streams = False
                log.warning(
                    "model server %s: its streamed replies come back empty or broken; "
                    "not streaming to it",
                    self.endpoint,
                )

    def looped_under_required(self) -> None:
        """A reply to `tool_choice: "required"` came back as text that looped (llama.cpp's
        server does not end a reply without a call in the model's native form, so a model
        that writes its calls or answers as text pads until `max_tokens`): `auto` from now
        on, which lets such a model end its reply."""
        with self._lock:
            if self.tool_choice == "required":
                self._take(Downgrade(TOOL_CHOICE, "required", "auto", looped=True))

    def undo_guess(self) -> None:
        """The request after a guessed step failed too: put the guessed parameter back."""
        with self._lock:
            if not self.downgrades or not self.downgrades[-1].guessed:
                return
            step = self.downgrades.pop()
            self._set(step.parameter, step.before)
            log.info("%s: the guess did not help; %s restored", self.endpoint, step.parameter)

    def _candidates(self, request: dict[str, Any]) -> list[Downgrade]:
        steps = []
        if request.get(TOOL_CHOICE) == "required" and self.tool_choice == "required":
            steps.append(Downgrade(TOOL_CHOICE, "required", "auto"))
        kind = _kind(request.get(RESPONSE_FORMAT))
        if kind == "json_schema" and self.response_format == "json_schema":
            steps.append(Downgrade(RESPONSE_FORMAT, "json_schema", "json_object"))
        elif kind == "json_object" and self.response_format == "json_object":
            steps.append(Downgrade(RESPONSE_FORMAT, "json_object", "none"))
        if PARALLEL_TOOL_CALLS in request and self.parallel_tool_calls:
            steps.append(Downgrade(PARALLEL_TOOL_CALLS, "false", "unset"))
        return steps

    def _take(self, step: Downgrade) -> None:
        self._set(step.parameter, step.after)
        self.downgrades.append(step)
        log.warning("model server %s %s from now on", self.endpoint, step.describe())

    def _set(self, parameter: str, value: str) -> None:
        if parameter == TOOL_CHOICE:
            self.tool_choice = value
        elif parameter == RESPONSE_FORMAT:
            self.response_format = value
        else:
            self.parallel_tool_calls = value == "false"


class CapabilityMemory:
    """`EndpointCapabilities` per endpoint for one session (an LSP server, a CLI run, a bench)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._endpoints: dict[str, EndpointCapabilities] = {}

    def for_endpoint(self, model_id: str, api_base: str) -> EndpointCapabilities:
        key = f"{api_base or '(provider default)'} ({model_id})"
        with self._lock:
            if key not in self._endpoints:
                self._endpoints[key] = EndpointCapabilities(key)
            return self._endpoints[key]

    def downgrades(self) -> dict[str, list[Downgrade]]:
        with self._lock:
            return {k: list(v.downgrades) for k, v in self._endpoints.items() if v.downgrades}


def with_schema_in_prompt(messages: list[Any], schema: Any) -> list[Any]:
    """`messages` with the schema stated at the end of the system message (or a new one)."""
    text = SCHEMA_PROMPT.format(schema=schema_in_words(schema))
    first = messages[0] if messages else None
    if isinstance(first, dict) and first.get("role") == "system":
        content = first.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return [{**first, "content": f"{content or ''}\n\n{text}"}, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def schema_in_words(schema: Any) -> str:
    """A tool-call schema (`tool_call_schema`) as one short line per tool, e.g.
    `{"name": "read_file", "arguments": {"path": string, "start_line"?: integer}}`; any other
    schema as compact JSON. Small models read the short form; the full schema is ~1,500 tokens."""
    calls = schema.get("oneOf", [schema]) if isinstance(schema, dict) else []
    lines = []
    for call in calls:
        properties = call.get("properties", {}) if isinstance(call, dict) else {}
        names = properties.get("name", {}).get("enum", [])
        arguments = properties.get("arguments", {})
        if len(names) != 1 or not isinstance(arguments, dict):
            return json.dumps(schema, separators=(",", ":"))
        required = set(arguments.get("required", []))
        fields = ", ".join(
            f'"{key}"{"" if key in required else "?"}: {spec.get("type", "any")}'
            for key, spec in arguments.get("properties", {}).items()
        )
        lines.append(f'{{"name": "{names[0]}", "arguments": {{{fields}}}}}')
    return "\n".join(lines)


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc`, then what caused it or was being handled (at most 12, no cycles)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 12:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def http_status(exc: BaseException) -> int | None:
    """The HTTP status the server (or LiteLLM on its behalf) gave, if any."""
    for error in exception_chain(exc):
        status = getattr(error, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def _kind(response_format: Any) -> str:
    return str(response_format.get("type", "")) if isinstance(response_format, dict) else ""


def _names(text: str, step: Downgrade) -> bool:
    if step.parameter == RESPONSE_FORMAT:
        return RESPONSE_FORMAT in text or step.before in text
    return step.parameter in text


def _empty_message(exc: BaseException, text: str) -> bool:
    """Whether the server's error body carries an empty message (llama-cpp-python's assert)."""
    for error in exception_chain(exc):
        body = getattr(error, "body", None)
        if isinstance(body, dict):
            inner = body.get("error", body)
            if isinstance(inner, dict) and "message" in inner:
                return not str(inner.get("message") or "").strip()
    return bool(_EMPTY_MESSAGE.search(text))
