"""The public API exactly as DESIGN.md section 3 writes it.

Tests outside this repository use these names, keywords, defaults and shapes; each
test here uses them the way such a test would (``import statetools as st``), so a
rename or a changed default fails here. Behaviour is exercised offline with
``ScriptedModel``; provider adapters talk to the local wire server of
``tests/providers/provider_wire.py``, MCP servers are in process.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import attrs
import mcp.client.stdio  # here, not under capsys: its errlog default is sys.stderr at import
import pytest

import statetools as st
from statetools.models import ScriptedModel
from tests.local_asgi import asgi_served
from tests.providers.provider_wire import (
    OPEN_TICKET,
    SEARCH,
    SEARCH_SCHEMA,
    WireServer,
    anthropic_message,
    chat_completion,
    function_call,
    openai_call,
    output_message,
    response,
    text,
    tool_use,
)


def tool(name: str, text: str | None = None) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: text or f"{name} done")


def tool_texts(result: st.LoopResult) -> list[str]:
    return [m.content for m in result.messages if m.role == "tool"]


def defaults(fn: Any) -> dict[str, Any]:
    """The parameters of ``fn`` with their defaults (``KEYWORD`` marks keyword-only
    ones without a default, ``REQUIRED`` positional ones)."""
    found: dict[str, Any] = {}
    for name, parameter in inspect.signature(fn).parameters.items():
        if parameter.kind is parameter.VAR_KEYWORD:
            found[f"**{name}"] = None
        elif parameter.kind is parameter.VAR_POSITIONAL:
            found[f"*{name}"] = None
        elif parameter.default is parameter.empty:
            found[name] = "KEYWORD" if parameter.kind is parameter.KEYWORD_ONLY else "REQUIRED"
        else:
            found[name] = parameter.default
    return found


def assert_defaults(fn: Any, expected: dict[str, Any]) -> None:
    """``fn`` has the parameters of ``expected`` with those defaults (it may have more)."""
    found = defaults(fn)
    assert {name: found.get(name, "MISSING") for name in expected} == expected


# ---- tools ------------------------------------------------------------------------


def test_tool_create_with_schema_and_metadata_keywords() -> None:
    echo = st.Tool.create(
        "echo",
        "Repeat the text.",
        lambda text: text * 2,
        schema=st.InputSchema.of(st.Parameter.string("text", "Text")),
        metadata={"category": "read"},
    )
    assert (echo.name, echo.description, echo.metadata.category) == (
        "echo",
        "Repeat the text.",
        "read",
    )
    assert echo.call({"text": "ab"}).text == "abab"
    plain = st.Tool.create("ping", "Ping.", lambda: "pong", schema=None, metadata=None)
    assert plain.input_schema == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


def test_tool_from_function_with_name_and_description_keywords() -> None:
    def add(a: int, b: int = 1) -> int:
        """Add two numbers."""
        return a + b

    default = st.Tool.from_function(add)
    assert (default.name, default.description) == ("add", "Add two numbers.")
    named = st.Tool.from_function(add, name="plus", description="Sum.")
    assert (named.name, named.description) == ("plus", "Sum.")
    assert named.call({"a": 2}).text == "3"


def test_input_schema_of_parameters() -> None:
    schema = st.InputSchema.of(
        st.Parameter.string("q", "Query"), st.Parameter.integer("n", "Count", required=False)
    )
    assert schema == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "Query"},
            "n": {"type": "integer", "description": "Count"},
        },
        "required": ["q"],
        "additionalProperties": False,
    }


def test_llm_tool_keywords_on_a_function() -> None:
    @st.llm_tool("Look a word up.", name="lookup", category="read", return_direct=True)
    def find(word: str) -> str:
        return f"{word}: a small bird"

    made = st.Tool.from_function(find)
    assert (made.name, made.description, made.metadata.category) == (
        "lookup",
        "Look a word up.",
        "read",
    )
    assert made.metadata.return_direct is True
    model = ScriptedModel([("lookup", {"word": "wren"}), "never asked"])
    result = st.ToolLoop(model).run("Define wren", tools=[find])
    assert result.output == "wren: a small bird"  # return_direct ends the run
    assert len(model.requests) == 1
    assert_defaults(
        st.llm_tool,
        {
            "description": None,
            "name": None,
            "category": None,
            "return_direct": False,
        },
    )


class Shelf:
    def __init__(self) -> None:
        self.books = ["Dune"]

    @st.llm_tool("List the books on the shelf.")
    def books_on_shelf(self) -> str:
        return ", ".join(self.books)

    @st.llm_tool("Put a book on the shelf.", name="shelve")
    def add(self, title: str) -> str:
        self.books.append(title)
        return f"shelved {title}"


def test_llm_tool_on_methods_and_tools_from_instance() -> None:
    shelf = Shelf()
    tools = st.tools_from_instance(shelf)
    assert isinstance(tools, list)
    assert all(isinstance(t, st.Tool) for t in tools)
    assert [t.name for t in tools] == ["books_on_shelf", "shelve"]
    model = ScriptedModel([("shelve", {"title": "Emma"}), ("books_on_shelf", {}), "Two."])
    result = st.ToolLoop(model).run("Shelve Emma", tools=tools)
    assert tool_texts(result) == ["shelved Emma", "Dune, Emma"]


@st.unfolding_tools("calendar", "Open the calendar.", usage_notes="Times are UTC.")
class Calendar:
    def __init__(self) -> None:
        self.events: list[str] = []

    @st.llm_tool("List the events.")
    def events_today(self) -> str:
        return ", ".join(self.events) or "nothing"

    @st.llm_tool("Add an event.")
    def add_event(self, title: str) -> str:
        self.events.append(title)
        return f"added {title}"


def test_tools_from_instance_of_an_unfolding_tools_class_is_one_facade() -> None:
    (facade,) = st.tools_from_instance(Calendar())
    assert isinstance(facade, st.UnfoldingTool)
    assert (facade.name, facade.description) == ("calendar", "Open the calendar.")
    assert facade.call({}).text == (
        "Tools now available: events_today, add_event.\n\nTimes are UTC."
    )


def test_tool_result_constructors_and_observable_shape() -> None:
    text = st.ToolResult.text("3 hits")
    assert (text.is_error, text.text, text.value) == (False, "3 hits", None)
    artifact = st.ToolResult.artifact({"id": 7})
    assert (artifact.is_error, artifact.text, artifact.value) == (False, '{"id": 7}', {"id": 7})
    shown = st.ToolResult.artifact([1, 2], text="2 items")
    assert (shown.text, shown.value) == ("2 items", [1, 2])
    assert st.ToolResult.artifact([1], text=None).text == "[1]"
    error = st.ToolResult.error("No order 7. Call list_orders first.")
    assert (error.is_error, error.text, error.value) == (
        True,
        "No order 7. Call list_orders first.",
        None,
    )


def test_tool_call_takes_json_or_a_dict_and_acall_is_async() -> None:
    add = st.Tool.create("add", "Add.", lambda a, b: a + b)
    for arguments in ({"a": 1, "b": 2}, '{"a": 1, "b": 2}'):
        r = add.call(arguments)
        assert isinstance(r, st.ToolResult)
        assert (r.is_error, r.text, r.value) == (False, "3", None)  # a number is no artifact
    bad = add.call({"a": 1})
    assert bad.is_error
    assert bad.text == (
        "Invalid arguments for tool 'add': missing required argument 'b'. "
        "Call it again with corrected arguments."
    )
    assert asyncio.run(add.acall({"a": 2, "b": 2}, context=None)).text == "4"
    assert add.call({"a": 2, "b": 3}, context=None).text == "5"


@attrs.frozen
class Hit:
    title: str
    score: float


def test_schema_from_signature_with_param_and_injected_context() -> None:
    seen: list[st.ToolCallContext] = []

    def f(
        q: Annotated[str, st.Param("Search query")], ctx: st.ToolCallContext, n: int = 5
    ) -> list[Hit]:
        """Search the library."""
        seen.append(ctx)
        return [Hit(q, n)][:n]

    made = st.Tool.from_function(f)
    assert made.input_schema == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "Search query"},
            "n": {"type": "integer", "default": 5},
        },
        "required": ["q"],
        "additionalProperties": False,
    }  # the context is injected, never in a schema
    r = made.call({"q": "tides"}, context={"user": "ann"})
    assert (r.text, r.value) == ('[{"title": "tides", "score": 5}]', [Hit("tides", 5)])
    [context] = seen
    assert isinstance(context, st.ToolCallContext)
    assert dict(context) == {"user": "ann"}
    with pytest.raises(TypeError):
        context["user"] = "bob"  # type: ignore[index]


def test_with_description_and_with_note() -> None:
    ping = tool("ping")
    assert ping.with_description("Check the link.").description == "Check the link."
    assert ping.with_note("Cheap").description == "The ping tool. Cheap"
    assert ping.description == "The ping tool."  # builders return new objects


# ---- disclosure -------------------------------------------------------------------


def test_playbook_with_tools_with_tool_unlocked_by() -> None:
    search, analyze, report = tool("search"), tool("analyze"), tool("report")
    playbook = (
        st.PlaybookTool("research", "Research a topic")
        .with_tools(search, analyze)
        .with_tool(report)
        .unlocked_by(search, analyze)
    )
    model = ScriptedModel(
        [("report", {}), ("search", {}), ("analyze", {}), ("report", {}), "Reported."]
    )
    result = st.ToolLoop(model).run("Research tides", tools=[playbook])
    assert [r.tool_names for r in model.requests] == [
        ["search", "analyze"],
        ["search", "analyze"],
        ["search", "analyze"],
        ["search", "analyze", "report"],
        ["search", "analyze", "report"],
    ]
    assert tool_texts(result) == [
        "Tool 'report' is locked. Call first: search, analyze.",
        "search done",
        "analyze done\n[now available: report]",
        "report done",
    ]


def visible_after(playbook: st.PlaybookTool, steps: list[Any]) -> list[list[str]]:
    model = ScriptedModel([*steps, "ok"])
    st.ToolLoop(model).run("go", tools=[playbook])
    return [r.tool_names for r in model.requests]


def test_playbook_unlocked_by_all_and_any() -> None:
    a, b, c = tool("a"), tool("b"), tool("c")
    every = st.PlaybookTool("all", "All").with_tools(a, b).with_tool(c).unlocked_by_all(a, b)
    assert visible_after(every, [("a", {}), ("b", {})]) == [
        ["a", "b"],
        ["a", "b"],
        ["a", "b", "c"],
    ]
    either = st.PlaybookTool("any", "Any").with_tools(a, b).with_tool(c).unlocked_by_any(a, b)
    assert visible_after(either, [("b", {})]) == [["a", "b"], ["a", "b", "c"]]


@attrs.frozen
class Order:
    number: str


def test_playbook_unlocked_by_artifact_blackboard_and_when() -> None:
    def find_order() -> Order:
        """Find the order."""
        return Order("A7")

    def note(ctx: st.ToolCallContext) -> str:
        """Post the order to the blackboard."""
        assert ctx.blackboard is not None
        ctx.blackboard.post(Order("B2"))
        return "posted"

    refund, ship, close = tool("refund"), tool("ship"), tool("close")
    playbook = (
        st.PlaybookTool("desk", "Desk")
        .with_tools(find_order, note)
        .with_tool(refund)
        .unlocked_by_artifact(Order)
        .with_tool(ship)
        .unlocked_by_blackboard(Order)
        .with_tool(close)
        .unlocked_when(lambda view: view.calls("ship") > 0)
    )
    assert visible_after(playbook, [("find_order", {}), ("note", {}), ("ship", {})]) == [
        ["find_order", "note"],
        ["find_order", "note", "refund"],
        ["find_order", "note", "refund", "ship"],
        ["find_order", "note", "refund", "ship", "close"],
    ]


class Stage(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"
    DONE = "done"


def order_machine() -> st.StateMachineTool[Stage]:
    return (
        st.StateMachineTool("order", "Handle one order", Stage)
        .with_initial_state(Stage.DRAFT)
        .in_state(Stage.DRAFT)
        .with_tool(tool("confirm"))
        .transitions_to(Stage.CONFIRMED)
        .in_state(Stage.CONFIRMED)
        .with_tool(tool("ship"))
        .transitions_to(Stage.DONE)
        .with_global_tools(tool("status"))
        .with_final_states(Stage.DONE)
    )


def test_state_machine_builders() -> None:
    model = ScriptedModel([("ship", {}), ("confirm", {}), ("ship", {}), "Shipped."])
    result = st.ToolLoop(model).run("Ship it", tools=[order_machine()])
    assert [r.tool_names for r in model.requests] == [
        ["confirm", "status"],
        ["confirm", "status"],
        ["status", "ship"],
        ["status"],
    ]
    assert tool_texts(result) == [
        "Tool 'ship' is not available in state DRAFT (it is available in: CONFIRMED).",
        "confirm done\n[now available: ship; state is now CONFIRMED]",
        "ship done\n[state is now DONE (final)]",
    ]
    assert dict(result.state.machine_states) == {"order": "DONE"}


def test_state_machine_starting_in() -> None:
    model = ScriptedModel([("ship", {}), "Shipped."])
    result = st.ToolLoop(model).run("Ship it", tools=[order_machine().starting_in(Stage.CONFIRMED)])
    assert model.requests[0].tool_names == ["ship", "status"]
    assert tool_texts(result) == ["ship done\n[state is now DONE (final)]"]


def test_unfolding_of_with_usage_notes_and_exclusive() -> None:
    admin = st.UnfoldingTool.of(
        "admin", "Open the admin console.", [tool("ban")], usage_notes="Be fair.", exclusive=True
    )
    model = ScriptedModel([("admin", {}), ("read_file", {}), "ok"])
    result = st.ToolLoop(model).run("Moderate", tools=[tool("read_file"), admin])
    assert [r.tool_names for r in model.requests] == [["read_file", "admin"], ["ban"], ["ban"]]
    assert tool_texts(result) == [
        "Tools now available: ban.\n\nBe fair.",
        "Tool 'read_file' is not available: only admin's tools are in use now.",
    ]
    assert_defaults(
        st.UnfoldingTool.of,
        {
            "name": "REQUIRED",
            "description": "REQUIRED",
            "inner": "REQUIRED",
            "usage_notes": None,
            "exclusive": False,
        },
    )


def test_unfolding_by_category() -> None:
    files = st.UnfoldingTool.by_category(
        "files",
        "Open the file tools.",
        {"read": [tool("read_file")], "write": [tool("write_file")]},
    )
    assert files.input_schema["properties"]["category"]["enum"] == ["read", "write"]
    model = ScriptedModel([("files", {"category": "write"}), "ok"])
    result = st.ToolLoop(model).run("Write", tools=[files])
    assert tool_texts(result) == ["Tools now available: write_file."]
    assert model.requests[1].tool_names == ["files", "write_file"]


def test_unfolding_selectable() -> None:
    def open_shop(arguments: dict[str, Any]) -> list[Any]:
        who = arguments["customer"]
        return ["catalogue", st.Tool.create("cart", "The cart.", lambda: f"{who}'s cart")]

    shop = st.UnfoldingTool.selectable(
        "shop",
        "Open the shop for a customer.",
        [tool("catalogue")],
        st.InputSchema.of(st.Parameter.string("customer", "Who is shopping")),
        open_shop,
    )
    model = ScriptedModel([("shop", {"customer": "ann"}), ("cart", {}), "ok"])
    result = st.ToolLoop(model).run("Shop", tools=[shop])
    assert tool_texts(result) == ["Tools now available: catalogue, cart.", "ann's cart"]


class Notebook:
    """Not decorated: its public documented methods are tools."""

    def read(self) -> str:
        """Read the notebook."""
        return "one page"


def test_unfolding_from_instance_and_from_tool_object() -> None:
    facade = st.UnfoldingTool.from_instance(Calendar())
    assert (facade.name, facade.call({}).text) == (
        "calendar",
        "Tools now available: events_today, add_event.\n\nTimes are UTC.",
    )
    notebook = st.UnfoldingTool.from_tool_object(Notebook(), "notebook", "Open the notebook.")
    model = ScriptedModel([("notebook", {}), ("read", {}), "ok"])
    result = st.ToolLoop(model).run("Read", tools=[notebook])
    assert tool_texts(result) == ["Tools now available: read.", "one page"]


@st.tool_provider(prefix="order", id_attribute="number")
@attrs.define
class TrackedOrder:
    number: str

    @st.llm_tool("The status of this order.")
    def status(self) -> str:
        return f"{self.number}: shipped"


def test_tool_provider_names_discovered_tools_prefix_id_method() -> None:
    def find_orders() -> list[TrackedOrder]:
        """Find the orders."""
        return [TrackedOrder("o7"), TrackedOrder("o8")]

    model = ScriptedModel([("find_orders", {}), ("order_o8_status", {}), "ok"])
    result = st.ToolLoop(model).run("Where?", tools=[find_orders])
    assert model.requests[1].tool_names == ["find_orders", "order_o7_status", "order_o8_status"]
    assert tool_texts(result)[-1] == "o8: shipped"
    assert_defaults(st.tool_provider, {"prefix": "", "id_attribute": "id"})


def test_simple_agentic_tool_runs_its_own_loop_with_its_model() -> None:
    inner = ScriptedModel([("lookup", {}), "Found it."])
    agent = (
        st.SimpleAgenticTool("researcher", "Research a question.")
        .with_tools(tool("lookup", "a fact"))
        .with_model(inner)
    )
    outer = ScriptedModel([("researcher", {"task": "find a fact"}), "Done."])
    result = st.ToolLoop(outer).run("Go", tools=[agent])
    assert outer.requests[0].tool_names == ["researcher"]
    assert inner.requests[0].tool_names == ["lookup"]
    assert tool_texts(result) == ["Found it."]
    assert result.output == "Done."


class Repo:
    def __init__(self, name: str, archived: bool = False) -> None:
        self.name, self.archived = name, archived

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        return f"starred {self.name}"


def open_repo(name: str) -> Repo:
    """Open a repository by name."""
    return st.ToolResult.artifact(Repo(name, archived=name == "old"), text=f"opened {name}")  # type: ignore[return-value]


def test_with_tool_chaining_from_and_from_any() -> None:
    steps = [("open_repo", {"name": "old"}), ("star", {}), ("open_repo", {"name": "new"})]
    model = ScriptedModel([*steps, ("star", {}), "ok"])
    loop = st.ToolLoop(model).with_tool_chaining_from(Repo, predicate=lambda r: not r.archived)
    result = loop.run("Star", tools=[open_repo])
    assert tool_texts(result)[1] == "Tool 'star' needs a Repo first. Call first: open_repo."
    assert tool_texts(result)[3] == "starred new"

    playbook = st.PlaybookTool("repos", "Repositories").with_tools(open_repo)
    for chained in (
        playbook.with_tool_chaining_from(Repo),
        playbook.with_tool_chaining_from_any(),
    ):
        model = ScriptedModel([("open_repo", {"name": "a"}), ("star", {}), "ok"])
        result = st.ToolLoop(model).run("Star", tools=[chained])
        assert tool_texts(result) == ["opened a\n[now available: star]", "starred a"]
    model = ScriptedModel([("open_repo", {"name": "a"}), ("star", {}), "ok"])
    result = st.ToolLoop(model).with_tool_chaining_from_any().run("Star", tools=[open_repo])
    assert tool_texts(result) == ["opened a\n[now available: star]", "starred a"]


# ---- running ------------------------------------------------------------------------


def test_tool_loop_keywords_and_defaults() -> None:
    assert defaults(st.ToolLoop)["max_iterations"] == 20
    assert defaults(st.ToolLoop)["listeners"] == ()
    assert defaults(st.ToolLoop)["visibility"] == "hidden"
    assert defaults(st.ToolLoop)["tool_timeout"] is None
    run = defaults(st.ToolLoop.run)
    assert {k: run[k] for k in ("prompt", "tools", "output_type", "context")} == {
        "prompt": "REQUIRED",
        "tools": (),
        "output_type": None,
        "context": None,
    }
    events: list[Any] = []
    model = ScriptedModel([("ping", {}), "pong seen"])
    loop = st.ToolLoop(model, max_iterations=3, listeners=(events.append,), visibility="hidden")
    result = loop.run("Ping", tools=[tool("ping", "pong")], output_type=None, context=None)
    assert result.output == "pong seen"
    assert [type(e).__name__ for e in events] == [type(e).__name__ for e in result.trace]


def test_loop_result_attributes_and_message_shapes() -> None:
    model = ScriptedModel([[("a", {}), ("b", {"n": 1})], "The answer is 42."])
    a = tool("a", "A")
    b = st.Tool.create("b", "The b tool.", lambda n: f"B{n}")
    result = st.ToolLoop(model).run("Ask", tools=[a, b])
    assert result.output == "The answer is 42."
    assert result.iterations == 2
    assert isinstance(result.usage, st.models.Usage)
    assert isinstance(result.trace, st.Trace)
    assert isinstance(result.state, st.DisclosureState)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert all(isinstance(m.content, str) for m in result.messages)
    call = result.messages[1]
    calls = [st.ToolCall("call_1", "a", {}), st.ToolCall("call_2", "b", {"n": 1})]
    assert call.tool_calls == calls  # a tuple (messages are immutable) equal to the list
    assert call.tool_calls == tuple(calls)
    assert call.tool_calls != calls[:1]
    second = call.tool_calls[1]
    assert (second.id, second.name, second.arguments) == ("call_2", "b", {"n": 1})
    assert isinstance(second.arguments, dict)
    answers = [(m.tool_call_id, m.name, m.content, m.is_error) for m in result.messages[2:4]]
    assert answers == [("call_1", "a", "A", False), ("call_2", "b", "B1", False)]


def test_messages_as_the_prompt_and_system_role() -> None:
    model = ScriptedModel(["hi"])
    prompt = [st.SystemMessage("Be brief."), st.UserMessage("Hello")]
    result = st.ToolLoop(model).run(prompt)
    assert [(m.role, m.content) for m in result.messages] == [
        ("system", "Be brief."),
        ("user", "Hello"),
        ("assistant", "hi"),
    ]


def test_arun_is_the_async_run() -> None:
    model = ScriptedModel([("ping", {}), "done"])
    result = asyncio.run(st.ToolLoop(model).arun("Ping", tools=[tool("ping")]))
    assert (result.output, tool_texts(result)) == ("done", ["ping done"])


def test_scripted_model_steps_and_requests() -> None:
    def computed(request: Any) -> str:
        return f"computed from {len(request.messages)} messages"

    model = st.models.ScriptedModel(
        [
            ("search", {"query": "x"}),
            [("a", {}), ("b", {"n": 1})],
            computed,
            "The answer is 42.",
        ]
    )
    search = st.Tool.create("search", "Search.", lambda query: f"hits for {query}")
    b = st.Tool.create("b", "The b tool.", lambda n: f"B{n}")
    result = st.ToolLoop(model).run("Go", tools=[search, tool("a"), b])
    assert result.output == "computed from 6 messages"
    assert len(model.requests) == 3
    first = model.requests[0]
    assert [m.role for m in first.messages] == ["user"]
    assert first.tool_names == ["search", "a", "b"]
    assert [t.name for t in first.tools] == first.tool_names
    assert tool_texts(result) == ["hits for x", "a done", "B1"]


def test_errors_that_end_a_run_carry_the_partial_result() -> None:
    model = ScriptedModel([("ping", {}), ("ping", {}), ("ping", {})])
    with pytest.raises(st.MaxIterationsExceeded) as caught:
        st.ToolLoop(model, max_iterations=2).run("Ping", tools=[tool("ping")])
    assert isinstance(caught.value, st.StatetoolsError)
    partial = caught.value.result
    assert isinstance(partial, st.LoopResult)
    assert tool_texts(partial) == ["ping done", "ping done"]
    assert partial.iterations == 2

    @attrs.frozen
    class Answer:
        n: int

    with pytest.raises(st.OutputValidationError) as wrong:
        st.ToolLoop(ScriptedModel(["no", "still no", "never"])).run("N?", output_type=Answer)
    assert isinstance(wrong.value.result, st.LoopResult)
    assert wrong.value.result.messages[1].content == "no"
    for error in (st.ToolNotFoundError, st.ProviderError, st.SpecError):
        assert issubclass(error, st.StatetoolsError)


def test_tool_loop_takes_a_model_string(monkeypatch: pytest.MonkeyPatch, wire: WireServer) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{wire.url}/v1")
    wire.reply(response(function_call("c1", "search", '{"query": "tides"}')))
    wire.reply(response(output_message("Two hits.")))
    result = st.ToolLoop("openai:gpt-4o-mini").run("Tides?", tools=[SEARCH])
    assert (result.output, tool_texts(result)) == ("Two hits.", ["3 hits for tides"])
    assert [r.path for r in wire.requests] == ["/v1/responses", "/v1/responses"]
    assert wire.bodies[0]["model"] == "gpt-4o-mini"


def test_tool_timeout_on_the_loop_and_in_tool_metadata() -> None:
    async def slow() -> str:
        """Wait a long time."""
        await asyncio.sleep(5)
        return "late"

    @st.llm_tool("Wait a long time too.", timeout=0.05)
    async def slower() -> str:
        await asyncio.sleep(5)
        return "late"

    model = ScriptedModel([("slow", {}), ("slower", {}), "gave up"])
    result = st.ToolLoop(model, tool_timeout=0.05).run("Wait", tools=[slow, slower])
    texts = tool_texts(result)
    assert texts == [
        "Tool 'slow' timed out after 0.05 s.",
        "Tool 'slower' timed out after 0.05 s.",
    ]


# ---- provider adapters ----------------------------------------------------------------


def test_openai_chat_model_constructor_and_wire(wire: WireServer) -> None:
    assert_defaults(
        st.models.OpenAIChatModel,
        {
            "model": "REQUIRED",
            "client": None,
            "base_url": None,
            "api_key": None,
            "max_retries": 2,
            "timeout": 60.0,
            "disclosure": "tools",
            "**request_options": None,
        },
    )
    wire.reply(chat_completion(tool_calls=[openai_call("c1", "search", '{"query": "x"}')]))
    wire.reply(chat_completion("Done."))
    model = st.models.OpenAIChatModel(
        "gpt-test",
        client=None,
        base_url=f"{wire.url}/v1",
        api_key="sk-test",
        max_retries=0,
        timeout=5.0,
        temperature=0,
    )
    result = st.ToolLoop(model).run("Find x", tools=[SEARCH])
    assert result.output == "Done."
    assert [r.path for r in wire.requests] == ["/v1/chat/completions"] * 2
    assert wire.requests[0].headers["authorization"] == "Bearer sk-test"
    assert (wire.bodies[0]["model"], wire.bodies[0]["temperature"]) == ("gpt-test", 0)
    assert wire.bodies[0]["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the knowledge base.",
                "parameters": SEARCH_SCHEMA,
            },
        }
    ]


@pytest.mark.parametrize("model_class", ["OpenAIChatModel", "OpenAIResponsesModel"])
def test_openai_disclosure_allowed_tools(wire: WireServer, model_class: str) -> None:
    chat = model_class == "OpenAIChatModel"
    wire.reply(chat_completion("Done.") if chat else response(output_message("Done.")))
    cls = getattr(st.models, model_class)
    assert_defaults(
        cls,
        {
            "model": "REQUIRED",
            "client": None,
            "base_url": None,
            "api_key": None,
            "max_retries": 2,
            "timeout": 60.0,
            "disclosure": "tools",
            "**request_options": None,
        },
    )
    model = cls("gpt-test", base_url=f"{wire.url}/v1", api_key="sk", disclosure="allowed_tools")
    support = st.PlaybookTool("support", "Desk").with_tool(SEARCH).with_tool(OPEN_TICKET)
    st.ToolLoop(model).run("Help", tools=[support.unlocked_by(SEARCH)])
    body = wire.bodies[0]
    names = [t["function"]["name"] if chat else t["name"] for t in body["tools"]]
    assert names == ["search", "open_ticket"]  # every tool, one array for the run
    allowed = body["tool_choice"]
    assert allowed["type"] == "allowed_tools"
    listed = allowed["allowed_tools"]["tools"] if chat else allowed["tools"]
    assert listed == (
        [{"type": "function", "function": {"name": "search"}}]
        if chat
        else [{"type": "function", "name": "search"}]
    )


def test_anthropic_model_constructor_defaults_and_wire(wire: WireServer) -> None:
    found = defaults(st.models.AnthropicModel)
    assert {k: found[k] for k in ("model", "client", "base_url", "api_key")} == {
        "model": "REQUIRED",
        "client": None,
        "base_url": None,
        "api_key": None,
    }
    assert (found["max_retries"], found["timeout"], found["max_tokens"]) == (2, 60.0, 4096)
    assert found["disclosure"] == "tools"
    assert "**request_options" in found
    wire.reply(anthropic_message(tool_use("t1", "search", {"query": "x"})))
    wire.reply(anthropic_message(text("Done.")))
    model = st.models.AnthropicModel(
        "claude-test",
        client=None,
        base_url=wire.url,
        api_key="sk-ant",
        max_retries=0,
        timeout=5.0,
        temperature=0,
    )
    result = st.ToolLoop(model).run("Find x", tools=[SEARCH])
    assert (result.output, tool_texts(result)) == ("Done.", ["3 hits for x"])
    body = wire.bodies[0]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("claude-test", 4096, 0)
    assert body["tools"] == [
        {
            "name": "search",
            "description": "Search the knowledge base.",
            "input_schema": SEARCH_SCHEMA,
        }
    ]


def test_anthropic_disclosure_deferred(wire: WireServer) -> None:
    wire.reply(anthropic_message(text("Done.")))
    model = st.models.AnthropicModel(
        "claude-test", base_url=wire.url, api_key="sk-ant", disclosure="deferred"
    )
    support = st.PlaybookTool("support", "Desk").with_tool(SEARCH).with_tool(OPEN_TICKET)
    st.ToolLoop(model).run("Help", tools=[support.unlocked_by(SEARCH)])
    tools = wire.bodies[0]["tools"]
    assert [(t["name"], t.get("defer_loading")) for t in tools] == [
        ("search", None),
        ("open_ticket", True),
    ]


def test_resolve_model_strings(tmp_path: Path) -> None:
    assert isinstance(
        st.models.resolve("openai:gpt-4o-mini", api_key="sk"), st.models.OpenAIResponsesModel
    )
    chat = st.models.resolve("openai-chat:gpt-4o-mini", api_key="sk")
    assert isinstance(chat, st.models.OpenAIChatModel)
    assert chat.model == "gpt-4o-mini"
    claude = st.models.resolve("anthropic:claude-sonnet-4-6", api_key="sk")
    assert isinstance(claude, st.models.AnthropicModel)
    assert claude.model == "claude-sonnet-4-6"
    script = tmp_path / "script.yaml"
    script.write_text("- answer: Scripted hello.\n", encoding="utf-8")
    scripted = st.models.resolve(f"scripted:{script}")
    assert isinstance(scripted, st.models.ScriptedModel)
    assert st.ToolLoop(scripted).run("Hi").output == "Scripted hello."


# ---- review -------------------------------------------------------------------------


def research_playbook(
    search: st.Tool | None = None, analyze: st.Tool | None = None
) -> st.PlaybookTool:
    search, analyze = search or tool("search"), analyze or tool("analyze")
    return (
        st.PlaybookTool("research", "Research")
        .with_tool(search)
        .with_tool(analyze)
        .unlocked_by(search)
    )


def test_disclosure_graph_check_and_findings() -> None:
    g = st.disclosure_graph(research_playbook(), tool("ping"))
    assert isinstance(g, st.DisclosureGraph)
    assert st.check(g).findings == ()
    broken = st.PlaybookTool("p", "P").with_tool(tool("a")).unlocked_by("serch")
    report = st.check(st.disclosure_graph(broken))
    assert isinstance(report, st.Report)
    finding = report.findings[0]
    assert isinstance(finding, st.Finding)
    assert (finding.code, finding.severity, finding.message, finding.path) == (
        "ST001",
        "error",
        "The condition of 'a' names tool 'serch', which is not registered.",
        "playbook:p/tool:a",
    )
    assert [f.code for f in report.findings] == ["ST001", "ST003", "ST014"]


def test_explore_min_turns_visible_sets_and_tokens() -> None:
    g = st.disclosure_graph(research_playbook())
    exploration = st.explore(g)
    assert isinstance(exploration, st.Exploration)
    assert dict(exploration.min_turns) == {"search": 0, "analyze": 1}
    assert sorted(sorted(v.tools) for v in exploration.visible_sets) == [
        ["analyze", "search"],
        ["search"],
    ]
    assert isinstance(exploration.max_tokens, int)
    assert isinstance(exploration.flat_tokens, int)
    assert exploration.max_tokens == exploration.flat_tokens > 0


def test_render_formats_and_a_trace() -> None:
    g = st.disclosure_graph(research_playbook())
    assert_defaults(st.render, {"graph": "REQUIRED", "format": "svg", "trace": None})
    svg = st.render(g)
    assert svg.format == "svg"
    assert svg.text.startswith('<?xml version="1.0" encoding="UTF-8" standalone="no"?>')
    mermaid = st.render(g, format="mermaid", trace=None)
    assert mermaid.text.splitlines()[:6] == [
        "flowchart LR",
        '  subgraph cluster_playbook_research["playbook research"]',
        '    tool_search["search"]',
        '    tool_analyze["analyze"]',
        "  end",
        '  tool_search -.->|"after search"| tool_analyze',
    ]
    result = st.ToolLoop(ScriptedModel([("search", {}), "ok"])).run(
        "go", tools=[research_playbook()]
    )
    dot = st.render(g, format="dot", trace=result.trace)
    assert dot.text.startswith("digraph")


def test_load_and_dump_playbook() -> None:
    search, analyze = tool("search"), tool("analyze")
    loaded = st.load_playbook(
        """
