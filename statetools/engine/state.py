"""DisclosureState: everything about tool availability that changes during a run, with
the tool loop's own counters beside it in their own value (``state.loop``, a
:class:`LoopCounters`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Never

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
class LoopCounters:
    """The tool loop's own counters, which travel with a run's state so that a resumed
    run ends where the unbroken one would (they say nothing about which tools show):
    ``state.loop``, given as ``DisclosureState(loop=LoopCounters(...))``.

    ``unknown_calls_in_a_row``: calls of names that are no tool, since the last call
    of a real one; ``output_corrected``: the model was already told once that its final
    answer did not fit ``output_type``. For a model whose tools cannot change within a
    conversation, ``conversation`` (restarts so far) and ``conversation_tools`` (a
    digest of the tools the current conversation has) let a resumed run restart exactly
    where the unbroken one would. ``catalogue`` (JSON text) is what the run's tool
    catalogue holds, for models that declare every tool. ``ending`` (``return_direct``
    or ``final_state``) is set in the steps a session saves between a call that ends the
    run and the run's end: a session continued from one ends there too.

    >>> DisclosureState(loop=LoopCounters(unknown_calls_in_a_row=2)).loop
    LoopCounters(unknown_calls_in_a_row=2, output_corrected=False, conversation=0, \
conversation_tools=None, catalogue=None, ending=None)
    """

    unknown_calls_in_a_row: int = 0
    output_corrected: bool = False
    conversation: int = 0
    conversation_tools: str | None = None
    catalogue: str | None = None
    ending: str | None = None


_NO_COUNTS = LoopCounters()
_COUNTERS = frozenset(attrs.fields_dict(LoopCounters))


def _by_name(names: Iterable[str]) -> str:
    """What a state given or asked for ``names`` that are none of its fields is told;
    the loop's counters among them are shown where they are now."""
    names = sorted(names)
    text = f"DisclosureState has no field{'s' if len(names) > 1 else ''} {', '.join(names)}"
    counters = [name for name in names if name in _COUNTERS]
    if not counters:
        return text
    given = ", ".join(f"{name}=..." for name in counters)
    return (
        f"{text}: the loop's counters are given as loop=LoopCounters({given}) "
        f"and read as state.loop.{counters[0]}"
    )


@attrs.frozen(init=False)
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
    The loop's own counters travel along in their own value, ``loop``
    (:class:`LoopCounters`): given as ``loop=LoopCounters(...)`` and read as
    ``state.loop.output_corrected``. The scheduler keeps and gives the disclosure only;
    the JSON is one flat object, as it always was.

    >>> state = DisclosureState(call_counts={"search": 1}, iteration=2)
    >>> DisclosureState.from_json(state.to_json()) == state
    True
    >>> DisclosureState(output_corrected=True)
    Traceback (most recent call last):
    TypeError: DisclosureState has no field output_corrected: the loop's counters are \
given as loop=LoopCounters(output_corrected=...) and read as state.loop.output_corrected
    """

    call_counts: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen)
    machine_states: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen)
    artifacts: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    blackboard: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    visible_order: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    removed: tuple[str, ...] = attrs.field(default=(), converter=_sorted)
    iteration: int = 0
    unfolds: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)
    objects: tuple[tuple[str, str, str], ...] = attrs.field(default=(), converter=_triples)
    loop: LoopCounters = _NO_COUNTS

    def __init__(
        self,
        call_counts: Mapping[str, int] | None = None,
        machine_states: Mapping[str, str] | None = None,
        artifacts: Iterable[str] = (),
        blackboard: Iterable[str] = (),
        visible_order: Iterable[str] = (),
        removed: Iterable[str] = (),
        iteration: int = 0,
        unfolds: Iterable[Iterable[str]] = (),
        objects: Iterable[Iterable[str]] = (),
        loop: LoopCounters = _NO_COUNTS,
        **by_name: Never,
    ) -> None:
        if by_name:  # a counter by its name: say where it is now
            raise TypeError(_by_name(by_name))
        self.__attrs_init__(
            {} if call_counts is None else call_counts,
            {} if machine_states is None else machine_states,
            artifacts,
            blackboard,
            visible_order,
            removed,
            iteration,
            unfolds,
            objects,
            loop,
        )

    if not TYPE_CHECKING:  # seen at run time only: type checkers keep refusing the names

        def __getattr__(self, name: str) -> Any:
            """Only for a name that is no attribute: a counter's says where it is now."""
            if name in _COUNTERS:
                raise AttributeError(_by_name([name]), name=name, obj=self)
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
            )

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled and copied as its JSON (its read-only mappings cannot be pickled as
        they are), so ``copy.deepcopy`` and ``pickle`` work on a state and on a result.

        >>> import pickle
        >>> state = DisclosureState(call_counts={"search": 2}, iteration=3)
        >>> pickle.loads(pickle.dumps(state)) == state
        True
        """
        return (DisclosureState.from_json, (self.to_json(),))

    def disclosure(self) -> DisclosureState:
        """This state without the loop's counters (what a scheduler keeps and gives).

        >>> state = DisclosureState(iteration=2, loop=LoopCounters(output_corrected=True))
        >>> state.disclosure() == DisclosureState(iteration=2)
        True
        """
        if self.loop == _NO_COUNTS:
            return self
        return attrs.evolve(self, loop=_NO_COUNTS)

    def to_json(self) -> str:
        """The state as JSON text (one flat object: the loop's counters beside the rest).

        >>> json.loads(DisclosureState(call_counts={"search": 1}).to_json())["call_counts"]
        {'search': 1}
        >>> DisclosureState.from_json(DisclosureState(iteration=3).to_json()).iteration
        3
        """
        return json.dumps(_converter.unstructure(_Saved.of(self)), sort_keys=True)

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
            return _converter.structure(dict(data), _Saved).state()
        except Exception as exc:
            lines = cattrs.transform_error(exc, path="state", format_exception=_described)
            raise _not_a_state([_located(line) for line in lines]) from exc


@attrs.frozen
class _Saved:
    """The JSON of a :class:`DisclosureState`: every field at the top level."""

    call_counts: Mapping[str, int] = attrs.field(factory=dict)
    machine_states: Mapping[str, str] = attrs.field(factory=dict)
    artifacts: tuple[str, ...] = ()
    blackboard: tuple[str, ...] = ()
    visible_order: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    iteration: int = 0
    unfolds: tuple[tuple[str, str], ...] = ()
    unknown_calls_in_a_row: int = 0
    output_corrected: bool = False
    conversation: int = 0
    conversation_tools: str | None = None
    catalogue: str | None = None
    objects: tuple[tuple[str, str, str], ...] = ()
    ending: str | None = None

    @classmethod
    def of(cls, state: DisclosureState) -> _Saved:
        loop = state.loop
        return cls(
            state.call_counts,
            state.machine_states,
            state.artifacts,
            state.blackboard,
            state.visible_order,
            state.removed,
            state.iteration,
            state.unfolds,
            loop.unknown_calls_in_a_row,
            loop.output_corrected,
            loop.conversation,
            loop.conversation_tools,
            loop.catalogue,
            state.objects,
            loop.ending,
        )

    def state(self) -> DisclosureState:
        return DisclosureState(
            self.call_counts,
            self.machine_states,
            self.artifacts,
            self.blackboard,
            self.visible_order,
            self.removed,
            self.iteration,
            self.unfolds,
            self.objects,
            LoopCounters(
                self.unknown_calls_in_a_row,
                self.output_corrected,
                self.conversation,
                self.conversation_tools,
                self.catalogue,
                self.ending,
            ),
        )


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
