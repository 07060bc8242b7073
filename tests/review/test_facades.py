"""Facades in check(), explore() and render(): nesting, categories, exclusive scopes."""

from __future__ import annotations

import enum

import statetools as st
from statetools.definitions.unfolding import UnfoldingTool
from statetools.review import check, explore
from statetools.review.render import to_dot, to_mermaid
from statetools.review.tokens import tools_tokens
from statetools.tools.schema import InputSchema, Parameter
from tests.review.designs import tool


def nested(depth: int) -> UnfoldingTool:
    """level1 > level2 > ... > level{depth}, the innermost holding 'leaf'."""
    facade = UnfoldingTool.of(f"level{depth}", f"Open level {depth}", [tool("leaf")])
    for level in range(depth - 1, 0, -1):
        facade = UnfoldingTool.of(f"level{level}", f"Open level {level}", [facade])
    return facade


def files() -> UnfoldingTool:
    return UnfoldingTool.by_category(
        "files",
        "Open the file tools",
        {"read": [tool("read")], "write": [tool("write")], None: [tool("stat")]},
    )


def findings(*items: object, **options: object) -> list[tuple[str, str, str, str]]:
    report = check(st.disclosure_graph(*items), **options)  # type: ignore[arg-type]
    return [(f.code, f.severity, f.path, f.message) for f in report.findings]


def test_good_facades_have_no_findings() -> None:
    assert findings(nested(3), files()) == []


def test_st008_empty_facade_and_empty_category() -> None:
    empty = UnfoldingTool.of("nothing", "Open nothing", [])
    hollow = UnfoldingTool.by_category(
        "hollow", "Open hollow tools", {"full": [tool("one")], "none": []}
    )
    assert findings(empty, hollow) == [
        (
            "ST008",
            "error",
            "facade:hollow",
            "Category 'none' of facade 'hollow' holds no tools: choosing it reveals nothing.",
        ),
        (
            "ST008",
            "error",
            "facade:nothing",
            "Facade 'nothing' holds no tools: calling it reveals nothing.",
        ),
    ]


def test_a_selectable_facade_may_build_its_tools() -> None:
    shop = UnfoldingTool.selectable(
        "shop",
        "Open a shop",
        [],
        InputSchema.of(Parameter.string("store", "Store")),
        lambda args: [st.Tool.create("store_name", "Name", lambda: args["store"])],
    )
    assert findings(shop) == []


def test_st009_facades_nested_deeper_than_the_limit() -> None:
    assert findings(nested(4)) == [
        (
            "ST009",
            "warning",
            "facade:level1/facade:level2/facade:level3/facade:level4",
            "Facade 'level4' is nested 4 deep (limit 3): the model needs 4 calls to reach its "
            "tools.",
        )
    ]
    assert [f[2] for f in findings(nested(4), max_facade_depth=2)] == [
        "facade:level1/facade:level2/facade:level3",
        "facade:level1/facade:level2/facade:level3/facade:level4",
    ]


def test_tools_inside_a_facade_that_never_unlocks() -> None:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(UnfoldingTool.of("box", "Open the box", [tool("inside")]))
        .unlocked_by("box")
    )
    assert findings(playbook) == [
        (
            "ST003",
            "error",
            "playbook:p/facade:box",
            "Tool 'box' can never unlock: unlock cycle box -> box.",
        ),
        (
            "ST003",
            "error",
            "playbook:p/facade:box/tool:inside",
            "Tool 'inside' can never unlock: its facade 'box' is never unfolded.",
        ),
        (
            "ST014",
            "error",
            "visible-set:start",
            "No tool is visible at the start, and no machine is in a final state: the model is "
            "left with nothing to call.",
        ),
    ]


def test_a_nested_exclusive_facade_keeps_its_tools_and_check_finds_no_empty_set() -> None:
    admin = UnfoldingTool.of("admin", "Admin console.", [tool("ban")], exclusive=True)
    ops = UnfoldingTool.of("ops", "Ops tools.", [admin, tool("status")])
    exploration = explore(st.disclosure_graph(ops))
    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("ops",), ()),
        (("admin", "status"), ("ops",)),
        (("ban",), ("ops", "admin")),
    ]
    assert exploration.dead_ends == ()
    assert findings(ops) == []


