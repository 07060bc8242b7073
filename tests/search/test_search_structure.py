"""Beyond plain retrieval: tools used together (recorded calls), the check finding for
tools their own description does not find, and a search that finds nothing."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.models import ScriptedModel
from statetools.search import BM25Ranker, CoUsageRanker, Document, calls_of


def tool(name: str, description: str, category: str | None = None) -> st.Tool:
    metadata = {"category": category} if category else None
    return st.Tool.create(name, description, lambda: f"{name} ok", metadata=metadata)


FILES = [
    tool("cd", "Change the current directory."),
    tool("mv", "Move a file to another place."),
    tool("cp", "Copy a file."),
    tool("rm", "Remove a file."),
]


def test_tools_used_with_the_best_match_move_up() -> None:
    plain = st.UnfoldingTool.searchable("find", "Find tools", FILES, max_results=2)
    traces = [["cd", "mv"], ["cd", "mv"], ["cp"]]
    learned = st.UnfoldingTool.searchable(
        "find",
        "Find tools",
        FILES,
        max_results=2,
        ranker=CoUsageRanker("bm25", traces, weight=1.0),
    )

    assert plain.call({"query": "move the file"}).value.names == ["mv", "cp"]
    assert learned.call({"query": "move the file"}).text == (
        'Tools matching "move the file", best first:\n'
        "- mv: Move a file to another place.\n"
        "- cd: Change the current directory.\n"
        "Tools now available: mv, cd."
    )


def test_co_usage_lends_in_proportion_and_needs_enough_sightings() -> None:
    ranker = CoUsageRanker(BM25Ranker(), [["mv", "cd"], ["mv", "cd"], ["mv"], ["rm", "cp"]])
    ranker.index([Document(t.name, t.description) for t in FILES])

    assert ranker.used_with == {"mv": {"cd": pytest.approx(2 / 3)}, "cd": {"mv": 1.0}}
    ranked = ranker.rank("move", 3)
    assert [name for name, _ in ranked] == ["mv", "cd"]
    assert ranked[1][1] == pytest.approx(0.5 * (1 / 61) * (2 / 3))
    with pytest.raises(st.DefinitionError, match="weight must be positive, got 0"):
        CoUsageRanker("bm25", [], weight=0)


def test_the_calls_of_a_recorded_run_are_traces() -> None:
    model = ScriptedModel([[("cd", {}), ("mv", {})], ("cp", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=FILES)

    assert calls_of(result) == [["cd", "mv"], ["cp"]]
    assert calls_of(result.messages) == [["cd", "mv"], ["cp"]]


# check: ST018 -------------------------------------------------------------------------


def test_check_warns_of_a_tool_its_own_description_does_not_find() -> None:
    twins = [
        tool("read_file", "Read the file."),
        tool("read_file_again", "Read the file."),
        tool("stat", "File size and dates."),
    ]
    finder = st.UnfoldingTool.searchable("find", "Find tools", twins, max_results=1)
    report = st.check(st.disclosure_graph(finder), disable={"ST010"})

    assert [(f.code, f.severity, f.path, f.message) for f in report.findings] == [
        (
            "ST018",
            "warning",
            "facade:find/tool:read_file_again",
            "Tool 'read_file_again' is not among the first 1 results of search facade "
            "'find' for its own description ('Read the file.'). Give it a description "
            "that tells it apart, or keywords.",
        )
    ]
    assert st.check(st.disclosure_graph(finder), disable={"ST010", "ST018"}).findings == ()


def test_keywords_clear_the_finding() -> None:
    twins = [tool("read_file", "Read the file."), tool("read_file_again", "Read the file.")]
    finder = st.UnfoldingTool.searchable(
        "find", "Find tools", twins, max_results=1, keywords={"read_file_again": ["again"]}
    )
    codes = [f.code for f in st.check(st.disclosure_graph(finder), disable={"ST010"}).findings]
    assert codes == ["ST018"]  # keywords help queries that use them, not the description
    clear = st.UnfoldingTool.searchable(
        "find",
        "Find tools",
        [tool("read_file", "Read the file."), tool("reread", "Read the file once more.")],
        max_results=1,
    )
    assert st.check(st.disclosure_graph(clear), disable={"ST010"}).findings == ()


# nothing found ------------------------------------------------------------------------


def test_nothing_found_names_the_groups_below() -> None:
    issues = st.UnfoldingTool.of("issues", "Open the issue tools.", [tool("close", "Close.")])
    playbook = st.PlaybookTool("releases", "Release work").with_tools(tool("tag", "Tag it."))
    finder = st.UnfoldingTool.searchable("find", "Find tools", [issues, playbook])

    assert finder.call({"query": "weather"}).text == (
        'No tool matches "weather". Groups: issues (Open the issue tools.), releases. '
        "Try other words, or names for a group or tool."
    )


def test_nothing_found_names_the_categories_without_groups() -> None:
    tools = [tool("add", "Add numbers.", "math"), tool("ls", "List files.", "files")]
    finder = st.UnfoldingTool.searchable("find", "Find tools", tools)

    assert finder.call({"query": "lsx"}).text == (
        'No tool matches "lsx". Closest names: ls. Categories: math, files. Try other words.'
    )
