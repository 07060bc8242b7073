"""Whatever it is given, the loader either loads or raises SpecError: nothing else."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as s

import statetools as st
from statetools.spec import SpecProblem
from tests.spec import sample
from tests.spec.sample import P

KEYS = [
    "kind",
    "name",
    "description",
    "tools",
    "tool",
    "unlocked_by",
    "states",
    "enum",
    "initial",
    "final_states",
    "global_tools",
    "transitions_to",
    "state",
    "when",
    "label",
    "after",
    "all_of",
    "any_of",
    "on_artifact",
    "on_blackboard",
    "in_state",
    "machine",
    "count",
    "agent",
    "max_iterations",
    "system_prompt",
    "parameters",
    "definitions",
    "script",
    "answer",
    "call",
    "calls",
    "arguments",
    "prompt",
    "tools_from",
    "categories",
    "usage_notes",
    "exclusive",
]
WORDS = [
    "playbook",
    "machine",
    "facade",
    "search",
    "confirm",
    "ship",
    "help",
    "DRAFT",
    "CONFIRMED",
    "DONE",
    f"{P}:search",
    f"{P}:Order",
    f"{P}:OrderState",
    f"{P}:approved",
    f"{P}:cart_not_empty",
    f"{P}:research",
    "builtins:dict",
    "missing.json",
    "",
]

scalars = s.one_of(
    s.none(),
    s.booleans(),
    s.integers(min_value=-3, max_value=5),
    s.floats(allow_nan=True),
    s.sampled_from(WORDS),
    s.text(alphabet=s.characters(blacklist_characters=":"), max_size=6),
)
keys = s.one_of(s.sampled_from(KEYS), s.sampled_from(WORDS), s.integers(0, 3), s.booleans())
data = s.recursive(
    scalars,
    lambda children: s.one_of(
        s.lists(children, max_size=4),
        s.dictionaries(keys, children, max_size=5),
    ),
    max_leaves=30,
)


def _loads_or_spec_error(source: Any) -> None:
    error: st.SpecError | None = None
    try:
        st.load_design(source, tools=sample.REGISTRY)
    except st.SpecError as caught:
        error = caught
    if error is not None:
        assert error.problems
        assert all(isinstance(p, SpecProblem) for p in error.problems)
        assert all(p.startswith("$") for p in error.problems)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data)
@example({"kind": "machine", "name": "m", "description": "d", "states": {True: None}})
@example({"kind": ["playbook"]})
@example({"definitions": [{"kind": "playbook", "name": "p", "description": "d"}] * 2})
@example({"kind": "playbook", "name": "p", "description": "d", "tools": [{"tool": {}}]})
def test_random_data(value: Any) -> None:
    _loads_or_spec_error(value)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data)
def test_random_data_as_yaml_text(value: Any) -> None:
    _loads_or_spec_error(yaml.safe_dump(value) + "\n")


YAMLISH = s.lists(
    s.sampled_from([*"ab:-[]{}\n #&*!|>'\",?%@`\t0.~\x1f", "kind: ", "tools: ", "  - "]),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(YAMLISH)
@example("&a [*a]")
@example("&a {x: *a}")
@example("kind: playbook\ntools: &t [*t]\nname: n\ndescription: d")
@example("- &a [*a, *a]\n")
@example("? [a]\n: b")
@example("!!python/object:os.system {}")
def test_random_yaml_text(text: str) -> None:
    _loads_or_spec_error(text)


def _valid() -> dict[str, Any]:
    return {
        "definitions": [
            {
                "kind": "playbook",
                "name": "p",
                "description": "d",
                "tools": [f"{P}:search", {"tool": "confirm", "unlocked_by": "search"}],
            },
            {
                "kind": "machine",
                "name": "m",
                "description": "d",
                "states": {"A": {"tools": [{"tool": "ship", "transitions_to": "B"}]}, "B": {}},
                "final_states": ["B"],
            },
        ]
    }


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@settings(max_examples=300, deadline=None)
@given(s.data(), data)
def test_a_valid_document_with_one_part_replaced(draw: s.DataObject, replacement: Any) -> None:
    document = _valid()
    path = draw.draw(s.sampled_from(_paths(document)[1:]))
    target: Any = document
    for segment in path[:-1]:
        target = target[segment]
    target[path[-1]] = replacement
    _loads_or_spec_error(document)


def test_the_valid_document_loads() -> None:
    assert len(st.load_design(_valid(), tools=sample.REGISTRY).definitions) == 2
