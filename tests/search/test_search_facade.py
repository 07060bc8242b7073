"""Search facades: ranking, names=, locked matches, nesting, order, resume, errors."""

from __future__ import annotations

import enum
import subprocess
import sys
from typing import Any

import pytest

import statetools as st
from statetools.engine.scheduler import Scheduler
from statetools.messages import ToolCall
from statetools.models import ScriptedModel
from tests.search.catalogue import catalogue


def tool(name: str, description: str | None = None) -> st.Tool:
    return st.Tool.create(name, description or f"The {name} tool.", lambda: f"{name} ok")


def finder(max_results: int = 5) -> st.UnfoldingTool:
    return st.UnfoldingTool.searchable(
        "find_tools", "Search the repository tools", catalogue(), max_results=max_results
    )


def run(items: list[Any], steps: list[Any]) -> tuple[st.LoopResult, ScriptedModel]:
    model = ScriptedModel([*steps, "done"])
    return st.ToolLoop(model).run("go", tools=items), model


def tool_texts(result: st.LoopResult) -> list[str]:
    return [m.content for m in result.messages if m.role == "tool"]


# ranking -----------------------------------------------------------------------------


def test_a_query_finds_the_specific_tool_among_a_hundred_and_six() -> None:
    assert len(catalogue()) == 106
    result = finder().call({"query": "rerun the failed jobs"})

    assert result.text == (
        'Tools matching "rerun the failed jobs", best first:\n'
        "- rerun_failed_jobs: Re-run only the failed jobs of a workflow run.\n"
        "Tools now available: rerun_failed_jobs."
    )
    assert result.value.names == ["rerun_failed_jobs"]


def test_the_best_matches_are_listed_best_first_up_to_max_results() -> None:
    result = finder(max_results=3).call({"query": "merge a pull request"})

    assert result.text == (
        'Tools matching "merge a pull request", best first:\n'
        "- merge_pull_request: Merge a pull request into its base branch.\n"
        "- get_pull_request: Get the details of a pull request between two branches.\n"
        "- update_pull_request: Update the fields of a pull request between two branches.\n"
        "Tools now available: merge_pull_request, get_pull_request, update_pull_request."
    )


def test_names_split_at_camel_case_and_snake_case_are_searched() -> None:
    facade = st.UnfoldingTool.searchable(
        "find", "Find tools", [tool("listPullRequests", "Show them."), tool("get_me", "Who.")]
    )

    assert facade.call({"query": "pull requests"}).value.names == ["listPullRequests"]
    assert facade.call({"query": "me"}).value.names == ["get_me"]


def test_parameter_names_are_searched() -> None:
    schema = st.InputSchema.of(st.Parameter.string("merge_method", "How"))
    merge = st.Tool.create("combine", "Combine two branches.", lambda **a: "ok", schema=schema)
    facade = st.UnfoldingTool.searchable("find", "Find tools", [merge, tool("other")])

    assert facade.call({"query": "method"}).value.names == ["combine"]


def test_no_match_says_so_and_suggests_the_closest_names() -> None:
    result = finder().call({"query": "releas"})

    assert result.text == (
        'No tool matches "releas". Closest names: create_release, get_release, '
        "list_releases. Try other words."
    )
    assert not result.is_error
    assert result.value is None


def test_unknown_names_are_listed_with_the_closest_names() -> None:
    result = finder().call({"names": ["star_repository", "merge_pull_reqest"]})

    assert result.text == (
        "Tools asked for by name:\n"
        "- star_repository: Star a repository for the authenticated user.\n"
        "- merge_pull_reqest: no tool has this name. Closest names: merge_pull_request, "
        "get_pull_request, create_pull_request.\n"
        "Tools now available: star_repository."
    )


def test_names_and_query_together_list_the_names_first() -> None:
    result = finder(max_results=1).call({"names": ["get_me_not"], "query": "fork"})

    assert result.text == (
        'Tools asked for by name, then tools matching "fork", best first:\n'
        "- get_me_not: no tool has this name. Closest names: get_comment, get_milestone, "
        "get_commit.\n"
        "- fork_repository: Fork a repository to your account or an organization.\n"
        "Tools now available: fork_repository."
    )


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        (
            {},
            "Tool 'find_tools' needs a query (words describing the tools you need) "
            "or names (exact tool names).",
        ),
        (
            {"query": "  "},
            "Tool 'find_tools' needs a query (words describing the tools you need) "
            "or names (exact tool names).",
        ),
        (
            {"names": "merge_pull_request"},
            "Invalid arguments for tool 'find_tools': argument 'names' must be an array, "
            'got "merge_pull_request". Call it again with corrected arguments.',
        ),
    ],
)
def test_bad_arguments_get_a_clear_error(arguments: dict[str, Any], text: str) -> None:
    result = finder().call(arguments)

    assert result.is_error
    assert result.text == text


