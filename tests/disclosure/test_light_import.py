"""``import statetools`` stays light, and a run only reads its compiled graph.

A program that runs a loop needs neither networkx nor graphviz nor a YAML parser, nor
the review, spec and testing packages: they load when one of their names is first used.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import statetools as st

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "networkx",
    "graphviz",
    "yaml",
    "statetools.review",
    "statetools.spec",
    "statetools.testing",
    "statetools.code",
    "pydantic_monty",
)

PROGRAM = """
import json, sys

HEAVY = {heavy!r}


def loaded():
    return sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


import statetools as st

after_import = loaded()
search = st.Tool.create("search", "Search the notes", lambda query: "found " + query)
report = st.Tool.create("report", "Write the report", lambda: "written")
book = st.PlaybookTool("research", "Research").with_tool(search)
book = book.with_tool(report).unlocked_by(search)
model = st.models.ScriptedModel([("search", {{"query": "tides"}}), ("report", {{}}), "Done."])
result = st.ToolLoop(model).run("Research tides", tools=[book])
print(json.dumps({{
    "after_import": after_import,
    "after_run": loaded(),
    "output": result.output,
    "tool_names": [list(r.tool_names) for r in model.requests],
    "answers": [m.content for m in result.messages if m.role == "tool"],
}}))
{then}
"""


def _run(then: str = "") -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(heavy=HEAVY, then=then)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    result: dict[str, Any] = json.loads(lines[0])
    result["more"] = lines[1:]
    return result


def test_import_and_a_scripted_run_load_no_review_spec_testing_graph_or_yaml() -> None:
    result = _run()

    assert result["after_import"] == []
    assert result["after_run"] == []
    assert result["output"] == "Done."
    assert result["tool_names"] == [["search"], ["search", "report"], ["search", "report"]]
    assert result["answers"] == ["found tides\n[now available: report]", "written"]


def test_review_and_spec_names_load_on_first_use_with_all_their_features() -> None:
    result = _run(
        "print(json.dumps([st.render(st.disclosure_graph(book), format='mermaid').text"
        ".splitlines()[0], [f.code for f in st.check(st.disclosure_graph(book)).findings],"
        " st.load_playbook(st.dump_playbook(book), tools=[search, report]).name,"
        " 'networkx' in sys.modules, 'yaml' in sys.modules, st.testing.__name__]))"
    )

    mermaid_head, codes, name, networkx, yaml, testing = json.loads(result["more"][0])
    assert mermaid_head == "flowchart LR"
    assert codes == [f.code for f in st.check(_book()).findings]
    assert (name, networkx, yaml, testing) == ("research", True, True, "statetools.testing")


def test_every_public_name_is_listed_and_reachable() -> None:
    assert set(st.__all__) <= set(dir(st))
    for name in st.__all__:
        assert getattr(st, name) is not None, name


def _book() -> st.DisclosureGraph:
    search = st.Tool.create("search", "Search the notes", lambda query: "found " + query)
    report = st.Tool.create("report", "Write the report", lambda: "written")
    return st.disclosure_graph(
        st.PlaybookTool("research", "Research")
        .with_tool(search)
        .with_tool(report)
        .unlocked_by(search)
    )


def _contents(graph: st.DisclosureGraph) -> dict[str, Any]:
    """Every attribute of the graph, copied one level deep (what a run could write)."""
    return {
        name: (value, copy.copy(value) if isinstance(value, dict | list | set) else value)
        for name, value in vars(graph).items()
        if name not in ("_analysis_lock", "_networkx")
    }


class Order:
    def __init__(self, number: str) -> None:
        self.id = self.number = number

    @st.llm_tool("Cancel this order")
    def cancel(self) -> str:
        return f"cancelled {self.number}"


def find_order(number: str) -> Order:
    """Find an order by number."""
    return Order(number)


def test_runs_only_read_the_compiled_graph() -> None:
    desk = st.PlaybookTool("desk", "Orders").with_tools(find_order)
    desk = desk.with_tool_chaining_from(Order)
    inner = [st.Tool.create(n, f"Tool {n}", lambda: "ok") for n in ("a", "b")]
    facade = st.UnfoldingTool.of("shelf", "Tools on the shelf", inner)
    graph = st.disclosure_graph(desk, facade)
    before = _contents(graph)
    shown = graph.initial_shown

    for _ in range(2):
        model = st.models.ScriptedModel(
            [("find_order", {"number": "A1"}), ("cancel", {}), ("shelf", {}), ("a", {}), "Done."]
        )
        result = st.ToolLoop(model).run("Cancel A1", tools=[graph])
        assert result.output == "Done."
        assert [r.tool_names for r in model.requests] == [
            ["find_order", "cancel", "shelf"],
            ["find_order", "cancel", "shelf"],
            ["find_order", "cancel", "shelf"],
            ["find_order", "cancel", "a", "b"],
            ["find_order", "cancel", "a", "b"],
        ]
        assert [m.content for m in result.messages if m.role == "tool"][1] == "cancelled A1"

    after = _contents(graph)
    assert after.keys() == before.keys()
    for name, (value, contents) in before.items():
        assert after[name][0] is value, name  # the same object ...
        assert after[name][1] == contents, name  # ... with the same contents
    assert graph.initial_shown is shown
