"""Designs by reference: every worker rebuilds the same definition from a YAML path
or an import path, so a session can move from one worker to another."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from statetools.disclosure.graph import DisclosureGraph, disclosure_graph
from statetools.errors import SpecError, StatetoolsError
from statetools.spec.design import Design, load_design
from statetools.spec.problems import Invalid
from statetools.spec.references import import_object, is_import_path


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
