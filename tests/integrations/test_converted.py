"""Converted: one framework form per tool, made again when a tool changes, bounded."""

from __future__ import annotations

from statetools.integrations.bridge import Converted
from statetools.tools.tool import BaseTool, Tool


def tool(name: str, description: str = "Does it.") -> Tool:
    return Tool.create(name, description, lambda: "ok")


def test_same_definition_reuses_the_form_and_a_changed_one_makes_it_again() -> None:
    made: list[str] = []

    def convert(t: BaseTool) -> str:
        made.append(t.description)
        return f"{t.name}:{t.description}"

    forms = Converted(convert)
    assert forms.get(tool("a")) == "a:Does it."
    assert forms.get(tool("a")) == "a:Does it."  # an equal tool, another object
    assert forms.get(tool("a", "Does it better.")) == "a:Does it better."
    assert made == ["Does it.", "Does it better."]
    assert "a" in forms
    assert "b" not in forms


def test_added_tools_keep_the_most_recently_used_and_registered_ones_all() -> None:
    forms = Converted(lambda t: t.description, limit=2)
    forms.get(tool("r"), registered=True)
    forms.get(tool("a"))
    forms.get(tool("b"))
    forms.get(tool("a", "Changed."))  # made again: now the most recently used
    forms.get(tool("c"))  # one over the limit: b, the least recently used, goes
    assert ["r" in forms, "a" in forms, "b" in forms, "c" in forms] == [True, True, False, True]
    forms.get(tool("a", "Changed."))  # used: c is now the oldest
    forms.get(tool("d"))
    assert ["r" in forms, "a" in forms, "c" in forms, "d" in forms] == [True, True, False, True]
