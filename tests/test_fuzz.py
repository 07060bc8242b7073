"""Fuzzing: mutated designs and invented arguments raise only StatetoolsError.

The designs are the example playbooks of ``playbooks/`` (a playbook, a state machine,
facades over a tools file, with a script and a context). Each example mutates one of
them: keys deleted, renamed (also to null, numbers and booleans) and retyped, parts
shared or made to contain themselves (anchors and aliases once written as YAML),
characters and bytes flipped. Loading must give a design or a SpecError whose
problems are short; checking a design that loads must not raise either.

Tool arguments: any JSON value (huge and deep ones included), any text, for tools of
every kind of signature, called directly and through a run; the answer is always a
ToolResult, and an error result always says what to do.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import enum
import json
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import attrs
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as s

import statetools as st
from statetools.models import ScriptedModel

PLAYBOOKS = Path(__file__).resolve().parent.parent / "playbooks"
DESIGNS = {path.name: path.read_text(encoding="utf-8") for path in sorted(PLAYBOOKS.glob("*.yaml"))}
PARSED = {name: yaml.safe_load(text) for name, text in DESIGNS.items()}
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROBLEM_LIMIT = 700
"""The longest problem text allowed (path, line, a message and a hint of at most 300 each)."""


def _load(source: Any) -> st.Design | None:
    """The design, or None after a SpecError whose problems are all short."""
    problems: tuple[str, ...] = ()
    try:
        design = st.load_design(source, base_dir=PLAYBOOKS)
    except st.SpecError as error:
        problems = error.problems
    else:
        with contextlib.suppress(st.StatetoolsError):
            st.check(st.disclosure_graph(*design.definitions))
        return design
    assert problems
    assert all(len(problem) <= PROBLEM_LIMIT for problem in problems)
    return None


# ---- mutations of the parsed data ------------------------------------------------

ODD_KEYS = [None, 0, 3, 1.5, True, False, "", "null", "kind ", "Kind", "tool", "x" * 500]
values = s.recursive(
    s.one_of(
        s.none(),
        s.booleans(),
        s.integers(),
        s.floats(),
        s.text(max_size=20),
        s.sampled_from(["playbook", "machine", "facade", "DONE", "research:search", "x" * 3000]),
    ),
    lambda children: s.one_of(
        s.lists(children, max_size=3),
        s.dictionaries(
            s.one_of(s.text(max_size=8), s.sampled_from(ODD_KEYS)), children, max_size=3
        ),
    ),
    max_leaves=8,
)


def _containers(
    value: Any, path: tuple[Any, ...] = (), seen: set[int] | None = None
) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, container) of every mapping and list, outermost first (each once)."""
    seen = set() if seen is None else seen
    found: list[tuple[tuple[Any, ...], Any]] = []
    if isinstance(value, dict | list) and id(value) not in seen:
        seen.add(id(value))
        found.append((path, value))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in list(items):
            found += _containers(item, (*path, key), seen)
    return found


@s.composite
def mutated(draw: s.DrawFn) -> Any:
    """One of the example designs, with one to four mutations."""
    data = copy.deepcopy(PARSED[draw(s.sampled_from(sorted(PARSED)))])
    for _ in range(draw(s.integers(1, 4))):
        places = _containers(data)
        path, container = draw(s.sampled_from(places))
        keys = list(container) if isinstance(container, dict) else list(range(len(container)))
        if not keys:
            continue
        key = draw(s.sampled_from(keys))
        action = draw(s.sampled_from(["delete", "rename", "retype", "share", "loop"]))
        if action == "delete":
            del container[key]
        elif action == "rename" and isinstance(container, dict):
            new = draw(s.one_of(s.sampled_from(ODD_KEYS), s.text(max_size=12)))
            container[new] = container.pop(key)
        elif action == "retype":
            container[key] = draw(values)
        elif action == "share":  # written as an anchor and an alias
            container[key] = draw(s.sampled_from(places))[1]
        elif action == "loop":  # an alias inside its own anchor
            ancestors = [c for p, c in places if path[: len(p)] == p]
            container[key] = draw(s.sampled_from(ancestors))
    return data


@FUZZ
@given(mutated())
def test_mutated_designs_as_data(data: Any) -> None:
    _load(data)


@FUZZ
@given(mutated())
@example({"kind": "playbook", None: 1, 1.5: "x"})
def test_mutated_designs_as_yaml(data: Any) -> None:
    try:
        text = yaml.safe_dump(data, allow_unicode=True)
    except (yaml.YAMLError, RecursionError):
        return  # not representable as YAML
    _load(text)


FLIPS = [
    *"\x00\x01\x1f\x7f\t\n :-[]{}&*!|>'\",?%@`#~.0\u00e9\ufeff\U0001f600",
    "&a ",
    "*a",
    "<<: ",
]
RAW_VALUES = [
    "2024-13-45",
    "2024-02-30 10:00:00",
    "!!int x",
    "!!float y",
    "!!binary ***",
    "!!timestamp never",
    "!!set {a: 1}",
    "!!omap [a, b]",
    "!!python/object:os.system {}",
    "9" * 5000,
    "0x" + "f" * 4000,
    "1e99999",
    ".nan",
    "~",
    "*nowhere",
]
"""Values written as raw YAML after a key: tags, dates and numbers that cannot be built."""


