"""Unlock conditions as data: what must have happened before a tool is available.

Conditions are frozen values, so the scheduler, ``check()`` and ``explore()`` can all
reason about them. Only :class:`When` is opaque (a predicate); analysis treats it as
"may be true or false".

>>> cond = AllOf(After("search"), AnyOf(After("fetch"), OnArtifact(dict)))
>>> describe(cond)
'after search and (after fetch or on dict)'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import attrs

from statetools.errors import DefinitionError


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise DefinitionError(
            f"After needs tool names, got {value!r}",
            hint="write After('search') or After(['a', 'b'])",
        )
    return names


def _positive(_instance: Any, _attribute: Any, value: int) -> None:
    if value < 1:
        raise DefinitionError(f"After(count={value}) must be at least 1")


@attrs.frozen
class After:
    """Holds when every named tool has succeeded at least ``count`` times.

    >>> After("search").tools
    ('search',)
    """

    tools: tuple[str, ...] = attrs.field(converter=_names)
    count: int = attrs.field(default=1, validator=_positive)


def _conditions(values: Sequence[Condition]) -> tuple[Condition, ...]:
    items = tuple(values)
    if not items:
        raise DefinitionError("AllOf/AnyOf need at least one condition")
    return items


@attrs.frozen(init=False)
class AllOf:
    """Holds when every one of its conditions holds: ``AllOf(After("a"), InState(...))``.

    >>> AllOf(After("search"), InState("order", "CONFIRMED")).conditions
    (After(tools=('search',), count=1), InState(machine='order', state='CONFIRMED'))
    """

    conditions: tuple[Condition, ...]

    def __init__(self, *conditions: Condition) -> None:
        self.__attrs_init__(_conditions(conditions))


@attrs.frozen(init=False)
class AnyOf:
    """Holds when at least one of its conditions holds: ``AnyOf(After("a"), After("b"))``.

    >>> AnyOf(After("search"), After("browse")).conditions
    (After(tools=('search',), count=1), After(tools=('browse',), count=1))
    """

    conditions: tuple[Condition, ...]

    def __init__(self, *conditions: Condition) -> None:
        self.__attrs_init__(_conditions(conditions))


def type_key(kind: type) -> str:
    """The stable name of a type in states and diagrams: ``module.QualName``."""
    return f"{kind.__module__}.{kind.__qualname__}"


@attrs.frozen
class OnArtifact:
    """Holds once a tool returned a value of this type (or a list/tuple containing one).

    >>> OnArtifact(dict).key
    'builtins.dict'
    """

    type: type

    @property
    def key(self) -> str:
        """The type's stable name.

        >>> OnArtifact(list).key
        'builtins.list'
        """
        return type_key(self.type)


@attrs.frozen
class OnBlackboard:
    """Holds once a value of this type was posted to the run's blackboard.

    >>> OnBlackboard(dict).key
    'builtins.dict'
    """

    type: type

    @property
    def key(self) -> str:
        """The type's stable name.

        >>> OnBlackboard(list).key
        'builtins.list'
        """
        return type_key(self.type)


def _state_name(state: Any) -> str:
    return str(getattr(state, "name", state))


@attrs.frozen
class InState:
    """Holds while state machine ``machine`` is in ``state`` (an enum member or its name).

    >>> InState("order", "CONFIRMED").state
    'CONFIRMED'
    """

    machine: str
    state: str = attrs.field(converter=_state_name)


class ConditionView(Protocol):
    """What conditions read: a run's calls, machine states, artifacts and blackboard.

    A Protocol because the run's facts that satisfy it (``RunFacts``) live in a higher
    layer, and users type their ``When`` predicates with it.

    A :class:`When` predicate receives one:

    >>> def searched_twice(view: ConditionView) -> bool:
    ...     return view.calls("search") >= 2
    >>> When(searched_twice, "searched twice").label
    'searched twice'
    """

    def calls(self, tool: str) -> int:
        """Successful calls of ``tool`` so far.

        >>> views: list[ConditionView] = []  # what a When predicate receives
        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "P").with_tools(search)
        >>> p = p.with_tool(report).unlocked_by_artifact(dict)
        >>> p = p.with_tool(Tool.create("r", "R", lambda: "")).unlocked_when(views.append)
        >>> scheduler = Scheduler.for_items([p])
        >>> view = views[-1]
        >>> _ = scheduler.record(ToolCall("c1", "search"), ToolResult.text("found"))
        >>> view.calls("search"), view.calls("report")
        (1, 0)
        """
        ...

    def machine_state(self, machine: str) -> str | None:
        """The current state name of ``machine``.

        >>> import enum
        >>> Order = enum.Enum("Order", "DRAFT DONE")
        >>> views: list[ConditionView] = []  # what a When predicate receives
        >>> gate = PlaybookTool("p", "P").with_tool(Tool.create("r", "R", lambda: ""))
        >>> gate = gate.unlocked_when(lambda v: views.append(v) or True)
        >>> order = StateMachineTool("order", "Order", Order).with_initial_state(Order.DRAFT)
        >>> view = views[-1] if Scheduler.for_items([order, gate]) else None
        >>> view.machine_state("order"), view.machine_state("other")
        ('DRAFT', None)
        """
        ...

    def seen_artifact(self, key: str) -> bool:
        """Whether an artifact of the type with this key appeared.

        >>> views: list[ConditionView] = []  # what a When predicate receives
        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "P").with_tools(search)
        >>> p = p.with_tool(report).unlocked_by_artifact(dict)
        >>> p = p.with_tool(Tool.create("r", "R", lambda: "")).unlocked_when(views.append)
        >>> scheduler = Scheduler.for_items([p])
        >>> view = views[-1]
        >>> _ = scheduler.record(ToolCall("c1", "search"), ToolResult.artifact({"n": 1}))
        >>> view.seen_artifact(OnArtifact(dict).key), view.seen_artifact(OnArtifact(list).key)
        (True, False)
        """
        ...

    def seen_on_blackboard(self, key: str) -> bool:
        """Whether a value of the type with this key was posted to the blackboard.

        >>> views: list[ConditionView] = []  # what a When predicate receives
        >>> search = Tool.create("search", "Search", lambda: "found")
        >>> report = Tool.create("report", "Report", lambda: "done")
        >>> p = PlaybookTool("p", "P").with_tools(search)
        >>> p = p.with_tool(report).unlocked_by_artifact(dict)
        >>> p = p.with_tool(Tool.create("r", "R", lambda: "")).unlocked_when(views.append)
        >>> scheduler = Scheduler.for_items([p])
        >>> view = views[-1]
        >>> view.seen_on_blackboard(OnBlackboard(dict).key)
        False
        """
        ...

    @property
    def context(self) -> Mapping[str, Any]:
        """The run's ToolCallContext.

        >>> views: list[ConditionView] = []  # what a When predicate receives
        >>> gate = PlaybookTool("p", "P").with_tool(Tool.create("r", "R", lambda: ""))
        >>> gate = gate.unlocked_when(lambda v: views.append(v) or True)
        >>> view = views[-1] if Scheduler.for_items([gate], context={"user": "ana"}) else None
        >>> view.context["user"]
        'ana'
        """
        ...


@attrs.frozen
class When:
    """Holds when ``predicate(view)`` is true; re-checked before every model call.

    ``label`` is what diagrams and messages show, e.g. "the cart is not empty".
    The predicate receives a :class:`ConditionView`.

    >>> When(lambda view: view.calls("search") > 2, "searched three times").label
    'searched three times'
    """

    predicate: Callable[[ConditionView], bool] = attrs.field(eq=False)
    label: str


Condition = After | AllOf | AnyOf | OnArtifact | OnBlackboard | InState | When
"""Any unlock condition: data that ``check()`` and ``explore()`` can reason about.

