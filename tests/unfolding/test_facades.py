"""Facades in the loop: nesting, re-calls, direct calls and the exact texts the model gets."""

from __future__ import annotations

import pytest

import statetools as st
from statetools.engine.events import CallBlocked, ToolsHidden, ToolsUnlocked
from statetools.models import ScriptedModel

RAN: list[str] = []


def tool(name: str, text: str | None = None) -> st.Tool:
    def handler() -> str:
        RAN.append(name)
        return text or f"{name} done"

    return st.Tool.create(name, f"The {name} tool.", handler)


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def github() -> st.UnfoldingTool:
    """github > issues > (list_issues, create_issue); github also holds whoami."""
    create = st.Tool.create(
        "create_issue", "Create an issue.", lambda title: RAN.append(title) or f"#7 {title}"
    )
    issues = st.UnfoldingTool.of(
        "issues",
        "Open the issue tools.",
        [tool("list_issues", "2 open issues"), create],
        usage_notes="List the issues before creating one.",
    )
    return st.UnfoldingTool.of("github", "Open the GitHub tools.", [issues, tool("whoami", "ada")])


def tool_texts(result: st.LoopResult) -> list[tuple[str, bool]]:
    return [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]


def test_three_levels_unfold_one_at_a_time() -> None:
    model = ScriptedModel(
        [
            ("create_issue", {"title": "x"}),
            ("github", {}),
            ("issues", {}),
            ("list_issues", {}),
            ("create_issue", {"title": "Crash"}),
            "Filed #7.",
        ]
    )
    result = st.ToolLoop(model).run("File a bug", tools=[github(), tool("search")])

    assert [r.tool_names for r in model.requests] == [
        ["github", "search"],
        ["github", "search"],
        ["search", "issues", "whoami"],
        ["search", "whoami", "list_issues", "create_issue"],
        ["search", "whoami", "list_issues", "create_issue"],
        ["search", "whoami", "list_issues", "create_issue"],
    ]
    assert tool_texts(result) == [
        ("Tool 'create_issue' is locked. Call first: github, then issues.", True),
        ("Tools now available: issues, whoami.", False),
        (
            "Tools now available: list_issues, create_issue.\n\n"
            "List the issues before creating one.",
            False,
        ),
        ("2 open issues", False),
        ("#7 Crash", False),
    ]
    assert RAN == ["list_issues", "Crash"]
    assert result.trace.of_type(CallBlocked)[0].reason == (
        "Tool 'create_issue' is locked. Call first: github, then issues."
    )
    assert [e.names for e in result.trace.of_type(ToolsUnlocked)] == [
        ("issues", "whoami"),
        ("list_issues", "create_issue"),
    ]
    assert [e.names for e in result.trace.of_type(ToolsHidden)] == [("github",), ("issues",)]
    assert result.state.unfolds == (("github", "{}"), ("issues", "{}"))


