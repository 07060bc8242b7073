"""Designs and output types by reference: every worker rebuilds the same definition
from a YAML path or an import path, so a session can move from one worker to another.

Structured output in a Temporal session names its output type the same way
(``module:Type``); the final answer is read in an activity, on the worker, where the
type can be imported, and the workflow gets its JSON back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from statetools.engine.graph import DisclosureGraph, disclosure_graph
from statetools.engine.run_result import (
    OutputProblem,
    correction_message,
    parse_output,
    unreadable_error,
)
from statetools.errors import SpecError, StatetoolsError
from statetools.spec.design import Design, load_design
from statetools.spec.problems import Invalid
from statetools.spec.references import import_object, import_path_of, is_import_path
from statetools.temporal.payloads import OutputCheck, OutputReading
from statetools.tools.convert import make_json_converter


@attrs.frozen
class LoadedDesign:
    """One design a worker can run: its items, its graph (built once, shared by the
    sessions) and the context its tool calls get.

    >>> loaded = load_reference("playbooks/research.yaml")  # doctest: +SKIP
    >>> loaded.reference  # doctest: +SKIP
    'playbooks/research.yaml'
    """

    reference: str
    items: tuple[Any, ...]
    graph: DisclosureGraph
    design: Design | None = None

    def context(self) -> dict[str, Any]:
        """A fresh context for one tool call (the design's ``context:``, if any).

        >>> sorted(load_reference("playbooks/research.yaml").context())  # doctest: +SKIP
        ['notebook']
        """
        return self.design.run_context() if self.design is not None else {}


def _items_of(value: Any, reference: str) -> tuple[tuple[Any, ...], Design | None]:
    if isinstance(value, Design):
        return tuple(value.tools), value
    if isinstance(value, list | tuple):
        return tuple(value), None
    if callable(value) and not hasattr(value, "definition"):
        made = value()
        if isinstance(made, Design | list | tuple):
            return _items_of(made, reference)
    return (value,), None


def load_reference(reference: str) -> LoadedDesign:
    """The design ``reference`` names: a design file (``playbooks/desk.yaml``), or an
    import path ``module:attribute`` naming a Design, a definition, a list of items or
    a function returning one of those.

    Raises :class:`~statetools.SpecError` (with the reference as its path) when the
    reference names nothing usable.

    >>> load_reference("no/such/file.yaml")
    Traceback (most recent call last):
    statetools.errors.SpecError: no/such/file.yaml: no such design file ...
    """
    if reference.endswith((".yaml", ".yml", ".json")) or not is_import_path(reference):
        path = Path(reference)
        if not path.is_file():
            raise SpecError(
                "no such design file",
                path=reference,
                hint="give a YAML path or an import path module:attribute",
            )
        design: Design | None = load_design(path)
        assert design is not None
        items: tuple[Any, ...] = tuple(design.tools)
    else:
        try:
            value = import_object(reference)
        except Invalid as exc:
            raise SpecError(str(exc), path=reference, hint=exc.hint) from None
        items, design = _items_of(value, reference)
    try:
        graph = disclosure_graph(*items)
    except StatetoolsError as exc:
        raise SpecError(
            f"the design cannot be built: {exc.message}",
            path=reference,
            hint=exc.hint or "check the definitions it names",
        ) from exc
    return LoadedDesign(reference, items, graph, design)


_LOADED: dict[str, LoadedDesign] = {}
"""Designs loaded in this process, by reference (a reference names one design for
the life of a process, as an import path names one module)."""


def loaded_design(reference: str) -> LoadedDesign:
    """The design a worker of this process loaded for ``reference`` (workflows read
    it here: they must not read files or import modules themselves).

    >>> loaded_design("never/loaded.yaml")
    Traceback (most recent call last):
    statetools.errors.SpecError: never/loaded.yaml: this worker does not run that design ...
    """
    found = _LOADED.get(reference)
    if found is None:
        known = ", ".join(_LOADED) or "none"
        raise SpecError(
            "this worker does not run that design",
            path=reference,
            hint=f"start the session with one of: {known}",
        )
    return found


class Designs(Mapping[str, LoadedDesign]):
    """The designs a worker runs, by reference (each loaded once, when the worker starts).

    >>> designs = Designs(["playbooks/research.yaml"])  # doctest: +SKIP
    >>> list(designs)  # doctest: +SKIP
    ['playbooks/research.yaml']
    """

    def __init__(self, references: Iterable[str | LoadedDesign]) -> None:
        self._designs: dict[str, LoadedDesign] = {}
        for reference in references:
            loaded = reference if isinstance(reference, LoadedDesign) else load_reference(reference)
            self._designs[loaded.reference] = loaded
            _LOADED.setdefault(loaded.reference, loaded)

    def __getitem__(self, reference: str) -> LoadedDesign:
        found = self._designs.get(reference)
        if found is None:
            known = ", ".join(self._designs) or "none"
            raise SpecError(
                "this worker does not run that design",
                path=reference,
                hint=f"start the session with one of: {known}",
            )
        return found

    def __iter__(self) -> Any:
        return iter(self._designs)

    def __len__(self) -> int:
        return len(self._designs)


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