kind: playbook
name: research
description: Research
tools:
  - search
  - tool: analyze
    unlocked_by: search
""",
        tools=[search, analyze],
    )
    assert loaded == research_playbook(search, analyze)
    text_form = st.dump_playbook(loaded)
    assert st.load_playbook(text_form, tools=[search, analyze]) == loaded


# ---- round 2: search, layers, examples, modules -------------------------------------


def test_searchable_with_query_names_and_in_loop_definitions() -> None:
    notes = (
        st.PlaybookTool("notes", "Notes")
        .with_tool(st.Tool.create("search_notes", "Search the notes.", lambda: "2 notes"))
        .with_tool(st.Tool.create("write_report", "Write the report.", lambda: "written"))
        .unlocked_by("search_notes")
    )
    finder = st.UnfoldingTool.searchable("find_tools", "Search the tools", [notes, tool("ping")])
    assert defaults(st.UnfoldingTool.searchable)["max_results"] == 5
    assert sorted(finder.input_schema["properties"]) == ["names", "query"]
    model = ScriptedModel(
        [
            ("find_tools", {"query": "report"}),
            ("search_notes", {}),
            ("write_report", {}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("Report", tools=[finder])
    assert tool_texts(result) == [  # the locked match brings what it waits for, then opens
        'Tools matching "report", best first:\n'
        "- search_notes: Search the notes.\n"
        "- write_report (locked): Write the report. Call first: search_notes.\n"
        "Tools now available: search_notes. Opening once unlocked: write_report.",
        "2 notes\n[now available: write_report]",
        "written",
    ]
    one = st.UnfoldingTool.searchable("find", "Find", [tool("a"), tool("b")], max_results=1)
    assert one.call({"query": "the a tool"}).text.count("\n- ") == 1


def test_layered_base_forms_and_tool_detail() -> None:
    def create_employee(
        name: Annotated[str, st.Param("Full name", example="Grace Hopper")], salary: float
    ) -> str:
        """Create a new employee. The name must be unique."""
        return f"created {name}"

    tools = st.layered(create_employee, detail_tool="tool_detail")
    assert [(t.name, t.input_schema) for t in tools] == [
        ("create_employee", {"type": "object"}),
        ("tool_detail", tools[1].input_schema),
    ]
    assert list(tools[1].input_schema["properties"]) == ["name"]
    model = ScriptedModel(
        [
            ("tool_detail", {"name": "create_employee"}),
            ("create_employee", {"name": "Ada", "salary": 2.0}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("Hire Ada", tools=tools)
    assert tool_texts(result) == [
        "create_employee: Create a new employee. The name must be unique.\n"
        "Parameters:\n- name (string, required): Full name\n- salary (number, required)\n"
        'Returns: str\nExample arguments: {"name": "Grace Hopper", "salary": 1.5}',
        "created Ada",
    ]
    renamed = st.layered(create_employee, detail_tool="describe")
    assert [t.name for t in renamed] == ["create_employee", "describe"]


def test_example_arguments_are_valid_for_the_schema() -> None:
    schema = st.InputSchema.of(
        st.Parameter.string("city", "City", enum=["Paris", "Oslo"]),
        st.Parameter.integer("days", "Days", required=False),
    )
    example = st.example_arguments(schema)
    assert isinstance(example, dict)
    assert example["city"] == "Paris"
    assert (
        st.Tool.create("trip", "Plan a trip.", lambda city, days=1: "ok", schema=schema)
        .call(example)
        .is_error
        is False
    )


def test_tools_from_module_include_and_exclude() -> None:
    import types

    module = types.ModuleType("shop_tools")
    exec(
        "import statetools as st\n"
        "@st.llm_tool('Search the catalogue')\n"
        "def search(query: str) -> str:\n    return 'hits'\n"
        "@st.llm_tool('Get an item')\n"
        "def get_item(item: str) -> str:\n    return 'item'\n"
        "@st.llm_tool('Remove an item')\n"
        "def remove_item(item: str) -> str:\n    return 'removed'\n",
        module.__dict__,
    )
    assert [t.name for t in st.tools_from_module(module)] == ["search", "get_item", "remove_item"]
    assert [t.name for t in st.tools_from_module(module, include=["get_*", "search"])] == [
        "search",
        "get_item",
    ]
    assert [t.name for t in st.tools_from_module(module, exclude=["remove_*"])] == [
        "search",
        "get_item",
    ]
    by_name = st.tools_from_module("tests.search.shop", include=None, exclude=["to_*"])
    assert [t.name for t in by_name] == ["search", "cancel_order", "record_payment"]


# ---- round 2: sections and skills -----------------------------------------------------


def support_sections(**options: Any) -> st.Sections:
    refund = st.Tool.create("refund_order", "Refund an order", lambda order: f"refunded {order}")
    chargeback = st.Tool.create("open_chargeback", "Open one", lambda order: f"opened {order}")
    return st.Sections(
        st.Section("tone", "Tone", "Be brief.", visibility="full"),
        st.Section(
            "billing",
            "Billing",
            "Refunds within 30 days.",
            summary="Refunds and disputes.",
            tools=[refund],
            children=[
                st.Section(
                    "disputes", "Disputes", "Chargebacks.", summary="Disputes.", tools=[chargeback]
                )
            ],
        ),
        **options,
    )


def test_sections_render_next_to_the_system_prompt_and_read_section_takes_key() -> None:
    found = defaults(st.Section)
    assert {k: found[k] for k in ("summary", "visibility", "tools", "children")} == {
        "summary": None,
        "visibility": "summary",
        "tools": (),
        "children": (),
    }
    assert defaults(st.Sections)["tool_name"] == "read_section"
    model = ScriptedModel(
        [("read_section", {"key": "billing"}), ("open_chargeback", {"order": "A7"}), "Done."]
    )
    loop = st.ToolLoop(model, system_prompt="You are a support agent.")
    result = loop.run("Dispute A7", tools=[support_sections()])
    first = model.requests[0]
    assert [(m.role, m.content) for m in first.messages] == [
        ("system", "You are a support agent."),
        (
            "system",
            "## Tone\n\nBe brief.\n\n## Billing\n\nRefunds and disputes.\n"
            '(Summary only: call read_section with key "billing" to read it in full.)',
        ),
        ("user", "Dispute A7"),
    ]
    assert first.tool_names == ["read_section"]
    assert list(first.tools[0].input_schema["properties"]) == ["key"]
    assert model.requests[1].tool_names == ["read_section", "refund_order", "open_chargeback"]
    assert tool_texts(result)[1] == "opened A7"


def test_sections_tool_name() -> None:
    model = ScriptedModel([("read_docs", {"key": "billing"}), "ok"])
    st.ToolLoop(model).run("go", tools=[support_sections(tool_name="read_docs")])
    assert model.requests[0].tool_names == ["read_docs"]
    assert model.requests[1].tool_names == ["read_docs", "refund_order", "open_chargeback"]


SKILL = """\
---
name: pdf-forms
description: Fill in PDF forms.
allowed-tools: fill_field
---
Read references/fields.md first.
"""


def test_load_skills_load_skill_and_read_skill_file(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "pdf-forms"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (folder / "references" / "fields.md").write_text("Fields: name.\n", encoding="utf-8")
    assert_defaults(st.load_skills, {"path": "REQUIRED", "tool_name": "load_skill", "tools": None})
    fill = st.Tool.create("fill_field", "Fill a field", lambda field: f"filled {field}")
    skills = st.load_skills(tmp_path / "skills", tool_name="load_skill", tools=[fill])
    assert isinstance(skills, st.Sections)
    model = ScriptedModel(
        [
            ("load_skill", {"key": "pdf-forms"}),
            ("read_skill_file", {"skill": "pdf-forms", "path": "references/fields.md"}),
            ("fill_field", {"field": "name"}),
            "Done.",
        ]
    )
    result = st.ToolLoop(model).run("Fill it", tools=[skills])
    assert model.requests[0].tool_names == ["load_skill"]
    assert model.requests[1].tool_names == ["load_skill", "fill_field", "read_skill_file"]
    assert tool_texts(result)[1:] == ["Fields: name.\n", "filled name"]


# ---- round 2: MCP -------------------------------------------------------------------


def test_mcp_in_process_server_list_tools_and_facades() -> None:
    from tests.mcp.upstream import Notes

    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes")

    async def main() -> tuple[list[Any], st.ToolResult, st.UnfoldingTool, st.UnfoldingTool]:
        async with server:
            tools = await server.list_tools()
            read = await tools[0].acall({"key": "a"})
            return tools, read, server.facade(by="annotations"), server.facade(search=True)

    tools, read, by_annotations, search = asyncio.run(main())
    assert all(isinstance(t, st.BaseTool) for t in tools)
    assert [(t.name, t.description) for t in tools] == [
        ("read_note", "Read a note"),
        ("write_note", "Write a note"),
    ]
    assert (read.text, read.is_error) == ("Note a: buy milk", False)
    assert by_annotations.name == "notes"
    assert by_annotations.input_schema["properties"]["category"]["enum"] == ["read", "write"]
    assert search.name == "notes"
    assert sorted(search.input_schema["properties"]) == ["names", "query"]

    plain = st.mcp.MCPServer.in_process(Notes().server, name="memo").facade()
    assert isinstance(plain, st.UnfoldingTool)  # a plain call, before any connection
    assert plain.name == "memo"
    assert_defaults(st.mcp.MCPServer.facade, {"description": None, "by": None, "search": False})
    model = ScriptedModel([("memo", {}), ("write_note", {"text": "hi"}), "ok"])
    result = st.ToolLoop(model).run("Write", tools=[plain])
    assert tool_texts(result) == ["Tools now available: read_note, write_note.", "write.note ok"]


def test_mcp_stdio_server(tmp_path: Path) -> None:
    from tests.mcp.upstream import TIME_SERVER

    assert_defaults(
        st.mcp.MCPServer.stdio,
        {
            "command": "REQUIRED",
            "args": (),
            "env": None,
            "cwd": None,
            "name": "KEYWORD",
            "**options": None,
        },
    )
    server = st.mcp.MCPServer.stdio(
        TIME_SERVER, ("--local-timezone", "UTC"), env={"TZ": "UTC"}, cwd=tmp_path, name="clock"
    )
    model = ScriptedModel(
        [("clock", {}), ("get_current_time", {"timezone": "Europe/Paris"}), "Noon."]
    )
    result = st.ToolLoop(model).run("Time?", tools=[server.facade("Open the clock.")])
    opened, now = tool_texts(result)
    assert opened == "Tools now available: get_current_time, convert_time."
    assert json.loads(now)["timezone"] == "Europe/Paris"
    assert model.requests[0].tools[0].description == "Open the clock."


LOCKED = "Tool 'summarize' is locked. Call first: search."


def notes_design() -> st.PlaybookTool:
    def search(q: str) -> str:
        """Search the notes."""
        return f"2 notes about {q}"

    def summarize() -> str:
        """Summarize what was found."""
        return "Tides follow the moon."

    return (
        st.PlaybookTool("notes", "Research the notes")
        .with_tools(search)
        .with_tool(summarize)
        .unlocked_by(search)
    )


def test_disclosure_server_with_mcp_client() -> None:
    import mcp

    server = st.mcp.disclosure_server([notes_design()])
    single = st.mcp.disclosure_server(notes_design())  # one definition, or a list of items

    async def names(client: mcp.Client) -> list[str]:
        return [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]

    def shown(result: Any) -> tuple[str, bool]:
        return "\n".join(block.text for block in result.content), bool(result.is_error)

    changed: list[str] = []

    async def on_message(message: Any) -> None:
        changed.append(type(getattr(message, "root", message)).__name__)

    async def legacy() -> list[Any]:
        """2025-era clients: state per connection, tools/list_changed."""
        seen: list[Any] = []
        async with (
            mcp.Client(server, mode="legacy", message_handler=on_message) as first,
            mcp.Client(server, mode="legacy") as second,
        ):
            seen.append(shown(await first.call_tool("summarize", {})))
            seen.append(shown(await first.call_tool("search", {"q": "tides"})))
            seen.append(await names(first))
            seen.append(await names(second))  # state is per connection
        async with mcp.Client(single, mode="legacy") as third:
            seen.append(await names(third))
        return seen

    assert asyncio.run(legacy()) == [
        (LOCKED, True),
        ("2 notes about tides\n[now available: summarize]", False),
        ["search", "summarize"],
        ["search"],
        ["search"],
    ]
    assert "ToolListChangedNotification" in changed

    async def modern() -> list[Any]:
        """2026-07-28 clients: one stable listing; state behind the handle a result gives."""
        async with mcp.Client(server) as client:
            seen: list[Any] = [await names(client)]
            seen.append(shown(await client.call_tool("summarize", {})))
            opened = await client.call_tool("search", {"q": "tides"})
            handle = opened.meta["statetools/session"]
            seen.append(shown(opened)[0].splitlines()[:2])
            seen.append(await names(client))
            seen.append(
                shown(await client.call_tool("call_tool", {"name": "summarize", "session": handle}))
            )
            return seen

    assert asyncio.run(modern()) == [
        ["search", "describe_tool", "call_tool"],
        (LOCKED, True),
        ["2 notes about tides", "[now available: summarize]"],
        ["search", "describe_tool", "call_tool"],
        ("Tides follow the moon.", False),
    ]


@pytest.fixture
def http_design_url() -> Iterator[str]:
    """The notes design served over streamable HTTP on a port the OS chose."""
    from statetools.mcp.gateway import http_app

    with asgi_served(http_app(st.mcp.disclosure_server([notes_design()]))) as base:
        yield f"{base}/mcp"


def test_mcp_http_server(http_design_url: str) -> None:
    assert_defaults(
        st.mcp.MCPServer.http,
        {
            "url": "REQUIRED",
            "headers": None,
            "name": "KEYWORD",
            "**options": None,
        },
    )
    remote = st.mcp.MCPServer.http(http_design_url, name="remote")

    def call_summarize(request: Any) -> tuple[str, dict[str, Any]]:
        handle = request.messages[-1].content.rsplit('session="', 1)[1].split('"', 1)[0]
        return ("call_tool", {"name": "summarize", "session": handle})

    model = ScriptedModel(
        [("remote", {}), ("summarize", {}), ("search", {"q": "tides"}), call_summarize, "ok"]
    )
    result = st.ToolLoop(model).run("Notes", tools=[remote.facade()])
    answers = [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]
    assert answers[:2] == [
        ("remote", "Tools now available: search, describe_tool, call_tool.", False),
        (
            "summarize",
            "Tool 'summarize' does not exist. Available tools: search, describe_tool, call_tool.",
            True,
        ),
    ]
    assert answers[2][1].splitlines()[:2] == ["2 notes about tides", "[now available: summarize]"]
    assert answers[3] == ("call_tool", "Tides follow the moon.", False)


def test_statetools_serve_design_yaml_over_stdio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from statetools.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "statetools serve [-h] [--transport {stdio,http}]" in capsys.readouterr().out

    import mcp
    from mcp.client.stdio import StdioServerParameters

    (tmp_path / "notes_tools.py").write_text(
        "def search(q: str) -> str:\n"
        '    """Search the notes."""\n'
        '    return f"2 notes about {q}"\n\n\n'
        "def summarize() -> str:\n"
        '    """Summarize what was found."""\n'
        '    return "Tides follow the moon."\n',
        encoding="utf-8",
    )
    design = tmp_path / "DESIGN.yaml"
    design.write_text(
        "kind: playbook\nname: notes\ndescription: Research the notes\ntools:\n"
        "  - notes_tools:search\n  - tool: notes_tools:summarize\n    unlocked_by: search\n",
        encoding="utf-8",
    )
    command = str(Path(sys.executable).parent / "statetools")
    params = StdioServerParameters(
        command=command,
        args=["serve", str(design), "--transport", "stdio"],
        cwd=str(tmp_path),
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[1])},  # the code under test
    )

    async def main() -> tuple[list[str], str, bool]:
        async with mcp.Client(params) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            locked = await client.call_tool("summarize", {})
            return listed, locked.content[0].text, bool(locked.is_error)

    assert asyncio.run(main()) == (["search", "describe_tool", "call_tool"], LOCKED, True)


# ---- round 2: streaming and sessions ------------------------------------------------


def test_stream_is_a_plain_method_with_result_and_live_only_events() -> None:
    model = ScriptedModel([("ping", {}), "All done."])
    loop = st.ToolLoop(model)

    async def main() -> tuple[list[Any], st.LoopResult]:
        stream = loop.stream("go", tools=[tool("ping", "pong")])  # no await: a plain call
        events = [event async for event in stream]
        return events, stream.result

    events, result = asyncio.run(main())
    assert result.output == "All done."
    deltas = [e for e in events if isinstance(e, st.TextDelta)]
    assert deltas == [st.TextDelta(2, "All done.")]
    assert not inspect.iscoroutinefunction(st.ToolLoop.stream)
    started = [e for e in events if isinstance(e, st.ToolCallStarted)]
    assert [(e.iteration, e.call_id, e.name) for e in started] == [(1, "call_1", "ping")]
    assert not any(isinstance(e, st.TextDelta | st.ToolCallStarted) for e in result.trace)
    assert [e for e in events if not isinstance(e, st.TextDelta | st.ToolCallStarted)] == list(
        result.trace
    )


class ProcessDied(BaseException):
    """Stands for the process being killed: nothing of the loop handles it."""


def test_sqlite_sessions_continue_and_a_saved_call_never_runs_again(tmp_path: Path) -> None:
    ran: list[str] = []
    crash = [True]

    def one() -> str:
        """Step one."""
        ran.append("one")
        return "one done"

    def two() -> str:
        """Step two."""
        ran.append("two")
        if crash.pop() if crash else False:
            raise ProcessDied  # the process dies while two runs
        return "two done"

    store = st.SqliteStore(tmp_path / "sessions.db")
    model = ScriptedModel([[("one", {}), ("two", {})], "never reached"])
    with pytest.raises(ProcessDied):
        st.ToolLoop(model).run("Work", tools=[one, two], session="s1", store=store)
    so_far = st.SqliteStore(tmp_path / "sessions.db").load("s1")
    assert isinstance(so_far, st.LoopResult)
    assert so_far.messages[1].tool_calls[0] == st.ToolCall("call_1", "one", {})
    assert isinstance(so_far.messages[1].tool_calls[0].arguments, dict)
    assert [(m.role, m.content) for m in so_far.messages] == [
        ("user", "Work"),
        ("assistant", ""),
        ("tool", "one done"),
    ]
    later = st.SqliteStore(tmp_path / "sessions.db")
    result = st.ToolLoop(ScriptedModel(["All done."])).run(
        None, tools=[one, two], session="s1", store=later
    )
    assert ran == ["one", "two", "two"]  # two ran again; one, whose result was saved, never did
    assert result.output == "All done."
    assert tool_texts(result) == ["one done", "two done"]
    assert later.load("s1").output == "All done."


# ---- round 2: bridges and OpenTelemetry ---------------------------------------------


def test_pydantic_ai_capability_is_the_whole_setup() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    from statetools.integrations.pydantic_ai import StatetoolsCapability, StatetoolsToolset
    from tests.integrations.scenario import ANSWERS, LOCKED, RAN, REQUESTS, design
    from tests.integrations.test_pydantic_ai import Recorder

    ran: list[str] = []
    model = Recorder()
    agent = Agent(FunctionModel(model), capabilities=[StatetoolsCapability(design(ran))])
    assert agent.run_sync("order").output == "All done."
    assert model.tools["order"] == REQUESTS
    assert model.answers["order"] == ANSWERS
    assert LOCKED == "Tool 'analyze' is locked. Call first: search."
    assert ran == RAN
    assert StatetoolsToolset(design([])) is not None


def test_langchain_middleware_has_tools() -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage

    from statetools.integrations.langchain import StatetoolsMiddleware
    from tests.integrations.scenario import ANSWERS, RAN, REQUESTS, design
    from tests.integrations.test_langchain import ScriptChat

    ran: list[str] = []
    chat = ScriptChat()
    middleware = StatetoolsMiddleware(design(ran))
    assert sorted(t.name for t in middleware.tools) == sorted(
        ["search", "analyze", "add_item", "confirm", "ship", "github", "whoami", "list_issues"]
    )
    agent = create_agent(chat, tools=middleware.tools, middleware=[middleware])
    result = agent.invoke({"messages": [HumanMessage("order")]})
    assert result["messages"][-1].content == "All done."
    assert chat.tools_seen["order"] == REQUESTS
    assert chat.answers["order"] == ANSWERS
    assert ran == RAN


def test_openai_agents_tools_hooks_and_run_config() -> None:
    import dataclasses

    from agents import Agent, RunConfig, Runner

    from statetools.integrations.openai_agents import StatetoolsTools
    from tests.integrations.scenario import ANSWERS, RAN, design
    from tests.integrations.test_openai_agents import IN_ORDER, ScriptModel

    ran: list[str] = []
    model = ScriptModel()
    bridge = StatetoolsTools(design(ran))
    assert isinstance(bridge.run_config, RunConfig)
    assert sorted(t.name for t in bridge.tools) == sorted(
        ["search", "analyze", "add_item", "confirm", "ship", "github", "whoami", "list_issues"]
    )
    agent = Agent(name="helper", model=model, tools=bridge.tools)
    config = dataclasses.replace(bridge.run_config, tracing_disabled=True)
    run = Runner.run(agent, "order", hooks=bridge.hooks, run_config=config)
    assert asyncio.run(run).final_output == "All done."
    assert model.tools["order"] == IN_ORDER
    assert model.answers["order"] == ANSWERS
    assert ran == RAN


def test_otel_listener_tracer_provider_keyword() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from statetools.integrations.otel import OtelListener

    assert defaults(OtelListener)["tracer_provider"] is None
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = ScriptedModel([("ping", {}), "pong"])
    st.ToolLoop(model, listeners=[OtelListener(tracer_provider=provider)]).run(
        "Ping", tools=[tool("ping")]
    )
    assert [s.name for s in exporter.get_finished_spans()] == [
        "chat",
        "execute_tool ping",
        "chat",
        "invoke_agent statetools",
    ]
    quiet = ScriptedModel(["ok"])  # no provider: the global one (a no-op unless set)
    assert st.ToolLoop(quiet, listeners=[OtelListener()]).run("Hi").output == "ok"


def test_temporal_modules_and_the_worker_command() -> None:
    import importlib

    for name in ("workflow", "activities", "worker", "client"):
        assert importlib.import_module(f"statetools.temporal.{name}").__doc__
    from statetools.cli import main

    with pytest.raises(SystemExit) as done:
        main(["worker", "--help"])
    assert done.value.code == 0


# ---- more of section 3: the remaining shapes ---------------------------------------


def test_run_output_type_and_context() -> None:
    @attrs.frozen
    class Answer:
        city: str
        days: int

    def whoami(ctx: st.ToolCallContext) -> str:
        """Who is asking."""
        return str(ctx["user"])

    model = ScriptedModel([("whoami", {}), '{"city": "Oslo", "days": 3}'])
    result = st.ToolLoop(model).run(
        "Plan", tools=[whoami], output_type=Answer, context={"user": "ann"}
    )
    assert result.output == Answer("Oslo", 3)
    assert tool_texts(result) == ["ann"]


def test_tool_not_found_and_provider_errors_carry_the_result(wire: WireServer) -> None:
    model = ScriptedModel([("nope", {}), ("nope", {}), ("nope", {}), "never"])
    with pytest.raises(st.ToolNotFoundError) as unknown:
        st.ToolLoop(model).run("Go", tools=[tool("ping")])
    assert (
        tool_texts(unknown.value.result)
        == ["Tool 'nope' does not exist. Available tools: ping."] * 3
    )

    wire.reply(chat_completion(tool_calls=[openai_call("c1", "search", '{"query": "x"}')]))
    wire.reply({"error": {"message": "bad request", "type": "invalid_request_error"}}, status=400)
    openai = st.models.OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk-test", max_retries=0
    )
    with pytest.raises(st.ProviderError) as failed:
        st.ToolLoop(openai).run("Find x", tools=[SEARCH])
    assert failed.value.status == 400
    assert tool_texts(failed.value.result) == ["3 hits for x"]


def test_load_playbook_from_a_path(tmp_path: Path) -> None:
    search, analyze = tool("search"), tool("analyze")
    path = tmp_path / "research.yaml"
    path.write_text(st.dump_playbook(research_playbook(search, analyze)), encoding="utf-8")
    assert st.load_playbook(path, tools=[search, analyze]) == research_playbook(search, analyze)
    assert st.load_playbook(str(path), tools=[search, analyze]) == research_playbook(
        search, analyze
    )


def test_finding_fields_in_order() -> None:
    broken = st.PlaybookTool("p", "P").with_tool(tool("a")).unlocked_by("serch")
    finding = st.check(st.disclosure_graph(broken)).findings[0]
    assert finding == st.Finding(finding.code, finding.severity, finding.message, finding.path)
    assert [f.name for f in attrs.fields(st.Finding)][:4] == ["code", "severity", "message", "path"]


@st.tool_provider()
@attrs.define
class Customer:
    id: str

    @st.llm_tool("The customer's name.")
    def name(self) -> str:
        return f"customer {self.id}"


def test_tool_provider_prefix_defaults_to_the_class_name() -> None:
    def find_customer() -> Customer:
        """Find the customer."""
        return Customer("c1")

    model = ScriptedModel([("find_customer", {}), ("customer_c1_name", {}), "ok"])
    result = st.ToolLoop(model).run("Who?", tools=[find_customer])
    assert model.requests[1].tool_names == ["find_customer", "customer_c1_name"]
    assert tool_texts(result)[-1] == "customer c1"


def test_a_playbook_with_a_model_is_an_agentic_tool() -> None:
    inner = ScriptedModel([("search", {}), ("analyze", {}), "Tides follow the moon."])
    playbook = research_playbook()
    outer = ScriptedModel([("research", {"task": "tides"}), "Done."])
    result = st.ToolLoop(outer).run("Go", tools=[playbook.with_model(inner)])
    assert outer.requests[0].tool_names == ["research"]
    assert [r.tool_names for r in inner.requests] == [
        ["search"],
        ["search", "analyze"],
        ["search", "analyze"],
    ]
    assert tool_texts(result) == ["Tides follow the moon."]
    same = ScriptedModel([("search", {}), "in the same conversation"])
    st.ToolLoop(same).run("Go", tools=[playbook])
    assert same.requests[1].tool_names == ["search", "analyze"]


def test_searchable_finds_state_machine_tools_that_keep_their_states() -> None:
    finder = st.UnfoldingTool.searchable("find_tools", "Search the tools", [order_machine()])
    model = ScriptedModel(
        [
            ("find_tools", {"names": ["ship", "confirm"]}),
            ("confirm", {}),
            ("ship", {}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("Ship", tools=[finder])
    texts = tool_texts(result)
    assert texts[0] == (
        "Tools asked for by name:\n"
        "- ship (locked): The ship tool. Tool 'ship' is not available in state DRAFT "
        "(it is available in: CONFIRMED).\n"
        "- confirm: The confirm tool.\nTools now available: confirm. "
        "Opening once unlocked: ship."
    )
    assert texts[1:] == [
        "confirm done\n[now available: ship; state is now CONFIRMED]",
        "ship done\n[state is now DONE (final)]",
    ]


def test_simple_agentic_tool_chaining() -> None:
    inner = ScriptedModel([("open_repo", {"name": "a"}), ("star", {}), "Starred a."])
    agent = (
        st.SimpleAgenticTool("stars", "Star repos.")
        .with_tools(open_repo)
        .with_model(inner)
        .with_tool_chaining_from(Repo, predicate=None)
    )
    outer = ScriptedModel([("stars", {"task": "star a"}), "Done."])
    result = st.ToolLoop(outer).run("Go", tools=[agent])
    assert tool_texts(result) == ["Starred a."]
    assert inner.requests[1].tool_names == ["open_repo", "star"]

    inner = ScriptedModel([("open_repo", {"name": "b"}), ("star", {}), "Starred b."])
    agent = (
        st.SimpleAgenticTool("stars", "Star repos.")
        .with_tools(open_repo)
        .with_model(inner)
        .with_tool_chaining_from_any()
    )
    result = st.ToolLoop(ScriptedModel([("stars", {"task": "b"}), "Done."])).run(
        "Go", tools=[agent]
    )
    assert tool_texts(result) == ["Starred b."]


def test_bad_yaml_is_a_spec_error_with_the_path() -> None:
    with pytest.raises(st.SpecError) as caught:
        st.load_playbook("kind: nope\nname: x\n")
    assert isinstance(caught.value, st.StatetoolsError)
    assert str(caught.value) == (
        "$.kind (line 1): unknown kind 'nope' "
        "Hint: use one of: playbook, machine, facade, sections, skills"
    )


def test_adapter_clients_retries_and_timeouts(wire: WireServer) -> None:
    import anthropic
    import openai

    from tests.providers.provider_wire import FAST_RETRY, openai_error

    client = openai.AsyncOpenAI(base_url=f"{wire.url}/v1", api_key="sk-own", max_retries=0)
    wire.reply(chat_completion("From my client."))
    model = st.models.OpenAIChatModel("gpt-test", client=client)
    assert st.ToolLoop(model).run("Hi").output == "From my client."
    assert wire.requests[-1].headers["authorization"] == "Bearer sk-own"

    own = anthropic.AsyncAnthropic(base_url=wire.url, api_key="sk-ant-own", max_retries=0)
    wire.reply(anthropic_message(text("From my Anthropic client.")))
    claude = st.models.AnthropicModel("claude-test", client=own)
    assert st.ToolLoop(claude).run("Hi").output == "From my Anthropic client."
    sent = wire.requests[-1].headers  # the SDK's own choice of header
    assert sent.get("x-api-key", sent.get("authorization")) in {"sk-ant-own", "Bearer sk-ant-own"}

    wire.reply(openai_error("The server had an error"), status=500, headers=FAST_RETRY)
    wire.reply(chat_completion("Second try.", prompt_tokens=7, completion_tokens=3))
    retried = st.models.OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk", max_retries=1
    )
    before = len(wire.requests)
    result = st.ToolLoop(retried).run("Hi")
    assert (result.output, len(wire.requests) - before) == ("Second try.", 2)
    assert result.usage == st.models.Usage(7, 3)

    wire.reply(chat_completion("too late"), delay=5.0)
    slow = st.models.OpenAIChatModel(
        "gpt-test", base_url=f"{wire.url}/v1", api_key="sk", max_retries=0, timeout=0.2
    )
    with pytest.raises(st.ProviderError) as caught:
        st.ToolLoop(slow).run("Hi")
    assert caught.value.message == "OpenAI request timed out (timeout=0.2s per attempt)"
    assert caught.value.result.messages == (st.UserMessage("Hi"),)


def test_llm_tool_methods_go_straight_into_tools() -> None:
    shelf = Shelf()
    model = ScriptedModel([("shelve", {"title": "Emma"}), "ok"])
    result = st.ToolLoop(model).run("Shelve", tools=[shelf.add, shelf.books_on_shelf])
    assert model.requests[0].tool_names == ["shelve", "books_on_shelf"]
    assert tool_texts(result) == ["shelved Emma"]
    assert shelf.books == ["Dune", "Emma"]


def test_the_remaining_keyword_defaults_as_written() -> None:
    """Keywords whose default a call leaves out above; a changed default fails here."""
    assert_defaults(
        st.Tool.create,
        {
            "name": "REQUIRED",
            "description": "REQUIRED",
            "handler": "REQUIRED",
            "schema": None,
            "metadata": None,
        },
    )
    assert_defaults(st.Tool.from_function, {"fn": "REQUIRED", "name": None, "description": None})
    assert_defaults(st.Tool.call, {"arguments": None, "context": None})
    assert_defaults(st.ToolResult.artifact, {"value": "REQUIRED", "text": None})
    assert_defaults(st.unfolding_tools, {"usage_notes": None})
    assert_defaults(st.PlaybookTool.with_tool_chaining_from, {"predicate": None})
    assert_defaults(st.ToolLoop.with_tool_chaining_from, {"predicate": None})
    assert_defaults(st.layered, {"*items": None, "detail_tool": "tool_detail"})
    assert_defaults(st.tools_from_module, {"include": None, "exclude": None})
    assert_defaults(st.mcp.MCPServer.in_process, {"server": "REQUIRED", "name": "KEYWORD"})
    assert_defaults(st.mcp.disclosure_server, {"definition_or_items": "REQUIRED"})
    assert_defaults(st.SqliteStore, {"path": "REQUIRED"})
    assert_defaults(st.load_playbook, {"tools": None})
