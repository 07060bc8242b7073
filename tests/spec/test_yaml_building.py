"""``load_yaml`` builds in the pass that measures the document: the data is what
PyYAML's safe loader gives, value for value and type for type, and whatever that pass
does not build (tags, merge keys, several documents, values their tag refuses) is
built, or refused, by PyYAML as before."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from statetools.safeyaml import _UNBUILT, Loader, RefusedYaml, _read, load_yaml, load_yaml_keys


def _pyyaml(text: str) -> Any:
    return yaml.load(text, Loader=Loader)


def _typed(value: Any) -> Any:
    """``value`` with the type of every part, so that 1 and True and 1.0 differ."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


DOCUMENTS = [
    "",
    "# only a comment\n",
    "---\n",
    "~",
    "null",
    "plain text",
    "'quoted: text'",
    '"double \\t quoted"',
    "- 1\n- 1.5\n- -2\n- 0x1f\n- 0o17\n- 1_000\n- .inf\n- -.Inf\n- .nan\n- 1e3\n",
    "- true\n- false\n- yes\n- No\n- on\n- OFF\n- y\n- n\n",
    "- null\n- ~\n- Null\n-\n- ''\n- '~'\n",
    "- 2024-02-29\n- 2024-02-29T10:11:12Z\n- 2024-02-29 10:11:12.5 +02:00\n",
    "a: 1\nb: [x, 'y', 3]\nc: {d: e, f: [g, {h: i}]}\n",
    "a: 1\na: 2\nb: 3\n",
    "1: one\n2.5: two\ntrue: three\nnull: four\n2024-01-01: five\n",
    "a: &x [1, 2]\nb: *x\nc: &y {k: v}\nd: [*y, *y]\ne: &s text\nf: *s\n",
    "- !!str 123\n- !!int '7'\n- !!float '2'\n- !!bool 'true'\n- !!null ''\n",
    "- !!binary aGVsbG8=\n",
    "- !!timestamp 2001-12-14\n",
    "!!map {a: 1}",
    "!!seq [1, 2]",
    "! 12",
    "- ! 12\n- ! true\n",
    "? complex\n: key\n",
    "|\n  literal\n  block\n",
    ">\n  folded\n  block\n",
    "tools:\n  - search\n  - {tool: analyze, unlocked_by: search}\n",
    "emoji: \u2603 and \U0001f600\n",
]

DELEGATED = [
    "base: &b {a: 1, b: 2}\nmore:\n  <<: *b\n  c: 3\n",
    "base: &b {a: 1}\nmore: {<<: [*b, {z: 0}], c: 3}\n",
    "!!set {a, b}",
    "!!omap [a: 1, b: 2]",
    "!!pairs [a: 1, a: 2]",
    "= : value\n",
    "[a, b]: list key\n",
]

REFUSED = [
    "a: 1\n---\nb: 2\n",
    "- !custom thing\n",
    "- *nowhere\n",
    "a: &x 1\nb: &x 2\n",
    "{[a]: 1}",
    "- 2024-02-30\n",
    "- !!int nope\n",
    "- " + "9" * 5000 + "\n",
]


@pytest.mark.parametrize("text", DOCUMENTS + DELEGATED)
def test_load_yaml_gives_what_pyyaml_gives(text: str) -> None:
    try:
        expected = _pyyaml(text)
    except yaml.YAMLError:  # a list as a key: PyYAML refuses it, and so do we
        with pytest.raises(yaml.YAMLError):
            load_yaml(text)
        return
    assert _typed(load_yaml(text)) == _typed(expected)


def test_plain_documents_are_built_by_the_measuring_pass_and_the_rest_by_pyyaml() -> None:
    assert [text for text in DOCUMENTS if _read(text, build=True)[0] is _UNBUILT] == []
    assert [t for t in DELEGATED + REFUSED if _read(t, build=True)[0] is not _UNBUILT] == []


def test_load_yaml_keys_says_whether_every_key_is_text() -> None:
    assert load_yaml_keys("a: {b: [c, {d: e}]}") == ({"a": {"b": ["c", {"d": "e"}]}}, True)
    assert load_yaml_keys("a: [{1: one}]") == ({"a": [{1: "one"}]}, False)
    assert load_yaml_keys("a: {null: x}") == ({"a": {None: "x"}}, False)
    assert load_yaml_keys("!!set {a}") == ({"a"}, None)  # PyYAML built it: not known


@pytest.mark.parametrize("text", REFUSED)
def test_what_pyyaml_refuses_is_refused(text: str) -> None:
    with pytest.raises((yaml.YAMLError, ValueError)) as pyyaml:
        _pyyaml(text)
    with pytest.raises((yaml.YAMLError, RefusedYaml)) as ours:
        load_yaml(text)
    if isinstance(pyyaml.value, yaml.YAMLError):
        assert type(ours.value) is type(pyyaml.value)
        assert str(ours.value) == str(pyyaml.value)
    else:
        assert isinstance(ours.value, RefusedYaml)
        assert ours.value.message.startswith("YAML cannot read a value: ")
        assert ours.value.line == 1


def test_an_alias_is_the_object_its_anchor_built() -> None:
    data = load_yaml("a: &x {k: [1]}\nb: *x\nc: [*x]\n")
    assert data["a"] is data["b"] is data["c"][0]
    assert data == {"a": {"k": [1]}, "b": {"k": [1]}, "c": [{"k": [1]}]}


def test_dates_and_times_are_built_as_pyyaml_builds_them() -> None:
    data = load_yaml("day: 2024-02-29\nwhen: 2024-02-29T10:11:12Z\n")
    assert data == {
        "day": datetime.date(2024, 2, 29),
        "when": datetime.datetime(2024, 2, 29, 10, 11, 12, tzinfo=datetime.UTC),
    }


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.dates(),
)
KEYS = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none())
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(data=DATA, flow=st.sampled_from([None, True, False]), width=st.sampled_from([20, 80]))
def test_any_data_dumped_as_yaml_loads_as_pyyaml_loads_it(data: Any, flow: Any, width: int) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, width=width, allow_unicode=True)
    assert _typed(load_yaml(text)) == _typed(_pyyaml(text))
