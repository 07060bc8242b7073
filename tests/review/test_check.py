"""check(): one crafted bad design per finding code, exact findings."""

from __future__ import annotations

import enum
import json

import attrs
import pytest

import statetools as st
from statetools.definitions.machine import Transition
from statetools.review import RULES, Finding, Report, check
from tests.review.designs import order, research, tool


def findings(*items: object, **options: object) -> list[tuple[str, str, str, str]]:
    report = check(st.disclosure_graph(*items), **options)  # type: ignore[arg-type]
    return [(f.code, f.severity, f.path, f.message) for f in report.findings]


class ABC(enum.Enum):
    A = 1
    B = 2
    C = 3


class ABCD(enum.Enum):
    A = 1
    B = 2
    C = 3
    D = 4


def machine(states: type[enum.Enum] = ABC) -> st.StateMachineTool[enum.Enum]:
    return st.StateMachineTool("m", "A machine", states).with_initial_state("A")


def test_good_designs_have_no_findings() -> None:
    report = check(st.disclosure_graph(research(), order()))
    assert report.findings == ()
    assert report.ok
    assert report.to_text() == "No problems found. 0 errors, 0 warnings"


def test_st001_unknown_tool_in_a_condition_with_suggestion() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("search"))
        .with_tool(tool("b"))
        .unlocked_by("serch")
    )
    assert findings(playbook) == [
        (
            "ST001",
            "error",
            "playbook:p/tool:b",
            "The condition of 'b' names tool 'serch', which is not registered. "
            "Did you mean 'search'?",
        ),
        (
            "ST003",
            "error",
            "playbook:p/tool:b",
            "Tool 'b' can never unlock: it needs 'serch', which is not a registered tool.",
        ),
    ]


def test_st001_unknown_machine_state_and_transition_tool() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("a"))
        .unlocked(st.AnyOf(st.InState("ordr", "DRAFT"), st.InState("order", "SENTT")))
        .with_tool(tool("b"))
    )
    bad = attrs.evolve(order(), transitions=(*order().transitions, Transition("SENT", "x", "DONE")))
    assert findings(playbook, bad) == [
        (
            "ST001",
            "error",
            "machine:order/state:SENT",
            "Transition SENT -> DONE of 'order' names tool 'x', which is not registered.",
        ),
        (
            "ST001",
            "error",
            "playbook:p/tool:a",
            "The condition of 'a' names machine 'ordr', which is not registered. "
            "Did you mean 'order'?",
        ),
        (
            "ST001",
            "error",
            "playbook:p/tool:a",
            "The condition of 'a' names state SENTT of 'order', which it does not have. "
            "Did you mean 'SENT'?",
        ),
        (
            "ST003",
            "error",
            "playbook:p/tool:a",
            "Tool 'a' can never unlock: it needs machine 'ordr', which is not registered.",
        ),
    ]


def test_st002_two_tools_with_one_name() -> None:
    first = st.PlaybookTool("p", "P").with_tool(tool("search"))
    second = st.PlaybookTool("q", "Q").with_tool(tool("search", "Another search."))
    assert findings(first, second) == [
        (
            "ST002",
            "error",
            "playbook:p/tool:search",
            "Two different tools are named 'search': the model cannot tell them apart and "
            "the scheduler refuses to run (the same tool may sit in several places).",
        )
    ]


def test_st003_unlock_cycle() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("start"))
        .with_tool(tool("a"))
        .unlocked_by("b")
        .with_tool(tool("b"))
        .unlocked_by("a", "start")
        .with_tool(tool("c"))
        .unlocked_by("c")
        .with_tool(tool("d"))
        .unlocked_by("a")
    )
    assert findings(playbook) == [
        (
            "ST003",
            "error",
            "playbook:p/tool:a",
            "Tool 'a' can never unlock: unlock cycle a -> b -> a.",
        ),
        (
            "ST003",
            "error",
            "playbook:p/tool:b",
            "Tool 'b' can never unlock: unlock cycle b -> a -> b.",
        ),
        ("ST003", "error", "playbook:p/tool:c", "Tool 'c' can never unlock: unlock cycle c -> c."),
        (
            "ST003",
            "error",
            "playbook:p/tool:d",
            "Tool 'd' can never unlock: it needs 'a', which can never unlock.",
        ),
    ]


