"""`SpyTool`: a smolagents tool that records its calls and returns (or raises) what it is told."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from smolagents.tools import Tool

InputSpec = str | Mapping[str, Any]


def _input_schema(spec: InputSpec) -> dict[str, Any]:
    if isinstance(spec, str):
        return {"type": spec, "description": f"a {spec}"}
    schema = dict(spec)
    schema.setdefault("description", f"a {schema.get('type', 'value')}")
    return schema


class SpyTool(Tool):  # type: ignore[misc]
    """A tool named `name` with `inputs` ({arg: type or schema}); `.calls` holds every call.

    `result` is returned as is, or called with the arguments when callable; `raises`, when
    set, is raised instead (an exception instance, or a callable that builds one).
    """

    skip_forward_signature_validation = True

    def __init__(
        self,
        name: str,
        inputs: Mapping[str, InputSpec] | None = None,
        *,
        result: Any = "ok",
        raises: BaseException | Callable[[dict[str, Any]], BaseException] | None = None,
        description: str | None = None,
        output_type: str = "string",
    ) -> None:
        self.name = name
        self.description = description or f"Test tool {name}."
        self.inputs = {k: _input_schema(v) for k, v in (inputs or {}).items()}
        self.output_type = output_type
        self.result = result
        self.raises = raises
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        super().__init__()

    @property
    def call_count(self) -> int:
        return len(self.calls)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        arguments = dict(kwargs)
        names = [k for k in self.inputs if k not in arguments]
        arguments.update(zip(names, args, strict=False))
        with self._lock:
            self.calls.append(arguments)
        if self.raises is not None:
            error = (
                self.raises if isinstance(self.raises, BaseException) else self.raises(arguments)
            )
            raise error
        return self.result(**arguments) if callable(self.result) else self.result