def test_the_schema_offers_query_and_names() -> None:
    assert finder().input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words describing the tools you need"},
            "names": {
                "type": "array",
                "description": "Exact names of tools to open",
                "items": {"type": "string"},
            },
        },
        "required": [],
        "additionalProperties": False,
    }


def test_max_results_must_be_at_least_one() -> None:
    with pytest.raises(st.DefinitionError, match="max_results must be a whole number"):
        st.UnfoldingTool.searchable("f", "Find", [tool("a")], max_results=0)


def test_two_tools_below_with_one_name_are_refused() -> None:
    nested = st.UnfoldingTool.of("inner", "Open inner", [tool("a")])
    with pytest.raises(st.DefinitionError, match="more than one inner tool is named a"):
        st.UnfoldingTool.searchable("f", "Find", [tool("a"), nested])


# the index ---------------------------------------------------------------------------


def test_the_index_is_built_on_the_first_query_and_kept() -> None:
    facade = finder()
    index = facade.search_index
    assert not index.built

    facade.call({"names": ["get_issue"]})  # names need no index
    assert not index.built
    facade.call({"query": "issue"})
    retriever = index._retriever
    facade.call({"query": "label"})
    run([facade], [("find_tools", {"query": "gist"}), ("find_tools", {"query": "tag"})])

    assert index.built
    assert index._retriever is retriever


def test_import_statetools_does_not_import_bm25s() -> None:
    code = "import sys, statetools; print('bm25s' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# in a run ----------------------------------------------------------------------------


def test_a_search_opens_only_the_matches_appended_and_the_facade_stays() -> None:
    start = tool("start")
    result, model = run(
        [start, finder(max_results=2)],
        [
            ("find_tools", {"query": "star repository"}),
            ("star_repository", {"owner": "o", "repo": "r"}),
        ],
    )

    assert [r.tool_names for r in model.requests] == [
        ["start", "find_tools"],
        ["start", "find_tools", "star_repository", "fork_repository"],
        ["start", "find_tools", "star_repository", "fork_repository"],
    ]
    assert tool_texts(result)[1] == "star_repository done"


def test_the_order_stays_append_only_across_many_searches() -> None:
    queries = ["tag", "merge", "webhook", "tag", "secret", "copilot", "gist", "merge"]
    result, model = run([finder(max_results=2)], [("find_tools", {"query": q}) for q in queries])

    seen: list[str] = []
    for request in model.requests:
        assert request.tool_names[: len(seen)] == seen
        seen = request.tool_names
    assert seen == [
        "find_tools",
        "get_tag",
        "update_tag",
        "merge_pull_request",
        "get_webhook",
        "update_webhook",
        "get_secret",
        "update_secret",
        "request_copilot_review",
        "get_gist",
        "update_gist",
    ]
    assert result.state.visible_order == tuple(seen)


class Stage(enum.Enum):
    DRAFT = "draft"
    OPEN = "open"


def locked_design(**search: Any) -> st.UnfoldingTool:
    get_issue = tool("get_issue", "Get an issue of a repository.")
    comment = tool("add_issue_comment", "Add a comment to an issue.")
    playbook = (
        st.PlaybookTool("issues", "Issue work")
        .with_tool(get_issue)
        .with_tool(comment)
        .unlocked_by(get_issue)
    )
    admin = st.UnfoldingTool.of("issue_admin", "Open issue admin tools", [tool("lock_issue")])
    guarded = st.PlaybookTool("admin", "Admin").with_tool(admin).unlocked_by(get_issue)
    machine = (
        st.StateMachineTool("draft", "Drafting", Stage)
        .with_initial_state(Stage.DRAFT)
        .in_state(Stage.DRAFT)
        .with_tool(tool("publish_issue_draft", "Publish the issue draft."))
        .transitions_to(Stage.OPEN)
        .in_state(Stage.OPEN)
        .with_tool(tool("close_issue", "Close the issue."))
    )
    return st.UnfoldingTool.searchable("find", "Find tools", [playbook, guarded, machine], **search)


