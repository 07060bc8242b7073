"""One tool in several places (a facade and a state, two playbooks) is one tool: it
shows while any of its places lets it, and its calls count once. Two different tools
with one name stay an error."""

from __future__ import annotations

import enum
from pathlib import Path

import pytest

import statetools as st
from statetools.models import ScriptedModel


def make(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} step.", lambda: f"{name} done")


LOOKUP = make("lookup")
PAY = make("pay")
SHIP = make("ship")
REFUND = make("refund")


class Order(enum.Enum):
    OPEN = "open"
    PAID = "paid"
    DONE = "done"


def machine() -> st.StateMachineTool[Order]:
    return (
        st.StateMachineTool("order", "One order", Order)
        .in_state(Order.OPEN)
        .with_tool(LOOKUP)
        .with_tool(PAY)
        .transitions_to(Order.PAID)
        .in_state(Order.PAID)
        .with_tool(SHIP)
        .transitions_to(Order.DONE)
        .with_final_states(Order.DONE)
    )


def test_a_tool_in_a_state_and_a_facade_shows_while_either_lets_it() -> None:
    support = st.UnfoldingTool.of("support", "Support tools", [LOOKUP, REFUND])
    model = ScriptedModel(
        [("lookup", {}), ("pay", {}), ("support", {}), ("lookup", {}), ("ship", {}), "done"]
    )

    result = st.ToolLoop(model).run("go", tools=[machine(), support])

    assert [r.tool_names for r in model.requests] == [
        ["lookup", "pay", "support"],  # OPEN: lookup from the state
        ["lookup", "pay", "support"],
        ["support", "ship"],  # PAID: the state no longer shows it, the facade is folded
        ["ship", "lookup", "refund"],  # unfolded: lookup is back, from the facade
        ["ship", "lookup", "refund"],
        ["lookup", "refund"],
    ]
    assert result.output == "done"
    assert result.state.call_counts["lookup"] == 2  # one tool, one count


def test_a_tool_in_two_playbooks_unlocks_with_either_condition() -> None:
    first = st.PlaybookTool("a", "A").with_tool(make("start")).with_tool(PAY).unlocked_by("start")
    second = st.PlaybookTool("b", "B").with_tool(make("quote")).with_tool(PAY).unlocked_by("quote")
    model = ScriptedModel([("quote", {}), ("pay", {}), "paid"])

    result = st.ToolLoop(model).run("go", tools=[first, second])

    assert [r.tool_names for r in model.requests] == [
        ["start", "quote"],
        ["start", "quote", "pay"],  # unlocked by quote, in playbook b
        ["start", "quote", "pay"],
    ]
    assert result.messages[4].content == "pay done"
    assert st.check(st.disclosure_graph(first, second), disable={"ST010"}).findings == ()
    explored = st.explore(st.disclosure_graph(first, second))
    assert explored.min_turns["pay"] == 1


def test_explore_sees_the_tool_in_the_state_before_the_facade_opens() -> None:
    support = st.UnfoldingTool.of("support", "Support tools", [LOOKUP, REFUND])

    explored = st.explore(st.disclosure_graph(machine(), support))

    assert explored.min_turns["lookup"] == 0
    assert explored.min_turns["refund"] == 1


def test_two_different_tools_with_one_name_stay_an_error() -> None:
    other = st.Tool.create("pay", "Pay differently.", lambda: "other")
    first = st.PlaybookTool("a", "A").with_tool(PAY)
    second = st.PlaybookTool("b", "B").with_tool(other)

    with pytest.raises(st.DefinitionError) as caught:
        st.ToolLoop(ScriptedModel(["x"])).run("go", tools=[first, second])

    assert str(caught.value) == (
        "tools: different tools have the same name: pay Hint: give every tool its own name "
        "(one tool may sit in several places)"
    )
    assert st.check(st.disclosure_graph(first, second)).codes == ["ST002"]


def test_the_same_import_path_in_two_yaml_playbooks_is_one_tool(tmp_path: Path) -> None:
    (tmp_path / "shop_tools.py").write_text(
        'def pay() -> str:\n    """Pay."""\n    return "paid"\n\n\n'
        'def quote() -> str:\n    """Quote."""\n    return "42"\n'
    )
    path = tmp_path / "shop.yaml"
    path.write_text(
        "definitions:\n"
        "  - kind: playbook\n    name: a\n    description: A\n"
        "    tools: [shop_tools:quote, {tool: shop_tools:pay, unlocked_by: quote}]\n"
        "  - kind: playbook\n    name: b\n    description: B\n    tools: [shop_tools:pay]\n"
        "prompt: go\nscript: [{call: {name: pay}}, {answer: ok}]\n"
    )
    design = st.load_design(path)

    result = st.ToolLoop(design.scripted_model()).run("go", tools=design.tools)

    assert design.check(disable={"ST010"}).codes == []
    assert result.messages[2].content == "paid"
