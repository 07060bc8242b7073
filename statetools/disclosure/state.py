"""DisclosureState: everything about tool availability that changes during a run."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs
import cattrs

from statetools.errors import SpecError
from statetools.tools.convert import make_json_converter


def _frozen(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only copy, sorted by key (so equal states print and serialize alike)."""
    return MappingProxyType(dict(sorted(value.items())))


def _sorted(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(value)))


def _tuple(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _triples(value: Iterable[Iterable[str]]) -> tuple[tuple[str, str, str], ...]:
    triples = []
    for triple in value:
        first, second, third = triple
        triples.append((str(first), str(second), str(third)))
    return tuple(triples)


def _pairs(value: Iterable[Iterable[str]]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for pair in value:
        first, second = pair
        pairs.append((str(first), str(second)))
    return tuple(pairs)


@attrs.frozen
class DisclosureState:
    """A serializable snapshot of a run's disclosure: resume a run from it.

    ``call_counts``: successful calls per tool name; ``machine_states``: the current
    state of each state machine; ``artifacts`` / ``blackboard``: type keys of values
    seen (for OnArtifact / OnBlackboard); ``visible_order``: the tools shown, in the
    order they were shown in (kept on resume, so provider prompt caches stay warm),
    with the tools added at run time (discovery, chaining, injection strategies);
    ``removed``: tools an injection strategy removed; ``iteration``: model calls made;
    ``unfolds``: the facades that unfolded, in order, each with the arguments of its
    call as JSON (a resumed run unfolds them again; a selectable facade's selector runs
    again with them); ``objects``: the bound objects by reference, ``(role, type key,
    id)`` with role the chained type key, ``*`` (``Chaining.any()``) or ``discovery``:
    a resumed run finds them again with ``ToolLoop(instances=...)``.
    Two counters of the tool loop travel along, so a resumed run ends where the
    unbroken one would: ``unknown_calls_in_a_row`` (calls of names that are no tool,
    since the last call of a real one) and ``output_corrected`` (the model was already
    told once that its final answer did not fit ``output_type``). For a model whose
    tools cannot change within a conversation, ``conversation`` (restarts so far) and
    ``conversation_tools`` (a digest of the tools the current conversation has) let a
    resumed run restart exactly where the unbroken one would. ``catalogue`` (JSON text)
    is what the run's tool catalogue holds, for models that declare every tool.
    ``ending`` (``return_direct`` or ``final_state``) is set in the steps a session
    saves between a call that ends the run and the run's end (the output is the saved
    result's): a session continued from one ends there too, without asking the model.

    >>> state = DisclosureState(call_counts={"search": 1}, iteration=2)
    >>> DisclosureState.from_json(state.to_json()) == state
    True
    """

    call_counts: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen)
    machine_states: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen)
    artifacts: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    blackboard: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    visible_order: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    removed: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    iteration: int = 0
    unfolds: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)
    unknown_calls_in_a_row: int = 0
    output_corrected: bool = False
    conversation: int = 0
    conversation_tools: str | None = None
    catalogue: str | None = None
    objects: tuple[tuple[str, str, str], ...] = attrs.field(default=(), converter=_triples)
    ending: str | None = None

    def to_json(self) -> str:
        """The state as JSON text.

        >>> json.loads(DisclosureState(call_counts={"search": 1}).to_json())["call_counts"]
        {'search': 1}
        >>> DisclosureState.from_json(DisclosureState(iteration=3).to_json()).iteration
        3
        """
        return json.dumps(_converter.unstructure(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> DisclosureState:
        """A state from :meth:`to_json`'s text (or the decoded dict).

        Raises :class:`~statetools.SpecError` naming each field that is wrong.

        >>> try:
        ...     DisclosureState.from_json('{"call_counts": {"search": "two"}}')
        ... except SpecError as error:
        ...     print(error.problems)
        ("state.call_counts['search']: expected an integer, got str",)
        """
        try:
            data = json.loads(text) if isinstance(text, str) else text
        except (ValueError, RecursionError) as exc:
            raise _not_a_state([("state", f"not JSON ({exc})")]) from exc
        if not isinstance(data, Mapping):
            found = "null" if data is None else type(data).__name__
            raise _not_a_state([("state", f"expected a JSON object, got {found}")])
        try:
            return _converter.structure(dict(data), cls)
        except Exception as exc:
            lines = cattrs.transform_error(exc, path="state", format_exception=_described)
            raise _not_a_state([_located(line) for line in lines]) from exc


_converter = make_json_converter(forbid_extra_keys=True)


def _exactly(kind: type[Any], name: str) -> Any:
    def structure(value: Any, _: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {name}, got {type(value).__name__}")
        return value

    return structure


_converter.register_structure_hook(str, _exactly(str, "text"))
_converter.register_structure_hook(int, _exactly(int, "an integer"))
_converter.register_structure_hook(bool, _exactly(bool, "true or false"))


def _described(exc: BaseException, _type: Any) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        return f"unknown fields: {', '.join(sorted(map(str, exc.extra_fields)))}"
    return str(exc) or type(exc).__name__


def _located(line: str) -> tuple[str, str]:
    """``"expected text @ state.x"`` -> ``("state.x", "expected text")``."""
    message, _, path = line.rpartition(" @ ")
    return (path, message) if message else ("state", line)


def _not_a_state(problems: list[tuple[str, str]]) -> SpecError:
    path, message = problems[0]
    return SpecError(
        message,
        path=path,
        hint="pass the text of result.state.to_json()",
        problems=tuple(f"{where}: {what}" for where, what in problems),
    )
