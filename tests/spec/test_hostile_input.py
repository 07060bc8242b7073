"""Hostile YAML and data: keys that are not text, alias bombs, huge files."""

from __future__ import annotations

import pytest

import statetools as st


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
