"""Prefix breaks per path (statetools.review.prefix) and `statetools tokens --prefix-breaks`."""

from __future__ import annotations

import io
from pathlib import Path

from statetools.cli import main
from statetools.review.model import DesignView, as_graph
from statetools.review.prefix import prefix_breaks, search_array
from statetools.review.space import Space
from tests.providers.provider_wire import desk_design


def test_breaks_along_each_path_of_the_desk_design() -> None:
    paths = {p.path: p for p in prefix_breaks(desk_design())}

    assert paths[()].arrays == (("search", "confirm", "admin"),)
    after_confirm = paths[("confirm",)]
    assert after_confirm.arrays[-1] == ("search", "admin", "ship")
    assert (after_confirm.breaks, after_confirm.registration_breaks) == (1, 1)
    unlocked = paths[("search",)]
    assert unlocked.arrays[-1] == ("search", "confirm", "admin", "open_ticket")
    assert (unlocked.breaks, unlocked.registration_breaks) == (0, 1)
    both = paths[("search", "confirm")]
    assert both.arrays[-1] == ("search", "admin", "open_ticket", "ship")
    assert (both.breaks, both.registration_breaks) == (1, 2)


DESK = Path(__file__).resolve().parents[2] / "playbooks" / "support_desk.yaml"


def test_the_tokens_command_lists_the_paths_with_their_breaks() -> None:
    out = io.StringIO()

    status = main(["tokens", str(DESK), "--prefix-breaks"], out)

    assert status == 0
    assert out.getvalue() == (
        "first visible set: 3 tools, 188 tokens (openai, o200k_base)\n"
        "prefix breaks per path (2 paths, 2 with breaks; registration order in "
        "parentheses):\n"
        "  3 (3)  find_customer_by_email, propose_action, record_answer\n"
        "  2 (2)  find_customer_by_email, close_case\n"
    )


def _issues_design() -> list[object]:
    import statetools as st

    def tool(name: str) -> st.Tool:
        return st.Tool.create(name, name.replace("_", " ").capitalize(), lambda: "ok")

    issues = st.Facade.of("issues", "Issue tools", [tool("create_issue"), tool("close_issue")])
    pulls = st.Facade.of("pulls", "Pull request tools", [tool("merge_pull")])
    return [issues, pulls, tool("ping")]


def test_in_tool_search_mode_unfolding_a_facade_breaks_nothing() -> None:
    paths = {p.path: p for p in prefix_breaks(_issues_design())}

    assert search_array(_space(), _space().start(), paths[()].arrays[0]) == (
        "tool_search",
        "issues[create_issue,close_issue]",
        "pulls[merge_pull]",
        "ping",
    )
    both = paths[("issues", "pulls")]
    assert (both.breaks, both.registration_breaks, both.search_breaks) == (2, 2, 0)


def _space() -> Space:
    return Space(DesignView(as_graph(_issues_design())))


def test_the_tokens_command_counts_the_breaks_of_tool_search_mode() -> None:
    out = io.StringIO()

    status = main(["tokens", str(DESK), "--prefix-breaks", "--tool-search"], out)

    assert status == 0
    assert out.getvalue() == (
        "first visible set: 3 tools, 188 tokens (openai, o200k_base)\n"
        "prefix breaks per path in tool_search mode (2 paths, 2 with breaks; default mode in "
        "parentheses):\n"
        "  3 (3)  find_customer_by_email, propose_action, record_answer\n"
        "  2 (2)  find_customer_by_email, close_case\n"
    )
