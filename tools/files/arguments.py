"""Checks of the file tools' arguments: integers with bounds, search patterns, the path input."""

from __future__ import annotations

from safety.errors import ErrorType
from safety.input_validation import validate_input_size
from tools.base import ToolFailure, ToolLimits

PATH_INPUT = {"type": "string", "description": "Path in the repository."}


def check_int(name: str, value: object, hint: str) -> int | None:
    """``value`` if it is an int or None; a ToolFailure otherwise (bool is not an int)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ToolFailure(
        ErrorType.INVALID_ARGUMENT,
        f"{name} must be an integer, got {value!r}.",
        hint,
        argument=name,
    )


def bounded_int(
    name: str, value: object, *, default: int, minimum: int, maximum: int, hint: str
) -> tuple[int, str]:
    """(number, note) for an optional int argument: `default` when None; a ToolFailure when
    it is not an int or below `minimum`; above `maximum` it is clamped and the note says so."""
    number = check_int(name, value, hint)
    if number is None:
        return default, ""
    if number < minimum:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT,
            f"{name} must be {minimum} or more, got {number}.",
            hint,
            argument=name,
        )
    if number > maximum:
        return maximum, f"({name}={number} is above the maximum {maximum}; using {maximum}.)"
    return number, ""


def check_pattern(value: object, limits: ToolLimits, hint: str) -> str:
    """A non-empty search pattern within the input limits."""
    if not isinstance(value, str) or not value:
        raise ToolFailure(
            ErrorType.INVALID_ARGUMENT, "The pattern is empty.", hint, argument="pattern"
        )
    return validate_input_size(
        value, max_chars=limits.max_input_chars, max_lines=limits.max_input_lines, what="pattern"
    )
