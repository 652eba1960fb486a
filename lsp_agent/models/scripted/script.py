"""Script turns shared by `ScriptedModel` and `ScriptedOpenAIServer`.

A script is a JSON list of turns, one per model reply, each an object of one of these forms:

- `{"tool": NAME, "arguments": {...}}` -- one native tool call (`"arguments"` may be a string:
  it is sent verbatim as the call's argument text, e.g. broken JSON);
- `{"tool_calls": [{"tool": NAME, "arguments": {...}}, ...]}` -- several calls in one reply;
- `{"final_answer": ANSWER}` -- a native call to `final_answer` with `{"answer": ANSWER}`;
- `{"text": "..."}` -- plain text, no tool call (`{"empty": true}` is `{"text": ""}`);
- `{"error": "message", "status": 500}` -- the model endpoint fails with that HTTP status;
- `{"raw_body": "...", "status": 200}` -- the HTTP server sends this body verbatim (malformed);
- `{"drop_connection": true}` -- the HTTP server closes the socket without answering.

Any turn may add `"delay_s": SECONDS` (answer late) and a call turn may add `"text"`
(content beside the call). Pure data: no smolagents import here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXHAUSTED_ANSWER = "The scripted model has no more turns."


class ScriptError(ValueError):
    """A script turn that is not one of the documented forms (a test or configuration bug)."""


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call a turn makes; `arguments` as a string is sent verbatim."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass(frozen=True)
class ScriptTurn:
    """One model reply: tool calls and/or text, an HTTP error, or a transport fault."""

    calls: tuple[ScriptedCall, ...] = ()
    text: str | None = None
    error: str | None = None
    status: int = 200
    raw_body: str | None = None
    drop_connection: bool = False
    delay_s: float = 0.0

    @property
    def is_error(self) -> bool:
        return self.error is not None


def final_answer_turn(answer: Any) -> ScriptTurn:
    return ScriptTurn(calls=(ScriptedCall("final_answer", {"answer": answer}),))


def exhausted_turn(used: int) -> ScriptTurn:
    return final_answer_turn(f"{EXHAUSTED_ANSWER} ({used} used)")


def _call_from(obj: Any, where: str) -> ScriptedCall:
    if not isinstance(obj, Mapping):
        raise ScriptError(f"{where}: a tool call must be an object, got {type(obj).__name__}")
    name = obj.get("tool", obj.get("name"))
    if not isinstance(name, str) or not name:
        raise ScriptError(f"{where}: a tool call needs a non-empty string `tool`")
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, dict | str):
        raise ScriptError(f"{where}: `arguments` must be an object or a string")
    return ScriptedCall(name, arguments)


def parse_turn(obj: Any, index: int = 0) -> ScriptTurn:
    """Turn one JSON value into a `ScriptTurn`; raise `ScriptError` naming the turn if invalid."""
    if isinstance(obj, ScriptTurn):
        return obj
    where = f"script turn {index}"
    if not isinstance(obj, Mapping):
        raise ScriptError(f"{where}: expected an object, got {type(obj).__name__}")
    delay = obj.get("delay_s", 0.0)
    if not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"{where}: `delay_s` must be a number >= 0")
    status = obj.get("status", 500 if "error" in obj else 200)
    if not isinstance(status, int) or not 100 <= status <= 599:
        raise ScriptError(f"{where}: `status` must be an HTTP status code")
    text = obj.get("text")
    if text is not None and not isinstance(text, str):
        raise ScriptError(f"{where}: `text` must be a string")
    common: dict[str, Any] = {"delay_s": float(delay), "status": status}
    if "final_answer" in obj:
        return ScriptTurn(calls=final_answer_turn(obj["final_answer"]).calls, text=text, **common)
    if "tool" in obj:
        return ScriptTurn(calls=(_call_from(obj, where),), text=text, **common)
    if "tool_calls" in obj:
        calls = obj["tool_calls"]
        if not isinstance(calls, list) or not calls:
            raise ScriptError(f"{where}: `tool_calls` must be a non-empty list")
        parsed = tuple(_call_from(call, f"{where} call {i}") for i, call in enumerate(calls))
        return ScriptTurn(calls=parsed, text=text, **common)
    if "error" in obj:
        return ScriptTurn(error=str(obj["error"]), **common)
    if "raw_body" in obj:
        return ScriptTurn(raw_body=str(obj["raw_body"]), **common)
    if obj.get("drop_connection"):
        return ScriptTurn(drop_connection=True, **common)
    if obj.get("empty"):
        return ScriptTurn(text="", **common)
    if text is not None:
        return ScriptTurn(text=text, **common)
    raise ScriptError(
        f"{where}: expected one of tool, tool_calls, final_answer, text, empty, error, "
        f"raw_body, drop_connection; got keys {sorted(obj)}"
    )


def parse_script(turns: Iterable[Any]) -> list[ScriptTurn]:
    return [parse_turn(turn, index) for index, turn in enumerate(turns)]


def load_script(path: Path) -> list[ScriptTurn]:
    """Read a JSON script: a list of turns, or an object with a `turns` list."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"cannot read the script {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ScriptError(f"the script {path} is not valid JSON: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("turns"), list):
        data = data["turns"]
    if not isinstance(data, list):
        raise ScriptError(f"the script {path} must be a JSON list of turns")
    return parse_script(data)