def test_st014_a_reachable_set_without_tools_and_without_a_final_state() -> None:
    class S(enum.Enum):
        A = "A"
        B = "B"
        C = "C"

    def design(*final: S) -> st.StateMachineTool[S]:
        admin = UnfoldingTool.of("admin", "Admin console.", [tool("ban")], exclusive=True)
        return (
            st.StateMachineTool("m", "M", S)
            .with_initial_state(S.A)
            .in_state(S.A)
            .with_tool(tool("go"))
            .transitions_to(S.B)
            .in_state(S.A)
            .with_tool(admin)
            .in_state(S.B)
            .with_tool(tool("finish"))
            .transitions_to(S.C)
            .with_final_states(*final)
        )

    assert explore(st.disclosure_graph(design(S.C))).dead_ends == ()
    assert findings(design(S.C)) == []
    exploration = explore(st.disclosure_graph(design()))
    assert exploration.dead_ends == (("go", "finish"),)
    assert exploration.to_text().endswith("\n\nno tools left after: go, finish")
    assert exploration.to_dict()["dead_ends"] == [["go", "finish"]]
    assert (
        "ST014",
        "error",
        "visible-set:go/finish",
        "No tool is visible after go, finish, and no machine is in a final state: the model "
        "is left with nothing to call.",
    ) in findings(design())


def test_explore_unfolds_one_level_per_turn_and_replaces_the_facade() -> None:
    exploration = explore(st.disclosure_graph(nested(3), tool("other")))
    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("level1", "other"), ()),
        (("level2", "other"), ("level1",)),
        (("level3", "other"), ("level1", "level2")),
        (("leaf", "other"), ("level1", "level2", "level3")),
    ]
    assert exploration.min_turns["leaf"] == 3
    assert exploration.flat_tokens == tools_tokens([tool("leaf"), tool("other")])  # no facades


def test_explore_opens_one_category_per_call() -> None:
    exploration = explore(st.disclosure_graph(files()))
    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("files",), ()),
        (("files", "read", "stat"), ("files(category=read)",)),
        (("files", "write", "stat"), ("files(category=write)",)),
        (("read", "write", "stat"), ("files(category=read)", "files(category=write)")),
    ]
    assert exploration.paths["write"] == ("files(category=write)",)


def test_explore_exclusive_facade_puts_other_tools_away() -> None:
    admin = UnfoldingTool.of("admin", "Open the admin tools", [tool("wipe")], exclusive=True)
    exploration = explore(st.disclosure_graph(admin, tool("search")))
    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("admin", "search"), ()),
        (("wipe",), ("admin",)),
    ]


def test_render_nests_facade_clusters() -> None:
    dot = to_dot(st.disclosure_graph(nested(2), files()))
    outer = dot.index("subgraph cluster_facade_level1 {")
    inner = dot.index("subgraph cluster_facade_level2 {")
    assert outer < inner
    assert "facade_level1 -> tool_leaf" not in dot
    assert "facade_level1 -> facade_level2 [label=unfolds" in dot
    assert "lhead=cluster_facade_level1" in dot
    assert "facade_level2 -> tool_leaf [label=unfolds" in dot
    assert 'shape=folder style="rounded,filled,dashed"' in dot  # level2 starts hidden
    assert '<font color="#6b7280" point-size="10">by category</font>' in dot
    assert 'stat<br/><font color="#6b7280" point-size="9">read, write</font>' in dot
    assert "rank=same" in dot


def test_render_facade_with_a_trace_and_as_mermaid() -> None:
    from statetools.engine.events import ToolCalled, Trace

    trace = Trace((ToolCalled(1, "c1", "level1", {}, "text", 0.0),))
    dot = to_dot(st.disclosure_graph(nested(2)), trace=trace)
    assert 'fillcolor="#dbeafe"' in next(
        line for line in dot.splitlines() if line.strip().startswith("facade_level1 ")
    )
    text = to_mermaid(st.disclosure_graph(nested(2)))
    assert '  subgraph cluster_facade_level1["facade level1"]' in text
    assert '  facade_level1 ==>|"unfolds"| cluster_facade_level1' in text


def test_inner_tools_hide_when_their_facade_stops_being_usable() -> None:
    from tests.review.designs import order

    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(UnfoldingTool.of("tracking", "Open the tracking tools", [tool("track")]))
        .unlocked(st.InState("order", "SENT"))
    )
    exploration = explore(st.disclosure_graph(order(), playbook))
    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("confirm", "help"), ()),
        (("ship", "help", "tracking"), ("confirm",)),
        (("help",), ("confirm", "ship")),
        (("ship", "help", "track"), ("confirm", "tracking")),
    ]
    assert exploration.states == 5  # DONE after tracking unfolded shows help only, again
