"""The run's tool catalogue kept for the provider-native disclosure modes."""

from __future__ import annotations

import statetools as st
from statetools.engine.catalogue import CatalogueKeeper, definition
from statetools.models import ModelCapabilities, ScriptedModel, ToolCatalogue, ToolChange


def _tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: name)


A, B, X = _tool("a"), _tool("b"), _tool("x")


def test_changes_count_for_the_result_that_made_them_and_new_tools_are_appended() -> None:
    keeper = CatalogueKeeper(st.Scheduler.for_items([A, B]))

    first = keeper.request([definition(A)])
    keeper.after_call("call_1", ["a", "b"])
    second = keeper.request([definition(A), definition(B), definition(X)])
    keeper.after_call("call_2", ["x"])
    third = keeper.request([definition(X)])

    assert first == ToolCatalogue((definition(A), definition(B)), ("a",), {})
    assert (second.names, second.run_time) == (["a", "b", "x"], ("x",))
    assert second.changes == {"call_1": ToolChange(added=("b", "x"))}
    assert third == ToolCatalogue(
        (definition(A), definition(B), definition(X)),
        ("a",),
        {"call_1": ToolChange(added=("b", "x")), "call_2": ToolChange(removed=("a", "b"))},
        ("x",),
    )


def test_the_loop_fills_the_catalogue_only_for_a_model_that_asks() -> None:
    playbook = st.PlaybookTool("p", "P.").with_tool(A).with_tool(B).unlocked_by(A)
    asking = ScriptedModel(
        [("a", {}), "done"], capabilities=ModelCapabilities(declares_all_tools=True)
    )
    plain = ScriptedModel([("a", {}), "done"])

    st.ToolLoop(asking).run("go", tools=[playbook])
    st.ToolLoop(plain).run("go", tools=[playbook])

    assert [r.catalogue for r in asking.requests] == [
        ToolCatalogue((definition(A), definition(B)), ("a",), {}),
        ToolCatalogue((definition(A), definition(B)), ("a",), {"call_1": ToolChange(added=("b",))}),
    ]
    assert [r.catalogue for r in plain.requests] == [None, None]


def test_a_request_costs_what_changed_the_catalogue_keeps_its_parts_until_they_change() -> None:
    keeper = CatalogueKeeper(st.Scheduler.for_items([A, B]))
    visible = (definition(A),)

    first = keeper.request(visible)
    keeper.after_call("call_1", ("a",))  # nothing changed
    again = keeper.request(visible)
    keeper.after_call("call_2", ("a", "b"))
    changed = keeper.request((definition(A), definition(B)))
    keeper.after_call("call_3", ("a", "b", "x"))
    grown = keeper.request((definition(A), definition(B), definition(X)))

    assert again is first  # the same visible tools, nothing noted since: the same catalogue
    assert changed.tools is first.tools  # a change: the tools stay the same tuple
    assert changed.changes == {"call_2": ToolChange(added=("b",))}
    assert changed.changes is not first.changes
    assert (grown.names, grown.run_time) == (["a", "b", "x"], ("x",))
    assert grown.changes == {
        "call_2": ToolChange(added=("b",)),
        "call_3": ToolChange(added=("x",)),
    }


def test_every_run_declares_the_tools_own_definitions() -> None:
    keeper = CatalogueKeeper(st.Scheduler.for_items([A, B]))

    catalogue = keeper.request((A.definition,))

    assert catalogue.tools[0] is A.definition
    assert catalogue.tools[1] is B.definition