def test_st003_unsatisfiable_condition() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("x"))
        .unlocked(st.AllOf(st.InState("order", "DRAFT"), st.InState("order", "SENT")))
        .with_tool(tool("y"))
        .unlocked(st.AnyOf(st.InState("order", "DRAFT"), st.After("x")))
    )
    assert findings(playbook, order()) == [
        (
            "ST003",
            "error",
            "playbook:p/tool:x",
            "Tool 'x' can never unlock: it needs 'order' in two states at once (DRAFT, SENT).",
        )
    ]


def test_st004_unreachable_state() -> None:
    m = (
        machine()
        .in_state("A")
        .with_tool(tool("finish"))
        .transitions_to("B")
        .in_state("C")
        .with_tool(tool("stray"))
        .transitions_to("B")
        .with_final_states("B")
    )
    assert findings(m) == [
        (
            "ST003",
            "error",
            "machine:m/tool:stray",
            "Tool 'stray' can never unlock: it is available only in states that are never "
            "entered (C).",
        ),
        (
            "ST004",
            "warning",
            "machine:m/state:C",
            "State C of 'm' is never entered: no transition that can fire leads to it.",
        ),
    ]


def test_st005_trap_state() -> None:
    m = (
        machine()
        .in_state("A")
        .with_tool(tool("park"))
        .transitions_to("B")
        .in_state("A")
        .with_tool(tool("finish"))
        .transitions_to("C")
        .with_final_states("C")
    )
    assert findings(m) == [
        (
            "ST005",
            "error",
            "machine:m/state:B",
            "State B of 'm' is a trap: it is not final and no transition out of it can fire "
            "(it has no transitions).",
        ),
        (
            "ST014",
            "error",
            "visible-set:park",
            "No tool is visible after park, and no machine is in a final state: the model is "
            "left with nothing to call.",
        ),
    ]


def test_st005_trap_whose_transitions_cannot_fire() -> None:
    m = (
        machine()
        .in_state("A")
        .with_tool(tool("park"))
        .transitions_to("B")
        .in_state("A")
        .with_tool(tool("finish"))
        .transitions_to("C")
        .with_final_states("C")
    )
    stuck = attrs.evolve(m, transitions=(*m.transitions, Transition("B", "finish", "C")))
    assert [f.code for f in check(stuck).findings] == ["ST005", "ST013", "ST014"]
    assert check(stuck).findings[0].message == (
        "State B of 'm' is a trap: it is not final and no transition out of it can fire "
        "(its transitions need tools that cannot be called there (finish))."
    )


def test_st006_no_path_to_a_final_state() -> None:
    m = (
        machine(ABCD)
        .in_state("A")
        .with_tool(tool("loop"))
        .transitions_to("B")
        .in_state("B")
        .with_tool(tool("around"))
        .transitions_to("D")
        .in_state("D")
        .with_tool(tool("back"))
        .transitions_to("B")
        .in_state("A")
        .with_tool(tool("finish"))
        .transitions_to("C")
        .with_final_states("C")
    )
    assert findings(m) == [
        (
            "ST006",
            "error",
            "machine:m/state:B",
            "From state B of 'm' no final state can be reached (final: C).",
        ),
        (
            "ST006",
            "error",
            "machine:m/state:D",
            "From state D of 'm' no final state can be reached (final: C).",
        ),
    ]


def test_st007_transition_out_of_a_final_state() -> None:
    m = (
        machine()
        .in_state("A")
        .with_tool(tool("finish"))
        .transitions_to("B")
        .in_state("B")
        .with_tool(tool("reopen"))
        .transitions_to("A")
        .with_final_states("B")
    )
    assert findings(m) == [
        (
            "ST007",
            "warning",
            "machine:m/state:B",
            "Final state B of 'm' has a transition out (reopen -> A); an agentic run ends there.",
        ),
        (
            "ST011",
            "warning",
            "machine:m/state:C",
            "State C of 'm' is never used: no tools, no transitions.",
        ),
    ]


def test_st010_visible_set_over_the_token_budget() -> None:
    assert findings(research(), token_budget=60) == [
        (
            "ST010",
            "warning",
            "visible-set:search/analyze",
            "3 tools visible together take 108 tokens, over the budget of 60 (2 visible sets "
            "are over the budget).",
        )
    ]


def test_st010_falls_back_to_the_first_turns_when_the_design_is_large() -> None:
    many = st.PlaybookTool("p", "P")
    for i in range(12):
        many = many.with_tool(tool(f"t{i}")).with_tool(tool(f"u{i}")).unlocked_by(f"t{i}")
    report = check(st.disclosure_graph(many), token_budget=100, max_states=50)
    assert [(f.code, f.severity, f.path) for f in report.findings] == [
        ("ST010", "info", "visible-set:*"),
        ("ST010", "warning", "visible-set:t0"),
    ]
    assert report.findings[0].message == (
        "The token budget was checked only for the visible sets reached within 1 turn: the "
        "design has more than 50 disclosure states."
    )


