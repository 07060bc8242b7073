"""What benchmarks/graph_ranking.py reads from the disclosure graph, on a design written here."""

from __future__ import annotations

from pathlib import Path

import statetools as st
from benchmarks import graph_ranking


def tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: "ok")


DESIGN = """
definitions:
  - kind: machine
    name: desk
    description: Help one customer
    states:
      START:
        tools:
          - {tool: login, transitions_to: HELPING}
      HELPING:
        tools:
          - get_order
          - name: open_tool
            description: Open another tool
            tools: [refund, cancel]
"""


def test_neighbours_are_the_group_the_unlocked_and_the_next_states_tools(
    tmp_path: Path,
) -> None:
    names = ("login", "get_order", "refund", "cancel")
    design = st.load_design(DESIGN, tools=[tool(n) for n in names], base_dir=tmp_path)
    write, read = tool("write_note"), tool("read_note")
    notes = st.PlaybookTool.of("notes", "Notes", [write, st.Unlock(read, after=[write])])
    near = graph_ranking.neighbours(st.disclosure_graph(*design.tools, notes))
    assert near(["login"]) == {"get_order", "refund", "cancel"}  # the state it moves to
    assert near(["refund"]) == {"cancel"}  # the same facade
    assert near(["write_note"]) == {"read_note"}  # what it unlocks
    assert near(["get_order"]) == set()
    assert near([]) == set()


def test_a_neighbour_moves_up_by_its_weight() -> None:
    ranked = ["a", "b", "c"]
    assert graph_ranking.boosted(ranked, {"c"}, 0.5) == ["c", "a", "b"]
    assert graph_ranking.boosted(ranked, {"c"}, 0.01) == ["a", "b", "c"]
    steps = [("q", frozenset({"c"}), frozenset({"x"}))]
    graph = {"x": {"c"}}
    got = graph_ranking.recall(
        steps, [ranked], lambda called: set().union(*(graph[c] for c in called))
    )
    assert got == {0.0: 1.0, 0.5: 1.0, 1.0: 1.0}