@FUZZ
@given(s.data())
def test_designs_with_flipped_characters(draw: s.DataObject) -> None:
    source = DESIGNS[draw.draw(s.sampled_from(sorted(DESIGNS)))]
    colons = [at for at in range(len(source)) if source.startswith(": ", at)]
    for _ in range(draw.draw(s.integers(0, 2))):  # a value replaced by a raw YAML value
        at = draw.draw(s.sampled_from(colons)) + 2
        end = source.find("\n", at)
        source = source[:at] + draw.draw(s.sampled_from(RAW_VALUES)) + source[end:]
        colons = [at for at in range(len(source)) if source.startswith(": ", at)]
    text = list(source)
    for _ in range(draw.draw(s.integers(0, 8))):
        at = draw.draw(s.integers(0, len(text) - 1))
        change = draw.draw(s.sampled_from(["replace", "insert", "delete"]))
        if change == "delete":
            del text[at]
        else:
            piece = draw.draw(s.one_of(s.sampled_from(FLIPS), s.characters()))
            text[at : at + (change == "replace")] = [piece]
    _load("".join(text))


@settings(max_examples=60, deadline=None)
@given(s.data())
def test_design_files_with_flipped_bytes(draw: s.DataObject) -> None:
    raw = bytearray(DESIGNS[draw.draw(s.sampled_from(sorted(DESIGNS)))].encode())
    for _ in range(draw.draw(s.integers(1, 8))):
        raw[draw.draw(s.integers(0, len(raw) - 1))] = draw.draw(s.integers(0, 255))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "design.yaml"
        path.write_bytes(bytes(raw))
        _load(path)


def test_every_example_design_loads_unmutated() -> None:
    assert all(_load(text) is not None for text in DESIGNS.values())


# ---- tool arguments --------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: Annotated[float, st.Param("Across", schema={"minimum": -10})]
    y: float = 0.0


@attrs.frozen
class Box:
    corner: Point
    tags: list[str] = attrs.Factory(list)


def plain(text: str, count: int = 1, ratio: float = 0.5, flag: bool = False) -> str:
    """Plain JSON types."""
    return text * min(count, 3)


def shaped(
    colour: Colour, mode: Literal["fast", "slow"], box: Box, extra: dict[str, int] | None = None
) -> Box:
    """Enums, literals, nested classes."""
    return box


def loose(**anything: Any) -> dict[str, Any]:
    """Any keywords."""
    return anything


def raw_bytes(size: int) -> bytes:
    """Returns bytes."""
    return bytes(max(0, min(size, 10)))


TOOLS = [
    st.Tool.from_function(plain),
    st.Tool.from_function(shaped),
    st.Tool.from_function(loose),
    st.Tool.from_function(raw_bytes),
    st.Tool.create(
        "schema_only",
        "Hand-written schema.",
        lambda **kw: kw,
        schema=st.InputSchema.of(
            st.Parameter.string("q", "Query", enum=["a", "b"]),
            st.Parameter.array("ids", "Ids", items={"type": "integer"}, required=False),
        ),
    ),
]
json_values = s.recursive(
    s.one_of(
        s.none(),
        s.booleans(),
        s.integers(),
        s.sampled_from([5000, -4400, 64]).map(lambda n: 10**n if n > 0 else -(10**-n)),
        s.floats(),
        s.text(max_size=20),
    ),
    lambda children: s.one_of(
        s.lists(children, max_size=4),
        s.dictionaries(s.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)


def _dumps(value: Any) -> str:
    """JSON text of ``value``; integers too long for ``str()`` written out digit by digit."""
    try:
        return json.dumps(value)
    except ValueError:
        return '{"text": ' + "7" * 5000 + "}"


DEEP = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"


def _answered(tool: st.BaseTool, result: st.ToolResult) -> None:
    assert isinstance(result, st.ToolResult)
    if result.is_error:
        assert result.text.startswith(
            (f"Invalid arguments for tool '{tool.name}'", f"Tool '{tool.name}' failed")
        ), result.text


@FUZZ
@given(s.sampled_from(TOOLS), s.dictionaries(s.text(max_size=8), json_values, max_size=4))
def test_invented_arguments_as_a_dict(tool: st.Tool, arguments: dict[str, Any]) -> None:
    _answered(tool, tool.call(arguments))


@FUZZ
@given(s.sampled_from(TOOLS), s.data())
@example(TOOLS[0], DEEP)
@example(TOOLS[0], '{"text": ' + "9" * 5000 + "}")
@example(TOOLS[0], '{"text": NaN, "count": Infinity}')
@example(TOOLS[0], '{"text": "\\ud800"}')
def test_invented_arguments_as_text(tool: st.Tool, draw: Any) -> None:
    if isinstance(draw, str):
        text = draw
    else:
        text = draw.draw(
            s.one_of(
                s.text(max_size=40),
                s.dictionaries(s.text(max_size=8), json_values, max_size=4).map(_dumps),
            )
        )
    _answered(tool, tool.call(text))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    s.lists(
        s.tuples(
            s.sampled_from([t.name for t in TOOLS] + ["missing"]),
            s.dictionaries(s.text(max_size=8), json_values, max_size=3),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_invented_calls_in_a_run_are_all_answered(calls: list[tuple[str, dict[str, Any]]]) -> None:
    model = ScriptedModel([calls, "Done."])
    try:
        result = st.ToolLoop(model).run("Go", tools=TOOLS)
    except st.StatetoolsError:
        return
    answered = [m.tool_call_id for m in result.messages if m.role == "tool"]
    assert len(answered) == len(calls)
    assert result.output == "Done."
