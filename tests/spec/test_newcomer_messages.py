"""YAML mistakes a newcomer makes get a hint that says what to change (issue 30)."""

from __future__ import annotations

import pytest

import statetools as st

SEARCH = st.Tool.create("search", "Search", lambda: "found")


def error_of(text: str) -> str:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(text, tools=[SEARCH])
    return str(caught.value)


def test_a_tab_that_breaks_the_indentation_gets_a_hint() -> None:
    text = "kind: playbook\nname: p\ndescription: P\ntools:\n\t- tool: search\n"
    assert error_of(text) == (
        "$ (line 5): invalid YAML: a tab breaks the indentation (found character that "
        "cannot start any token) Hint: YAML indents with spaces only: replace the tabs with "
        "spaces"
    )


def test_braces_where_text_was_meant_are_flagged() -> None:
    text = "kind: playbook\nname: p\ndescription: {Use this to search}\ntools: []\n"
    assert error_of(text) == (
        "$.description (line 3): expected text, got a mapping Hint: in YAML, {...} makes a "
        "mapping: to mean text, put it in quotes, '{...}'"
    )


def test_did_you_mean_for_a_tool_also_says_how_to_name_one_by_import_path() -> None:
    text = "kind: playbook\nname: p\ndescription: P\ntools:\n  - tool: serch\n"
    assert error_of(text) == (
        "$.tools[0].tool (line 5): unknown tool 'serch' Hint: did you mean 'search'? A tool "
        "that is not passed in tools=[...] is named by import path ('module:attribute')"
    )
