"""The in-container code runner of `AGENT_TYPE=code`: runs the model's Python, step by step.

Sent with `python3 -c` as the main process of a hardened container that has NO repository
mount (sandbox/code/container.py): the only way from this code to the repository, the
network or the host is a tool call, proxied to the host and wrapped there like any other.
Standard library only. One JSON object per line; ours go to the host on stdout after
`MARKER`, the host's come on stdin:

  runner -> host  {"ready": true}                                     once, at start
  host -> runner  {"tools": [{"name": N, "inputs": [ARG, ...]}, ...]}  tool functions to offer
  host -> runner  {"variables": {...}}                                 names to define
  host -> runner  {"run": CODE, "step": S}                             run one step's code
  runner -> host  {"call": N, "arguments": {...}, "step": S, "id": I}  a tool call (blocks)
  host -> runner  {"id": I, "result": TEXT} | {"id": I, "error": TEXT}
  runner -> host  {"done": true, "step": S, "output": TEXT, "final": BOOL, "logs": TEXT,
                   "error": TEXT | null}

Variables live on between steps in this process. `final_answer(x)` ends the step with
`final: true`. What the code prints is captured (at most `PRINT_LIMIT` characters); a tool
error reaches the code as a `ToolCallError` exception; a tool result is a `str` whose JSON
fields can be read as `result["patch_id"]`. Code could write a protocol line itself: it can
then only ask for a tool call or end its own step, which it may do anyway.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import sys
import threading
import traceback
from typing import Any

MARKER = "@@lsp-agent-code@@ "
PRINT_LIMIT = 20_000
ADDRESS_SPACE_LIMIT = 384 * 1024 * 1024  # below the container's 512 MiB: MemoryError first
SOURCE_NAME = "<code>"


class ToolCallError(Exception):
    """A tool answered with an error (the structured error text with its recovery hint)."""


class FinalAnswer(BaseException):  # a signal, not an error
    def __init__(self, value: Any) -> None:
        super().__init__("final answer")
        self.value = value


class ToolResult(str):
    """A tool's observation text; JSON results also answer `result["key"]` and `.get()`."""

    __slots__ = ()

    def fields(self) -> dict[str, Any]:
        try:
            data = json.loads(self)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            data = self.fields()
            if key not in data:
                raise KeyError(f"{key!r} (the result has: {', '.join(data) or 'no fields'})")
            return data[key]
        return str.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields().get(key, default)


class BoundedOutput:
    """A text stream that keeps the first `limit` characters and counts the rest."""

    def __init__(self, limit: int = PRINT_LIMIT) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(len(text), room)
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        body = "".join(self.parts)
        if self.dropped:
            body += f"\n[print output cut: {self.dropped} more characters]"
        return body


class Runner:
    def __init__(self, inbox: Any, outbox: Any) -> None:
        self.inbox = inbox
        self.outbox = outbox
        self.lock = threading.Lock()
        self.namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.tools: list[dict[str, Any]] = []
        self.step: Any = None
        self.calls = 0

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.write(MARKER + json.dumps(message, default=str) + "\n")
        self.outbox.flush()

    def receive(self) -> dict[str, Any] | None:
        while True:
            line = self.inbox.readline()
            if not line:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message

    def serve(self) -> None:
        self.send({"ready": True})
        while True:
            message = self.receive()
            if message is None:
                return
            if "tools" in message:
                self.tools = list(message["tools"])
            elif "variables" in message:
                self.namespace.update(dict(message["variables"]))
            elif "run" in message:
                self.step = message.get("step")
                self.send(self.run(str(message["run"])))

    # ---- one step ----------------------------------------------------------------------
    def run(self, code: str) -> dict[str, Any]:
        self.install_functions()
        output = BoundedOutput()
        answer: dict[str, Any] = {"done": True, "step": self.step, "final": False}
        answer.update(output=None, error=None)
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = output
        try:
            value = self.execute(code)
            answer["output"] = None if value is None else str(value)
        except FinalAnswer as final:
            answer.update(final=True, output=str(final.value))
        except SyntaxError as exc:
            answer["error"] = f"SyntaxError: {exc.msg} (line {exc.lineno} of your code)"
        except BaseException as exc:  # the step failed: the host turns it into an observation
            answer["error"] = describe_failure(exc, code)
        finally:
            sys.stdout, sys.stderr = saved
        answer["logs"] = output.text()
        return answer

    def execute(self, code: str) -> Any:
        tree = ast.parse(code, SOURCE_NAME, "exec")
        last = tree.body[-1] if tree.body else None
        if not isinstance(last, ast.Expr):
            exec(compile(tree, SOURCE_NAME, "exec"), self.namespace)
            return None
        tree.body.pop()
        exec(compile(tree, SOURCE_NAME, "exec"), self.namespace)
        expression = ast.Expression(last.value)
        return eval(compile(expression, SOURCE_NAME, "eval"), self.namespace)

    def install_functions(self) -> None:
        for tool in self.tools:
            name = str(tool["name"])
            self.namespace[name] = self.proxy(name, [str(arg) for arg in tool.get("inputs", [])])

        def final_answer(answer: Any = None, **kwargs: Any) -> None:
            raise FinalAnswer(answer if answer is not None else next(iter(kwargs.values()), ""))

        self.namespace["final_answer"] = final_answer
        self.namespace["ToolCallError"] = ToolCallError

    def proxy(self, name: str, inputs: list[str]) -> Any:
        def call(*args: Any, **kwargs: Any) -> ToolResult:
            arguments = dict(zip(inputs, args, strict=False)) | kwargs
            with self.lock:
                self.calls += 1
                call_id = self.calls
                self.send({"call": name, "arguments": arguments, "step": self.step, "id": call_id})
                while True:
                    reply = self.receive()
                    if reply is None:
                        raise SystemExit(0)  # the host went away
                    if reply.get("id") == call_id:
                        break
            if "error" in reply:
                raise ToolCallError(str(reply["error"]))
            return ToolResult(str(reply.get("result", "")))

        call.__name__ = name
        return call


def describe_failure(exc: BaseException, code: str) -> str:
    """`Type: message`, and the line of the model's code where it happened."""
    text = f"{type(exc).__name__}: {exc}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == SOURCE_NAME]
    if frames and frames[-1].lineno:
        number = frames[-1].lineno
        lines = code.splitlines()
        source = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        text += f"\n(at line {number} of your code: {source})"
    return text


def limit_memory(limit: int = ADDRESS_SPACE_LIMIT) -> None:
    """Allocations past `limit` raise MemoryError (the step fails, the runner lives on)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass


def exit_when_the_host_leaves(fd: int) -> None:
    """Watch our stdin from a thread: when the host closes it (it died, or dropped this
    container) the runner ends at once, even in the middle of an endless step, and the
    container with it. Only a hang-up wakes the poll, never data (that is the main thread's)."""
    import select

    def watch() -> None:
        poller = select.poll()
        poller.register(fd, 0)  # hang-ups and errors are always reported
        while True:
            for _fd, event in poller.poll():
                if event & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    threading.Thread(target=watch, name="host-watch", daemon=True).start()


def main() -> None:
    limit_memory()
    # Our protocol gets its own copy of stdout; what anything else writes to fd 1 (a child
    # process, os.write) goes to stderr instead, which the host only keeps for diagnosis.
    outbox = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    inbox = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the code's own stdin is empty: host messages are not for it
    exit_when_the_host_leaves(inbox.fileno())
    Runner(inbox, outbox).serve()


if __name__ == "__main__":
    main()
