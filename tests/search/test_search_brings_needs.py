"""A locked match brings the tools of the search it waits for (issue 28: use the
disclosure graph to rank what the task needs next)."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.engine.scheduler import Scheduler
from statetools.messages import ToolCall


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: f"{name} done")


BRAKE = tool("press_brake_pedal", "Press the brake pedal.")
DOORS = tool("lock_doors", "Lock the doors of the car.")
START = tool("start_engine", "Start the engine of the car.")
RADIO = tool("play_radio", "Play a radio station.")


def car(**search: Any) -> st.UnfoldingTool:
    """start_engine after press_brake_pedal and lock_doors (both, in that order)."""
    book = st.PlaybookTool.of(
        "car",
        "Drive the car",
        [BRAKE, DOORS, RADIO, st.Unlock(START, after=[BRAKE, DOORS])],
    )
    return st.UnfoldingTool.searchable("find", "Find car tools", [book], **search)


def search(scheduler: Scheduler, **arguments: Any) -> str:
    found = scheduler.resolve("find")
    assert isinstance(found, st.BaseTool)
    return found.call(arguments).text


def test_a_locked_match_brings_what_it_waits_for_just_before_it() -> None:
    scheduler = Scheduler.for_items([car()])

    assert search(scheduler, query="start the engine") == (
        'Tools matching "start the engine", best first:\n'
        "- press_brake_pedal: Press the brake pedal.\n"
        "- lock_doors: Lock the doors of the car.\n"
        "- start_engine (locked): Start the engine of the car. "
        "Call first: press_brake_pedal, lock_doors.\n"
        "Tools now available: press_brake_pedal, lock_doors. "
        "Opening once unlocked: start_engine."
    )


def test_only_the_calls_still_missing_come_along() -> None:
    scheduler = Scheduler.for_items([car()])
    scheduler.record(ToolCall("c1", "press_brake_pedal", {}), st.ToolResult.text("pressed"))

    assert search(scheduler, query="start the engine") == (
        'Tools matching "start the engine", best first:\n'
        "- lock_doors: Lock the doors of the car.\n"
        "- start_engine (locked): Start the engine of the car. Call first: lock_doors.\n"
        "Tools now available: lock_doors. Opening once unlocked: start_engine."
    )


def test_brought_tools_come_on_top_of_max_results() -> None:
    scheduler = Scheduler.for_items([car(max_results=1)])

    text = search(scheduler, query="start the engine radio")

    assert text.splitlines()[1:4] == [
        "- press_brake_pedal: Press the brake pedal.",
        "- lock_doors: Lock the doors of the car.",
        "- start_engine (locked): Start the engine of the car. "
        "Call first: press_brake_pedal, lock_doors.",
    ]
    assert "play_radio" not in text  # the one match is start_engine


def test_asking_by_name_for_a_locked_tool_brings_what_it_waits_for() -> None:
    scheduler = Scheduler.for_items([car()])

    assert search(scheduler, names=["start_engine"]) == (
        "Tools asked for by name:\n"
        "- press_brake_pedal: Press the brake pedal.\n"
        "- lock_doors: Lock the doors of the car.\n"
        "- start_engine (locked): Start the engine of the car. "
        "Call first: press_brake_pedal, lock_doors.\n"
        "Tools now available: press_brake_pedal, lock_doors. "
        "Opening once unlocked: start_engine."
    )


def test_a_chain_comes_in_calling_order() -> None:
    login = tool("login", "Log in to the shop.")
    cart = tool("view_cart", "View the shopping cart.")
    pay = tool("pay_order", "Pay for the order.")
    book = st.PlaybookTool.of(
        "shop", "Shop", [login, st.Unlock(cart, after=[login]), st.Unlock(pay, after=[cart])]
    )
    scheduler = Scheduler.for_items([st.UnfoldingTool.searchable("find", "Find", [book])])

    assert search(scheduler, query="pay") == (
        'Tools matching "pay", best first:\n'
        "- login: Log in to the shop.\n"
        "- view_cart (locked): View the shopping cart. Call first: login.\n"
        "- pay_order (locked): Pay for the order. Call first: view_cart.\n"
        "Tools now available: login. Opening once unlocked: view_cart, pay_order."
    )


def test_alternatives_and_tools_outside_the_search_bring_nothing() -> None:
    either = (
        st.PlaybookTool("either", "Either")
        .with_tool(tool("read_file", "Read a file."))
        .with_tool(tool("read_url", "Read a web page."))
        .with_tool(tool("summarise", "Summarise a text."))
        .unlocked_by_any("read_file", "read_url")
    )
    outside = tool("sign_in", "Sign in.")
    guarded = st.PlaybookTool.of(
        "guarded", "Guarded", [st.Unlock(tool("export", "Export the report."), after=[outside])]
    )
    finder = st.UnfoldingTool.searchable("find", "Find", [either, guarded])
    scheduler = Scheduler.for_items([outside, finder])

    assert search(scheduler, query="summarise") == (
        'Tools matching "summarise", best first:\n'
        "- summarise (locked): Summarise a text. Call first one of: read_file, read_url.\n"
        "No tool is available yet. Opening once unlocked: summarise."
    )
    assert search(scheduler, query="export") == (
        'Tools matching "export", best first:\n'
        "- export (locked): Export the report. Call first: sign_in.\n"
        "No tool is available yet. Opening once unlocked: export."
    )


def test_outside_a_run_nothing_is_locked_so_nothing_comes_along() -> None:
    assert car().call({"query": "start the engine"}).text == (
        'Tools matching "start the engine", best first:\n'
        "- start_engine: Start the engine of the car.\n"
        "Tools now available: start_engine."
    )


def test_in_a_loop_one_search_opens_the_way_and_the_tool_once_unlocked() -> None:
    model = st.models.ScriptedModel(
        [
            ("find", {"query": "start the engine"}),
            [("press_brake_pedal", {}), ("lock_doors", {})],
            ("start_engine", {}),
            "Started.",
        ]
    )
    result = st.ToolLoop(model).run("Start the car", tools=[car()])

    assert result.output == "Started."
    assert [m.content for m in result.messages if m.role == "tool"][1:] == [
        "press_brake_pedal done",
        "lock_doors done\n[now available: start_engine]",
        "start_engine done",
    ]
    assert [request.tool_names for request in model.requests] == [
        ["find"],
        ["find", "press_brake_pedal", "lock_doors"],
        ["find", "press_brake_pedal", "lock_doors", "start_engine"],
        ["find", "press_brake_pedal", "lock_doors", "start_engine"],
    ]


def test_a_removed_tool_neither_brings_nor_waits() -> None:
    scheduler = Scheduler.for_items([car()])
    scheduler.remove(["start_engine"])

    assert search(scheduler, query="start the engine") == (
        'Tools matching "start the engine", best first:\n'
        "- start_engine (locked): Start the engine of the car. "
        "Tool 'start_engine' was removed from this run.\n"
        "No tool was opened."
    )
