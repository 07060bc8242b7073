"""The run's tool catalogue kept for the provider-native disclosure modes."""

from __future__ import annotations

import statetools as st
from statetools.loop.catalogue import CatalogueKeeper, definition
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