def test_an_inner_facade_names_only_itself_once_the_outer_one_is_open() -> None:
    model = ScriptedModel([("github", {}), ("list_issues", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[github()])
    assert tool_texts(result)[1] == ("Tool 'list_issues' is locked. Call first: issues.", True)


def test_calling_an_unfolded_facade_again_lists_what_it_opened() -> None:
    model = ScriptedModel([("github", {}), ("issues", {}), ("github", {}), ("issues", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[github()])
    assert tool_texts(result)[2:] == [
        ("Tools now available: list_issues, create_issue, whoami.", False),
        (
            "Tools now available: list_issues, create_issue.\n\n"
            "List the issues before creating one.",
            False,
        ),
    ]
    assert model.requests[-1].tool_names == ["whoami", "list_issues", "create_issue"]
    assert result.state.call_counts == {"github": 2, "issues": 2}
    assert result.state.unfolds == (("github", "{}"), ("issues", "{}"))


def test_an_argument_named_like_an_inner_tool_calls_it_directly() -> None:
    model = ScriptedModel(
        [("github", {"issues": {"create_issue": {"title": "Direct"}}}), ("whoami", {}), "ok"]
    )
    result = st.ToolLoop(model).run("go", tools=[github()])

    assert tool_texts(result) == [
        ("#7 Direct\n[now available: list_issues, create_issue, whoami]", False),
        ("ada", False),
    ]
    assert model.requests[1].tool_names == ["list_issues", "create_issue", "whoami"]
    assert result.state.call_counts == {"create_issue": 1, "github": 1, "issues": 1, "whoami": 1}


def test_direct_call_problems_are_exact() -> None:
    model = ScriptedModel(
        [
            ("github", {"whoami": {}, "issues": {}}),
            ("github", {"whoami": {"loud": True}}),
            ("github", {"nothing": 1}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("go", tools=[github()])
    assert tool_texts(result) == [
        ("Call one tool at a time through 'github', got: whoami, issues.", True),
        (
            "Invalid arguments for tool 'whoami': unknown argument 'loud' (none are allowed). "
            "Call it again with corrected arguments.\n[now available: issues, whoami]",
            True,
        ),
        (  # a re-call only lists
            "Tools now available: issues, whoami.\n"
            "Ignored argument 'nothing': 'github' takes no arguments.",
            False,
        ),
    ]
    fresh = ScriptedModel([("github", {"nothing": 1}), "ok"])
    assert tool_texts(st.ToolLoop(fresh).run("go", tools=[github()])) == [
        (  # issue 30: arguments a facade does not take no longer keep it folded
            "Tools now available: issues, whoami.\n"
            "Ignored argument 'nothing': 'github' takes no arguments.",
            False,
        )
    ]


def test_an_exclusive_facade_leaves_only_its_tools_until_the_run_ends() -> None:
    admin = st.UnfoldingTool.of(
        "admin", "Open the admin tools.", [tool("ban"), tool("audit")], exclusive=True
    )
    model = ScriptedModel([("admin", {}), ("search", {}), ("ban", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[tool("search"), admin, tool("help")])

    assert [r.tool_names for r in model.requests] == [
        ["search", "admin", "help"],
        ["ban", "audit"],
        ["ban", "audit"],
        ["ban", "audit"],
    ]
    assert tool_texts(result) == [
        ("Tools now available: ban, audit.", False),
        ("Tool 'search' is not available: only admin's tools are in use now.", True),
        ("ban done", False),
    ]
    assert result.trace.of_type(ToolsHidden)[0].names == ("search", "admin", "help")


def test_an_exclusive_facade_nested_in_another_shows_its_tools() -> None:
    admin = st.UnfoldingTool.of("admin", "Admin console.", [tool("ban")], exclusive=True)
    ops = st.UnfoldingTool.of("ops", "Ops tools.", [admin, tool("status")])
    model = ScriptedModel([("ops", {}), ("admin", {}), ("status", {}), ("ban", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[ops])

    assert [r.tool_names for r in model.requests] == [
        ["ops"],
        ["admin", "status"],
        ["ban"],
        ["ban"],
        ["ban"],
    ]
    assert tool_texts(result) == [
        ("Tools now available: admin, status.", False),
        ("Tools now available: ban.", False),
        ("Tool 'status' is not available: only admin's tools are in use now.", True),
        ("ban done", False),
    ]
    assert [e.names for e in result.trace.of_type(ToolsHidden)] == [("ops",), ("admin", "status")]


def test_a_tool_whose_facade_cannot_open_is_answered_about_that_tool() -> None:
    ban = tool("ban")
    admin = st.UnfoldingTool.of("admin", "Admin console.", [ban], exclusive=True)
    ops = st.UnfoldingTool.of("ops", "Ops tools.", [admin])
    locked = st.PlaybookTool("p", "P").with_tool(tool("login")).with_tool(ops).unlocked_by("login")
    model = ScriptedModel([("ban", {}), ("login", {}), ("ban", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[locked])
    assert tool_texts(result) == [
        (
            "Tool 'ban' is locked until 'ops' can be opened. Tool 'ops' is locked. Call "
            "first: login.",
            True,
        ),
        ("login done\n[now available: ops]", False),
        ("Tool 'ban' is locked. Call first: ops, then admin.", True),
    ]


def test_an_exclusive_facade_also_puts_away_injected_tools() -> None:
    class AddHelp:
        def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
            return st.Injection(add=[tool("helper")]) if context.call.name == "search" else None

    admin = st.UnfoldingTool.of("admin", "Open the admin tools.", [tool("ban")], exclusive=True)
    model = ScriptedModel([("search", {}), ("admin", {}), "ok"])
    st.ToolLoop(model, strategies=[AddHelp()]).run("go", tools=[tool("search"), admin])
    assert [r.tool_names for r in model.requests] == [
        ["search", "admin"],
        ["search", "admin", "helper"],
        ["ban"],
    ]


def test_a_facade_inside_a_playbook_unlocks_with_it_and_counts_as_a_call() -> None:
    box = st.UnfoldingTool.of("box", "Open the box.", [tool("inside")])
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("login"))
        .with_tool(box)
        .unlocked_by("login")
        .with_tool(tool("report"))
        .unlocked_by("box")
    )
    model = ScriptedModel([("inside", {}), ("box", {}), ("login", {}), ("box", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[playbook])

    assert tool_texts(result) == [
        (
            "Tool 'inside' is locked until 'box' can be opened. Tool 'box' is locked. Call "
            "first: login.",
            True,
        ),
        ("Tool 'box' is locked. Call first: login.", True),
        ("login done\n[now available: box]", False),
        ("Tools now available: inside.\n[now available: report]", False),
    ]
    assert model.requests[-1].tool_names == ["login", "inside", "report"]


def test_declared_visibility_sends_inner_tools_with_the_facade_to_call() -> None:
    model = ScriptedModel([("github", {}), "ok"])
    st.ToolLoop(model, visibility="declared").run("go", tools=[github()])
    first = {t.name: t.description for t in model.requests[0].tools}
    assert first == {
        "github": "Open the GitHub tools.",
        "issues": "Open the issue tools.\nTool 'issues' is locked. Call first: github.",
        "list_issues": "The list_issues tool.\nTool 'list_issues' is locked. Call first: "
        "github, then issues.",
        "create_issue": "Create an issue.\nTool 'create_issue' is locked. Call first: github, "
        "then issues.",
        "whoami": "The whoami tool.\nTool 'whoami' is locked. Call first: github.",
    }
    assert model.requests[1].tool_names == ["issues", "list_issues", "create_issue", "whoami"]


def test_a_facade_in_a_state_machine_takes_its_tools_away_with_its_state() -> None:
    import enum

    class Phase(enum.Enum):
        OPEN = 1
        CLOSED = 2

    box = st.UnfoldingTool.of("box", "Open the box.", [tool("inside")])
    machine = (
        st.StateMachineTool("m", "M", Phase)
        .in_state(Phase.OPEN)
        .with_tool(box)
        .with_tool(tool("close"))
        .transitions_to(Phase.CLOSED)
    )
    model = ScriptedModel([("box", {}), ("close", {}), ("inside", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[machine])
    assert [r.tool_names for r in model.requests] == [
        ["box", "close"],
        ["close", "inside"],
        [],
        [],
    ]
    assert tool_texts(result)[-1] == (
        "Tool 'inside' is locked until 'box' can be opened. Tool 'box' is not available in "
        "state CLOSED (it is available in: OPEN).",
        True,
    )


def test_a_facade_called_outside_a_loop_lists_or_calls() -> None:
    facade = github()
    first = facade.call()
    assert (first.text, first.is_error, first.has_value) == (
        "Tools now available: issues, whoami.",
        False,
        False,
    )
    assert isinstance(first.value, st.Unfolded)
    assert first.value.names == ["issues", "whoami"]
    assert facade.call({"whoami": {}}).text == "ada"


def test_facade_definitions_are_checked() -> None:
    with pytest.raises(st.DefinitionError, match="more than one inner tool is named a"):
        st.UnfoldingTool.of("f", "F", [tool("a"), tool("a", "other")])
    with pytest.raises(st.DefinitionError, match="cannot go inside a facade without a model"):
        st.UnfoldingTool.of("f", "F", [st.PlaybookTool("p", "P").with_tools(tool("a"))])
    with pytest.raises(st.DefinitionError, match="different tools have the same name: inside"):
        st.Scheduler.for_items([st.UnfoldingTool.of("f", "F", [tool("inside")]), tool("inside")])
