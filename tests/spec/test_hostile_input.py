"""Hostile YAML and data: keys that are not text, alias bombs, huge files."""

from __future__ import annotations

from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel


def _error(source: object) -> str:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(source)  # type: ignore[arg-type]
    return str(caught.value)


QUOTE_HINT = "Hint: put the key in quotes ('{key}':) if it is meant as a name"


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("null", "null"),
        ("~", "null"),
        ("1.5", "a number"),
        ("3", "an integer"),
        ("yes", "true or false"),
        ("2024-01-01", "a date"),
    ],
)
def test_a_key_yaml_does_not_read_as_text_is_a_spec_error_with_path_and_line(
    key: str, kind: str
) -> None:
    text = f"kind: playbook\nname: p\ndescription: d\n{key}: 1\n"
    where = "$.null" if key == "null" else f"$[{key!r}]" if key != "yes" else "$.yes"
    assert _error(text) == (
        f"{where} (line 4): the key {key} is not text: YAML reads it as {kind} "
        + QUOTE_HINT.format(key=key)
    )


def test_keys_that_are_not_text_are_all_reported_at_depth() -> None:
    text = (
        "kind: machine\nname: m\ndescription: d\nstates:\n  null: {}\n  DRAFT:\n"
        "    tools:\n      - tool: x\n        1.5: y\n"
    )
    assert _error(text) == (
        "2 problems:\n"
        "  $.states.null (line 5): the key null is not text: YAML reads it as null "
        + QUOTE_HINT.format(key="null")
        + "\n  $.states.DRAFT.tools[0]['1.5'] (line 9): the key 1.5 is not text: "
        "YAML reads it as a number " + QUOTE_HINT.format(key="1.5")
    )


def test_a_merge_key_is_still_allowed() -> None:
    text = "base: &b {name: p, description: d}\nkind: playbook\n<<: *b\n"
    with pytest.raises(st.SpecError) as caught:
        st.load_design(text)
    assert "is not text" not in str(caught.value)


def test_dict_keys_that_are_not_strings_are_a_spec_error_with_the_path() -> None:
    data = {"kind": "playbook", "name": "p", "description": "d", "tools": [{1.5: "x"}]}
    assert _error(data) == (
        "$.tools[0]['1.5']: the key 1.5 is not text (float) Hint: use strings as keys"
    )
    assert _error({None: 1}) == (
        "$.None: the key None is not text (NoneType) Hint: use strings as keys"
    )


def test_a_dict_that_contains_itself_is_walked_once() -> None:
    data: dict[str, object] = {"kind": "playbook", "name": "p", "description": "d"}
    data["tools"] = [data]
    with pytest.raises(st.SpecError):
        st.load_design(data)


def test_a_string_bomb_is_refused_at_once_with_a_short_error(tmp_path: Path) -> None:
    aliases = ", ".join(["*big"] * 200)
    path = tmp_path / "bomb.yaml"
    path.write_text(f"big: &big {'x' * 1_000_000}\nkind: playbook\nname: [{aliases}]\n")
    assert _error(path) == (
        f"{path}: $ (line 3): the YAML expands to more than 20,000,000 characters "
        "(aliases repeat what their anchors hold) Hint: repeat less through aliases"
    )


def test_a_billion_laughs_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    assert _error("\n".join(lines)) == (
        "$ (line 7): the YAML expands to more than 20,000,000 characters "
        "(aliases repeat what their anchors hold) Hint: repeat less through aliases"
    )


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    assert _error("kind: playbook\nname: &n [a, *n]\n") == (
        "$ (line 2): the YAML refers to itself (an alias inside its own anchor) "
        "Hint: remove the alias *n from inside &n"
    )


@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_nesting_is_refused_before_it_is_built(depth: int) -> None:
    assert _error("kind: " + "[" * depth + "]" * depth) == (
        "$ (line 1): the YAML is nested more than 256 levels deep Hint: flatten the data"
    )