>>> condition: Condition = AnyOf((After(("search",)), When(lambda view: False, "never")))
>>> isinstance(condition, Condition)
True
"""


def holds(condition: Condition, view: ConditionView) -> bool:
    """Whether ``condition`` holds now."""
    match condition:
        case After(tools=tools, count=count):
            return all(view.calls(name) >= count for name in tools)
        case AllOf(conditions=parts):
            return all(holds(part, view) for part in parts)
        case AnyOf(conditions=parts):
            return any(holds(part, view) for part in parts)
        case OnArtifact():
            return view.seen_artifact(condition.key)
        case OnBlackboard():
            return view.seen_on_blackboard(condition.key)
        case InState(machine=machine, state=state):
            return view.machine_state(machine) == state
        case When(predicate=predicate):
            return bool(predicate(view))
    raise DefinitionError(f"not a condition: {condition!r}")


def leaves(condition: Condition) -> Iterator[Condition]:
    """The non-composite conditions inside ``condition`` (depth first)."""
    if isinstance(condition, AllOf | AnyOf):
        for part in condition.conditions:
            yield from leaves(part)
    else:
        yield condition


def _type_name(kind: type) -> str:
    return kind.__name__


def describe(condition: Condition) -> str:
    """A short label for diagrams and listings."""
    match condition:
        case After(tools=tools, count=count):
            times = f" x{count}" if count > 1 else ""
            return f"after {', '.join(tools)}{times}"
        case AllOf(conditions=parts):
            return " and ".join(_nested(p) for p in parts)
        case AnyOf(conditions=parts):
            return " or ".join(_nested(p) for p in parts)
        case OnArtifact(type=kind):
            return f"on {_type_name(kind)}"
        case OnBlackboard(type=kind):
            return f"on blackboard {_type_name(kind)}"
        case InState(state=state):
            return f"in {state}"
        case When(label=label):
            return f"when {label}"
    raise DefinitionError(f"not a condition: {condition!r}")


def _nested(condition: Condition) -> str:
    text = describe(condition)
    return (
        f"({text})"
        if isinstance(condition, AllOf | AnyOf) and len(condition.conditions) > 1
        else text
    )


def _pending_calls(condition: After, view: ConditionView) -> list[str]:
    pending = []
    for name in condition.tools:
        missing = condition.count - view.calls(name)
        if missing > 0:
            pending.append(name if condition.count == 1 else f"{name} ({missing} more)")
    return pending


def _clause(condition: Condition, view: ConditionView) -> str:
    """An unmet condition as a clause: 'search is called', 'a Order is returned'."""
    match condition:
        case After():
            return f"{', '.join(_pending_calls(condition, view))} succeeded"
        case OnArtifact(type=kind):
            return f"a tool returned a {_type_name(kind)}"
        case OnBlackboard(type=kind):
            return f"a {_type_name(kind)} is on the blackboard"
        case InState(state=state):
            return f"the state is {state}"
        case When(label=label):
            return label
        case AllOf(conditions=parts):
            return " and ".join(_clause(p, view) for p in parts if not holds(p, view))
        case AnyOf(conditions=parts):
            return " or ".join(_clause(p, view) for p in parts)
    raise DefinitionError(f"not a condition: {condition!r}")


def _single_call(condition: Condition) -> bool:
    return isinstance(condition, After) and condition.count == 1 and len(condition.tools) == 1


def unmet_sentences(condition: Condition, view: ConditionView) -> list[str]:
    """What still has to happen for ``condition`` to hold, as sentences for the model.

    Empty when the condition holds.
    """
    if holds(condition, view):
        return []
    match condition:
        case After():
            return [f"Call first: {', '.join(_pending_calls(condition, view))}."]
        case AllOf(conditions=parts):
            return [s for part in parts for s in unmet_sentences(part, view)]
        case AnyOf(conditions=parts) if all(_single_call(p) for p in parts):
            names = [name for p in parts for name in p.tools]  # type: ignore[union-attr]
            return [f"Call first one of: {', '.join(names)}."]
        case AnyOf(conditions=parts):
            return [f"It unlocks when {' or '.join(_clause(p, view) for p in parts)}."]
        case InState(state=state):
            return [f"It unlocks in state {state}."]
        case _:
            return [f"It unlocks when {_clause(condition, view)}."]


def pending_tools(condition: Condition, view: ConditionView) -> list[str]:
    """The tools whose calls ``condition`` still waits for, in the order it names them:
    those of its unmet :class:`After` parts, all of them when it needs all of them.
    Alternatives (:class:`AnyOf`), artifacts, states and predicates name no tool to
    call, so they add none.

    >>> class Nothing:
    ...     def calls(self, tool): return 1 if tool == "login" else 0
    >>> pending_tools(AllOf(After("login"), After(("press_brake", "lock_doors"))), Nothing())
    ['press_brake', 'lock_doors']
    >>> pending_tools(AnyOf(After("a"), After("b")), Nothing())
    []
    """
    match condition:
        case After(tools=tools, count=count):
            return [name for name in tools if view.calls(name) < count]
        case AllOf(conditions=parts):
            names = (name for part in parts for name in pending_tools(part, view))
            return list(dict.fromkeys(names))
    return []
