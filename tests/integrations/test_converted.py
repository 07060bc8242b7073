"""Converted: one framework form per tool, made again when a tool changes, bounded."""

from __future__ import annotations

import threading

import attrs

from statetools.integrations.bridge import Converted
from statetools.tools.calling import ToolResult
from statetools.tools.fields import ToolDefinition
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


def test_a_form_another_thread_evicts_while_one_is_being_checked_is_no_error() -> None:
    checking, go = threading.Event(), threading.Event()

    @attrs.frozen(kw_only=True)
    class Slow(BaseTool):
        """A tool whose definition takes a while to compare (the first time)."""

        @property
        def definition(self) -> ToolDefinition:
            if not go.is_set():
                checking.set()
                go.wait(5)
            return ToolDefinition(self.name, self.description, self.input_schema)

        async def acall(self, arguments: object = None, context: object = None) -> ToolResult:
            return ToolResult.text("ok")

    forms = Converted(lambda t: f"{t.name}:{t.description}", limit=1)
    forms.get(tool("a"))
    got: list[str] = []
    errors: list[Exception] = []

    def get(t: BaseTool) -> None:
        try:
            got.append(forms.get(t))
        except Exception as exc:  # the test reports what was raised
            errors.append(exc)

    first = threading.Thread(target=get, args=(Slow(name="a", description="Does it."),))
    first.start()
    assert checking.wait(5)  # the first thread compares its tool with the cached "a"
    second = threading.Thread(target=get, args=(tool("b"),))
    second.start()  # one over the limit: "a" goes
    second.join(0.2)
    go.set()
    first.join(5)
    second.join(5)
    assert errors == []
    assert sorted(got) == ["a:Does it.", "b:Does it."]
    assert ["a" in forms, "b" in forms] == [False, True]