@pytest.fixture(params=["libyaml", "pure-python"])
def yaml_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that takes it runs with libyaml's loader and with PyYAML's own."""
    import yaml

    from statetools import safeyaml

    if request.param == "libyaml":
        assert yaml.__with_libyaml__, "PyYAML was installed without libyaml"
        monkeypatch.setattr(safeyaml, "Loader", yaml.CSafeLoader)
    else:
        monkeypatch.setattr(safeyaml, "Loader", yaml.SafeLoader)
    return str(request.param)


DEEP_FLOW = "- a: " + "[" * 5000 + "]" * 5000
DEEP_BLOCK = "\n".join("  " * level + f"k{level}:" for level in range(1500)) + " v\n"
DEEP_FLOW_ON_MANY_LINES = "kind: " + "[\n " * 2000 + "]" * 2000


@pytest.mark.parametrize(
    ("text", "line"), [(DEEP_FLOW, 1), (DEEP_BLOCK, 257), (DEEP_FLOW_ON_MANY_LINES, 256)]
)
def test_the_nesting_limit_and_its_message_hold_with_either_yaml_loader(
    yaml_loader: str, text: str, line: int
) -> None:
    # libyaml (PyYAML >= 6.0.4) stops nesting past 1,000 levels with its own message,
    # scanning ahead of the events statetools counts; the message stays statetools' own
    # and names the line where the document first passes 256 levels, as without libyaml.
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(text)
    assert str(caught.value) == (
        f"$ (line {line}): the YAML is nested more than 256 levels deep Hint: flatten the data"
    )


def test_nesting_within_the_limit_loads_with_either_yaml_loader(yaml_loader: str) -> None:
    from statetools.safeyaml import load_yaml

    assert load_yaml("a: " + "[" * 255 + "]" * 255) == {"a": load_yaml("[" * 255 + "]" * 255)}


def test_a_file_past_the_size_limit_is_refused_with_its_size_and_the_limit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("definitions: []\n" + "#" * 8_000_000 + "\n")
    assert _error(path) == (
        f"{path}: $: the file is 8,000,017 bytes, more than the limit of 8,000,000 "
        "Hint: split the design into several files (tool schemas can go in a tools_from file)"
    )
    assert _error(path.read_text()) == (
        "$: the text is 8,000,017 bytes, more than the limit of 8,000,000 "
        "Hint: split the design into several files (tool schemas can go in a tools_from file)"
    )


def test_a_tools_file_with_an_alias_bomb_is_refused(tmp_path: Path) -> None:
    aliases = ", ".join(["*big"] * 200)
    (tmp_path / "tools.yaml").write_text(f"- &big {'x' * 1_000_000}\n- [{aliases}]\n")
    design = tmp_path / "design.yaml"
    design.write_text("kind: playbook\nname: p\ndescription: d\ntools_from: tools.yaml\n")
    assert _error(design) == (
        f"{design}: $.tools_from (line 4): the YAML expands to more than 20,000,000 "
        "characters (aliases repeat what their anchors hold) Hint: repeat less through aliases"
    )


def test_errors_quote_at_most_a_few_hundred_characters_of_a_value() -> None:
    name = "x" * 100_000
    message = _error(f"kind: playbook\nname: p\ndescription: d\ntools: [{name}]\n")
    assert message == (
        f"$.tools[0] (line 4): unknown tool '{'x' * 79}… (100000 characters)' "
        "Hint: pass the tool in tools=[...], name it by import path ('module:attribute'), "
        "or import a tools file with tools_from"
    )
    assert _error({"kind": name}) == (
        f"$.kind: unknown kind '{'x' * 78}… (100002 characters) "
        "Hint: use one of: playbook, machine, facade, sections, skills"
    )


def test_long_keys_are_shortened_in_paths() -> None:
    key = "k" * 1000
    assert _error({"kind": "playbook", "name": "p", "description": "d", key: 1}) == (
        f"$.{'k' * 79}… (1000 characters): unknown key '{'k' * 79}… (1000 characters)' "
        "Hint: allowed keys: name, description, tools, agent"
    )


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("1" * 5000, "an integer is longer than 4300 digits"),
        ("2024-13-45", "month must be in 1..12"),
        ("!!int abc", "invalid literal for int() with base 10: 'abc'"),
        ("!!timestamp 2024-02-30", "day is out of range for month"),
    ],
)
def test_a_value_yaml_cannot_build_is_a_spec_error_with_its_line(value: str, what: str) -> None:
    assert _error(f"kind: playbook\nname: p\ndescription: d\nx: {value}\n") == (
        f"$ (line 4): YAML cannot read a value: {what} Hint: quote the value if it is meant as text"
    )


def test_a_tag_that_cannot_build_its_value_is_a_spec_error() -> None:
    assert _error("kind: playbook\nname: p\ndescription: d\nx: !!timestamp never\n") == (
        "$ (line 4): YAML cannot read a value: the value does not fit its tag "
        "Hint: quote the value if it is meant as text"
    )


@pytest.mark.parametrize(
    ("script", "text"),
    [
        (
            "- answer: " + "[" * 5000 + "]" * 5000,
            "the YAML is nested more than 256 levels deep (line 1) Hint: flatten the data",
        ),
        (
            "- answer: 2024-13-45",
            "YAML cannot read a value: month must be in 1..12 (line 1) "
            "Hint: quote the value if it is meant as text",
        ),
        (
            "- &s [*s]",
            "the YAML refers to itself (an alias inside its own anchor) (line 1) "
            "Hint: remove the alias *s from inside &s",
        ),
    ],
)
def test_scripts_are_read_within_the_same_limits(script: str, text: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        ScriptedModel.from_yaml(script)
    assert str(caught.value) == f"script: {text}"
