"""Reading the model's final answer as a typed value."""

from __future__ import annotations

import json
import re
from typing import Any

from statetools.errors import OutputValidationError
from statetools.tools.convert import is_validation_error, make_json_converter, validation_problems
from statetools.tools.schema import type_schema
from statetools.tools.validation import argument_problems, make_validator

_FENCED = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n?```", re.DOTALL)
_converter = make_json_converter(forbid_extra_keys=True)


class OutputProblem(ValueError):
    """The answer could not be read; ``str(problem)`` says why, for the model."""


def parse_output(text: str, output_type: Any) -> Any:
    """``text`` as ``output_type``: str as is; anything else from JSON (also inside a
    fenced block) structured with cattrs (a pydantic model with its own validation).
    Raises :class:`OutputProblem`."""
    if output_type is None or output_type is str:
        return text
    candidate = text.strip()
    fenced = _FENCED.search(candidate)
    if fenced:
        candidate = fenced.group(1).strip()
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise OutputProblem(f"it is not valid JSON ({exc.msg} at position {exc.pos})") from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise OutputProblem("it holds a number too long to read") from exc
    except RecursionError as exc:
        raise OutputProblem("it is nested too deeply") from exc
    problems = argument_problems(make_validator(type_schema(output_type)), data, noun="field")
    if problems:
        raise OutputProblem("; ".join(problems))
    try:
        return _converter.structure(data, output_type)
    except Exception as exc:
        raise OutputProblem(_describe(exc)) from exc


def _describe(exc: BaseException) -> str:
    if is_validation_error(exc):
        return "; ".join(validation_problems(exc, "", noun="field"))
    inner = getattr(exc, "exceptions", None)
    if inner:
        notes = getattr(exc, "__notes__", None)
        return "; ".join(_describe(e) for e in inner) + (f" ({notes[0]})" if notes else "")
    notes = getattr(exc, "__notes__", None)
    message = str(exc)
    return f"{message} ({notes[0]})" if notes else message


def correction_message(problem: OutputProblem, output_type: Any) -> str:
    """What the model is told when its answer could not be read."""
    name = getattr(output_type, "__name__", str(output_type))
    schema = json.dumps(type_schema(output_type), separators=(",", ":"))
    return (
        f"Your answer could not be read as {name}: {problem}. "
        f"Answer again with only a JSON value matching this schema: {schema}"
    )


def unreadable_error(problem: OutputProblem, output_type: Any) -> OutputValidationError:
    """The error a run ends with when its final answer still cannot be read.

    >>> str(unreadable_error(OutputProblem("it is not valid JSON"), int))
    'output: the final answer is not a valid int: it is not valid JSON Hint: make the type \
easier to produce, or say more in the prompt'
    """
    name = getattr(output_type, "__name__", output_type)
    return OutputValidationError(
        f"the final answer is not a valid {name}: {problem}",
        path="output",
        hint="make the type easier to produce, or say more in the prompt",
    )
