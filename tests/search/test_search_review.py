"""Search facades in YAML, check(), explore() and render()."""

from __future__ import annotations

import pytest

import statetools as st
from tests.search.test_search_facade import locked_design, tool

DOCUMENT = """\
kind: facade
name: find_tools
description: Search the repository tools
usage_notes: Search again for more.
search:
  max_results: 2
tools:
  - name: pulls
    description: Open the pull request tools
    tools:
      - merge_pr
  - list_tags
"""


def merge_pr(number: int) -> str:
    """Merge a pull request."""
    return f"merged {number}"


def list_tags() -> str:
    """List the tags of a repository."""
    return "v1"


def test_yaml_search_facade_loads_and_round_trips() -> None:
    facade = st.load_playbook(DOCUMENT, tools=[merge_pr, list_tags])

    assert isinstance(facade, st.UnfoldingTool)
    assert facade.search is not None
    assert facade.search.max_results == 2
    assert [t.name for t in facade.search_index.tools] == ["pulls", "merge_pr", "list_tags"]
    here = "tests.search.test_search_review"
    assert st.dump_playbook(facade) == DOCUMENT.replace("- merge_pr", f"- {here}:merge_pr").replace(
        "- list_tags", f"- {here}:list_tags"
    )
    assert st.load_playbook(st.dump_playbook(facade), tools=[merge_pr, list_tags]) == facade
    assert facade.call({"query": "merge"}).text == (
        'Tools matching "merge", best first:\n'
        "- merge_pr: Merge a pull request.\n"
        "Tools now available: merge_pr.\n\n"
        "Search again for more."
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            "  max_results: 0",
            "$.search (line 5): max_results must be a whole number of at least 1, got 0 "
            "Hint: write search: {max_results: 5}",
        ),
        (
            "  max_results: 2\nexclusive: true",
            "$.exclusive (line 7): a search facade cannot have exclusive "
            "Hint: the model searches a search facade; remove exclusive or search",
        ),
    ],
)
def test_yaml_search_mistakes_are_reported_with_a_path(change: str, message: str) -> None:
    text = DOCUMENT.replace("  max_results: 2", change)
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook(text, tools=[merge_pr, list_tags])
    assert str(caught.value) == message


def test_a_search_facade_with_playbooks_is_written_with_them_beside_it() -> None:
    design = locked_design()
    text = st.dump_playbook(design)

    assert text.startswith(
        "definitions:\n"
        "  - kind: facade\n"
        "    name: find\n"
        "    description: Find tools\n"
        "    search:\n"
        "      max_results: 5\n"
        "    tools:\n"
        "      - issues\n"
        "      - admin\n"
        "      - draft\n"
        "  - kind: playbook\n"
        "    name: issues\n"
    )
    tools = [t for member in design.members for t in member.tools]
    tools += [t for facade in tools if isinstance(facade, st.UnfoldingTool) for t in facade.inner]
    assert st.load_playbook(text, tools=tools) == design


def test_explore_reaches_every_tool_below_in_one_search() -> None:
    exploration = st.explore(st.disclosure_graph(locked_design()))

    assert exploration.min_turns == {
        "find": 0,
        "get_issue": 1,
        "publish_issue_draft": 1,
        "add_issue_comment": 2,
        "issue_admin": 2,
        "lock_issue": 2,
        "close_issue": 2,
    }
    assert [s.tools for s in exploration.visible_sets][:2] == [
        ("find",),
        ("find", "get_issue", "publish_issue_draft"),
    ]


def test_explore_keeps_the_search_facade_visible_after_it_is_used() -> None:
    pulls = st.UnfoldingTool.of("pulls", "Open the pull request tools", [tool("merge_pr")])
    facade = st.UnfoldingTool.searchable("find", "Find tools", [pulls, tool("help")])
    exploration = st.explore(st.disclosure_graph(facade))

    assert [(s.tools, s.path) for s in exploration.visible_sets] == [
        (("find",), ()),
        (("find", "pulls", "merge_pr", "help"), ("find",)),
        (("find", "merge_pr", "help"), ("find", "pulls")),
    ]


def test_check_finds_nothing_wrong_and_an_empty_search_facade() -> None:
    assert st.check(st.disclosure_graph(locked_design())).findings == ()
    empty = st.check(st.disclosure_graph(st.UnfoldingTool.searchable("find", "Find", [])))

    assert [(f.code, f.message) for f in empty.findings] == [
        ("ST008", "Facade 'find' holds no tools: calling it reveals nothing.")
    ]


def test_render_draws_a_search_node_with_its_playbooks_and_machines_inside() -> None:
    text = st.render(st.disclosure_graph(locked_design()), format="mermaid").text

    assert '  facade_find[/"find<br/><i>search: query or names</i>"/]' in text
    assert '  facade_find ==>|"finds"| cluster_facade_find' in text
    inside = text.split('subgraph cluster_facade_find["facade find (search)"]')[1]
    assert inside.splitlines()[1:5] == [
        '    subgraph cluster_playbook_issues["playbook issues"]',
        '      tool_get_issue["get_issue"]',
        '      tool_add_issue_comment["add_issue_comment"]',
        "    end",
    ]
    assert '    subgraph cluster_machine_draft["machine draft"]' in inside.split("\n  end\n")[0]


def test_render_dot_marks_the_search_facade() -> None:
    source = st.render(st.disclosure_graph(locked_design()), format="dot").text

    assert "search: query or names" in source
    assert "facade_find -> " in source
    assert "label=finds" in source
