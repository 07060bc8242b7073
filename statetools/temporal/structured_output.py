"""Structured output in a Temporal session: the output type is named by reference
(``module:Type``, as designs are) and the final answer is read in an activity, on
the worker, where the type can be imported; the workflow gets its JSON back."""

from __future__ import annotations

import json
from typing import Any

from statetools.engine.output import (
    OutputProblem,
    correction_message,
    parse_output,
    unreadable_error,
)
from statetools.errors import SpecError
from statetools.spec.problems import Invalid
from statetools.spec.references import import_object, import_path_of
from statetools.temporal.payloads import OutputCheck, OutputReading
from statetools.tools.convert import make_json_converter

_converter = make_json_converter()


def output_reference(output_type: str | type | Any) -> str:
    """The reference a session names its output type by: an import path as given,
    or the import path of a type (which workers must be able to import too).

    >>> output_reference(int)
    'builtins:int'
    >>> output_reference(list[int])
    Traceback (most recent call last):
    statetools.errors.SpecError: output_type: ...
    """
    if isinstance(output_type, str):
        return output_type
    found = import_path_of(output_type)
    if found is None:
        raise SpecError(
            f"{output_type!r} has no import path a worker could import",
            path="output_type",
            hint="name a class defined at the top level of a module, as 'module:Type'",
        )
    return found


def output_type_of(reference: str) -> Any:
    """The type ``reference`` names; :class:`~statetools.SpecError` when it names none.

    >>> output_type_of("builtins:int")
    <class 'int'>
    """
    try:
        found = import_object(reference)
    except Invalid as exc:
        raise SpecError(str(exc), path="output_type", hint=exc.hint) from None
    if not isinstance(found, type):
        raise SpecError(
            f"{reference} is not a type",
            path="output_type",
            hint="name a class, as 'module:Type'",
        )
    return found


def read_output(check: OutputCheck) -> OutputReading:
    """Read ``check.text`` as the output type, as a local run reads its final answer:
    the value as JSON, or what to tell the model (``correction``) and the error that
    ends the session when it was told already (``error``).

    >>> read_output(OutputCheck("builtins:int", "42")).value
    42
    >>> read_output(OutputCheck("builtins:int", "forty-two")).ok
    False
    """
    output_type = output_type_of(check.output_type)
    try:
        value = parse_output(check.text, output_type)
    except OutputProblem as problem:
        correction = correction_message(problem, output_type)
        return OutputReading(False, None, correction, str(unreadable_error(problem, output_type)))
    return OutputReading(True, _converter.unstructure(value))


def output_value(answer: Any, output_type: str | type | Any) -> Any:
    """A session's answer (the JSON of its output) as a value of ``output_type``, the
    value a local run's ``output`` is.

    >>> import attrs
    >>> @attrs.frozen
    ... class Point:
    ...     x: int
    >>> output_value({"x": 1}, Point)
    Point(x=1)
    """
    kind = output_type_of(output_type) if isinstance(output_type, str) else output_type
    return parse_output(json.dumps(answer), kind)