def test_st011_enum_state_never_used() -> None:
    m = machine().in_state("A").with_tool(tool("finish")).transitions_to("B").with_final_states("B")
    assert findings(m) == [
        (
            "ST011",
            "warning",
            "machine:m/state:C",
            "State C of 'm' is never used: no tools, no transitions.",
        )
    ]


def test_st012_tool_names_providers_reject() -> None:
    with attrs.validators.disabled():
        spaced = st.Tool(name="bad name", description="Bad.", handler=lambda: "x")
    playbook = st.PlaybookTool("p", "P").with_tools(spaced, tool("3d_render"))
    assert findings(playbook) == [
        (
            "ST012",
            "warning",
            "playbook:p/tool:3d_render",
            "Tool name '3d_render' is rejected by Gemini, which needs a letter or '_' first.",
        ),
        (
            "ST012",
            "error",
            "playbook:p/tool:bad name",
            "Tool name 'bad name' is rejected by OpenAI and Anthropic: use 1 to 64 of a-z, A-Z, "
            "0-9, '_' and '-'.",
        ),
    ]


def test_st013_transition_whose_tool_is_not_in_the_source_state() -> None:
    m = order()
    bad = attrs.evolve(m, transitions=(*m.transitions, Transition("DRAFT", "ship", "DONE")))
    assert findings(bad) == [
        (
            "ST013",
            "warning",
            "machine:order/state:DRAFT",
            "Transition DRAFT -> DONE of 'order' never fires: 'ship' is not available in DRAFT.",
        )
    ]


def test_guarded_transitions_and_when_conditions_count_as_possible() -> None:
    m = (
        machine()
        .in_state("A")
        .with_tool(tool("try_it"))
        .transitions_to("B", lambda result: "ok" in result.text, label="ok")
        .in_state("B")
        .with_tool(tool("finish"))
        .transitions_to("C")
        .with_final_states("C")
    )
    playbook = (
        st.PlaybookTool("p", "P").with_tool(tool("w")).unlocked_when(lambda view: False, "never")
    )
    assert findings(m, playbook) == []


def test_every_rule_can_be_switched_off_by_code_or_name() -> None:
    playbook = st.PlaybookTool("p", "P").with_tool(tool("b")).unlocked_by("ghost")
    graph = st.disclosure_graph(playbook)
    assert check(graph).codes == ["ST001", "ST003", "ST014"]
    report = check(graph, disable={"ST001", "never-unlocks", "no-tools-left"})
    assert report.findings == ()
    assert report.disabled == ("ST001", "ST003", "ST014")
    with pytest.raises(st.StatetoolsError, match="unknown check 'ST999'"):
        check(graph, disable={"ST999"})


def test_report_as_text_and_json() -> None:
    report = check(st.PlaybookTool("p", "P").with_tool(tool("b")).unlocked_by("ghost"))
    assert report.to_text() == (
        "playbook:p/tool:b: ST001 error [unknown-reference] The condition of 'b' names tool "
        "'ghost', which is not registered.\n"
        "playbook:p/tool:b: ST003 error [never-unlocks] Tool 'b' can never unlock: it needs "
        "'ghost', which is not a registered tool.\n"
        "visible-set:start: ST014 error [no-tools-left] No tool is visible at the start, and "
        "no machine is in a final state: the model is left with nothing to call.\n"
        "3 errors, 0 warnings"
    )
    data = json.loads(report.to_json())
    assert data["ok"] is False
    assert (data["errors"], data["warnings"], data["notes"]) == (3, 0, 0)
    assert data["findings"][0] == {
        "code": "ST001",
        "rule": "unknown-reference",
        "severity": "error",
        "path": "playbook:p/tool:b",
        "message": "The condition of 'b' names tool 'ghost', which is not registered.",
    }
    assert [f.code for f in report.errors] == ["ST001", "ST003", "ST014"]
    assert report.by_code("never-unlocks") == report.findings[1:2]


def test_report_sorts_findings_and_every_rule_is_listed() -> None:
    late = Finding("ST011", "warning", "m", "z")
    early = Finding("ST001", "error", "m", "a")
    assert Report((late, early)).findings == (early, late)
    assert [rule.code for rule in RULES] == [f"ST{n:03d}" for n in range(1, 21)]