def test_locked_matches_are_listed_with_guidance_and_open_once_unlocked() -> None:
    result, model = run(
        [locked_design()],
        [
            ("find", {"query": "issue"}),
            ("add_issue_comment", {}),
            ("get_issue", {}),
            ("find", {"names": ["add_issue_comment", "lock_issue", "close_issue"]}),
        ],
    )
    texts = tool_texts(result)

    assert texts[0] == (
        'Tools matching "issue", best first:\n'
        "- get_issue: Get an issue of a repository.\n"
        "- add_issue_comment (locked): Add a comment to an issue. Call first: get_issue.\n"
        "- lock_issue (locked): The lock_issue tool. Tool 'issue_admin' is locked. "
        "Call first: get_issue.\n"
        "- close_issue (locked): Close the issue. Tool 'close_issue' is not available in "
        "state DRAFT (it is available in: OPEN).\n"
        "- issue_admin (locked): Open issue admin tools. Call first: get_issue.\n"
        "Tools now available: get_issue. "
        "Opening once unlocked: add_issue_comment, close_issue, issue_admin."
    )  # lock_issue sits in issue_admin, which has to be opened first: it does not wait
    assert texts[1:3] == [
        "Tool 'add_issue_comment' is locked. Call first: get_issue.",
        "get_issue ok\n[now available: add_issue_comment, issue_admin]",
    ]
    assert texts[3] == (
        "Tools asked for by name:\n"
        "- add_issue_comment: Add a comment to an issue.\n"
        "- lock_issue: The lock_issue tool.\n"
        "- close_issue (locked): Close the issue. Tool 'close_issue' is not available in "
        "state DRAFT (it is available in: OPEN).\n"
        "Tools now available: add_issue_comment, lock_issue. Opening once unlocked: close_issue."
    )
    assert model.requests[-1].tool_names == [
        "find",
        "get_issue",
        "add_issue_comment",
        "issue_admin",
        "lock_issue",
    ]


def test_a_found_machine_tool_follows_its_states() -> None:
    result, model = run(
        [locked_design()],
        [
            ("find", {"names": ["publish_issue_draft"]}),
            ("publish_issue_draft", {}),
            ("find", {"names": ["close_issue"]}),
        ],
    )

    assert [r.tool_names for r in model.requests] == [
        ["find"],
        ["find", "publish_issue_draft"],
        ["find"],  # published: the draft tool is gone
        ["find", "close_issue"],
    ]
    assert tool_texts(result)[2].endswith("Tools now available: close_issue.")


def test_a_tool_below_the_search_facade_says_how_to_open_it() -> None:
    scheduler = Scheduler.for_items([finder()])

    assert scheduler.explain("merge_pull_request") == (
        "Tool 'merge_pull_request' is locked. "
        'Call first: find_tools with names ["merge_pull_request"].'
    )


def test_nested_search_opens_the_tool_without_its_facade() -> None:
    pulls = st.UnfoldingTool.of(
        "pulls", "Open the pull request tools", [tool("merge_pr", "Merge it."), tool("list_prs")]
    )
    outer = st.UnfoldingTool.of("repo_tools", "Open repository tools", [pulls, tool("stars")])
    facade = st.UnfoldingTool.searchable("find", "Find tools", [outer, tool("help")])
    result, model = run(
        [facade], [("find", {"query": "merge"}), ("merge_pr", {}), ("pulls", {}), ("list_prs", {})]
    )

    assert model.requests[1].tool_names == ["find", "merge_pr"]
    assert tool_texts(result)[1] == "merge_pr ok"
    assert tool_texts(result)[2] == "Tools now available: merge_pr, list_prs."
    assert model.requests[3].tool_names == ["find", "merge_pr", "list_prs"]
    assert tool_texts(result)[3] == "list_prs ok"


def test_a_facade_found_by_name_shows_and_unfolds_as_usual() -> None:
    pulls = st.UnfoldingTool.of("pulls", "Open the pull request tools", [tool("merge_pr")])
    facade = st.UnfoldingTool.searchable("find", "Find tools", [pulls])
    _result, model = run([facade], [("find", {"names": ["pulls"]}), ("pulls", {})])

    assert model.requests[1].tool_names == ["find", "pulls"]
    assert model.requests[2].tool_names == ["find", "merge_pr"]


def test_a_run_resumes_after_a_search_without_searching_again() -> None:
    result, _ = run([finder(max_results=2)], [("find_tools", {"query": "release"})])
    fresh = finder(max_results=2)
    resumed = Scheduler.for_items([fresh], result.state)

    assert [t.name for t in resumed.visible()] == ["find_tools", "get_release", "update_release"]
    assert not fresh.search_index.built
    state = st.DisclosureState.from_json(result.state.to_json())
    assert state.unfolds == (("find_tools", '{"names": ["get_release", "update_release"]}'),)


def test_locked_guidance_counts_the_search_as_the_way_in() -> None:
    scheduler = Scheduler.for_items([locked_design()])
    finder_tool = scheduler.resolve("find")
    assert isinstance(finder_tool, st.BaseTool)
    result = finder_tool.call({"names": ["get_issue"]})
    scheduler.record(ToolCall("c1", "find", {"names": ["get_issue"]}), result)

    assert scheduler.explain("add_issue_comment") == (
        "Tool 'add_issue_comment' is locked. Call first: find with names [\"add_issue_comment\"]."
    )
