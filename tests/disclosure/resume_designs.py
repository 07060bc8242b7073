"""One design of every kind, each with a script, for the resume test.

Every design is built from a fresh :class:`World` (the objects a run's tools return
live there, by id), so a resumed run gets fresh tool objects and finds its bound
objects again through the loop's ``instances`` resolver.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import attrs

import statetools as st
from tests.disclosure.test_machine import order_machine
from tests.disclosure.test_playbook import research


def tool(name: str, text: str | None = None) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: text or f"{name} done")


class World:
    """The objects the tools of one scenario return, by type key and id."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], Any] = {}

    def keep(self, obj: Any, identifier: str) -> Any:
        key = (f"{type(obj).__module__}.{type(obj).__qualname__}", identifier)
        return self.objects.setdefault(key, obj)

    def find(self, kind: str, identifier: str) -> Any:
        return self.objects.get((kind, identifier))


class Repo:
    def __init__(self, name: str) -> None:
        self.id = name
        self.stars = 0

    def __repr__(self) -> str:
        return f"Repo({self.id})"

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        self.stars += 1
        return f"{self.id} has {self.stars} stars"


class Note:
    def __init__(self, id: str, text: str) -> None:
        self.id = id
        self.text = text

    def __repr__(self) -> str:
        return f"Note({self.id})"

    @st.llm_tool("Read the note.")
    def read(self) -> str:
        return self.text


@st.tool_provider(prefix="order", id_attribute="number")
class Order:
    def __init__(self, number: str, item: str) -> None:
        self.number = number
        self.item = item
        self.cancelled = False

    def __repr__(self) -> str:
        return f"Order({self.number})"

    @st.llm_tool("The status of this order.")
    def status(self) -> str:
        return f"{self.item}: {'cancelled' if self.cancelled else 'shipped'}"

    @st.llm_tool("Cancel this order.")
    def cancel(self) -> str:
        self.cancelled = True
        return f"{self.number} cancelled"


@st.tool_provider()
class Customer:
    def __init__(self, id: str, world: World) -> None:
        self.id = id
        self.world = world

    def __repr__(self) -> str:
        return f"Customer({self.id})"

    @st.llm_tool("The customer's recent orders.")
    def recent_orders(self) -> list[Order]:
        return [self.world.keep(Order(f"{self.id}-o1", "lamp"), f"{self.id}-o1")]


@attrs.frozen
class Scenario:
    """A design, the loop options it needs, and a script that uses all of it."""

    tools: Callable[[World], list[Any]]
    steps: list[Any]
    options: Callable[[World], dict[str, Any]] = lambda world: {}
    output_type: Any = None
    capabilities: st.models.ModelCapabilities | None = None


def _playbook_and_machine(world: World) -> list[Any]:
    return [research(), order_machine()]


def _facades(world: World) -> list[Any]:
    issues = st.UnfoldingTool.of("issues", "Open the issue tools.", [tool("list_issues")])
    files = st.UnfoldingTool.by_category(
        "files", "Open file tools.", {"read": [tool("read")], "write": [tool("write")]}
    )
    github = st.UnfoldingTool.of("github", "Open GitHub.", [issues, tool("whoami")])
    return [github, files, tool("other")]


def _selectable(world: World) -> list[Any]:
    def pick(arguments: dict[str, Any]) -> list[Any]:
        store = arguments["store"]
        return [st.Tool.create(f"{store}_stock", f"Stock of {store}.", lambda: f"{store}: 3")]

    schema = st.InputSchema.of(st.Parameter.string("store", "Store"))
    shop = st.UnfoldingTool.selectable("shop", "Open a shop.", [], schema, pick)
    return [shop, tool("other")]


def _exclusive(world: World) -> list[Any]:
    admin = st.UnfoldingTool.of("admin", "Admin console.", [tool("ban")], exclusive=True)
    ops = st.UnfoldingTool.of("ops", "Ops tools.", [admin, tool("status")])
    return [ops, tool("other")]


def _open_repo(world: World) -> st.Tool:
    def open_repo(name: str) -> Repo:
        """Open a repository."""
        return world.keep(Repo(name), name)

    return st.Tool.from_function(open_repo)


def _chain_type(world: World) -> list[Any]:
    return [_open_repo(world), st.Chaining(Repo)]


def _chain_any(world: World) -> list[Any]:
    def note(id: str) -> Note:
        """Get a note."""
        return world.keep(Note(id, f"text of {id}"), id)

    return [_open_repo(world), st.Tool.from_function(note), st.Chaining.any()]


def _discovery(world: World) -> list[Any]:
    def search_customers(name: str) -> list[Customer]:
        """Find customers."""
        return [world.keep(Customer(c, world), c) for c in ("c1", "c2")]

    return [st.Tool.from_function(search_customers)]


class AddHelp:
    """Adds a help tool after 'search' and removes 'browse' after 'help'."""

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        if context.call.name == "search":
            return st.Injection(add=[tool("help", "some help")])
        if context.call.name == "help":
            return st.Injection(remove=["browse"])
        return None

    def tool(self, name: str) -> st.Tool | None:
        return tool("help", "some help") if name == "help" else None


def _strategy(world: World) -> list[Any]:
    return [tool("search"), tool("browse"), tool("last")]


class Ticket:
    pass


def _artifacts_and_blackboard(world: World) -> list[Any]:
    def make_ticket() -> st.ToolResult:
        """Make a ticket."""
        return st.ToolResult.artifact(Ticket(), text="ticket made")

    def post(context: st.ToolCallContext) -> str:
        """Post a note to the blackboard."""
        assert context.blackboard is not None
        context.blackboard.post(Repo("posted"))
        return "posted"

    playbook = (
        st.PlaybookTool("desk", "Desk")
        .with_tool(make_ticket)
        .with_tool(post)
        .with_tool(tool("close"))
        .unlocked_by_artifact(Ticket)
        .with_tool(tool("publish"))
        .unlocked_by_blackboard(Repo)
    )
    return [playbook]


def _when(world: World) -> list[Any]:
    playbook = (
        st.PlaybookTool("p", "P")
        .with_tool(tool("a"))
        .with_tool(tool("b"))
        .unlocked_when(lambda view: view.calls("a") % 2 == 1, "a odd")
        .with_tool(tool("c"))
        .unlocked_when(lambda view: view.context.get("tenant") == "acme", "tenant")
    )
    return [playbook]


class Phase(enum.Enum):
    OPEN = "open"
    CLOSED = "closed"


def _facade_in_machine(world: World) -> list[Any]:
    box = st.UnfoldingTool.of("box", "Open the box.", [tool("inside")])
    machine = (
        st.StateMachineTool("m", "M", Phase)
        .in_state(Phase.OPEN)
        .with_tool(box)
        .with_tool(tool("close"))
        .transitions_to(Phase.CLOSED)
        .in_state(Phase.CLOSED)
        .with_tool(tool("reopen"))
        .transitions_to(Phase.OPEN)
    )
    return [machine]


def _searchable(world: World) -> list[Any]:
    def create_issue(title: str) -> str:
        """Open a new issue."""
        return f"opened {title}"

    def list_commits(branch: str) -> str:
        """Commits of a branch."""
        return f"commits of {branch}"

    github = st.UnfoldingTool.searchable(
        "github", "Find GitHub tools.", [create_issue, list_commits]
    )
    return [github, tool("other")]


def _layered(world: World) -> list[Any]:
    def create_employee(name: str, salary: float) -> str:
        """Create a new employee. The name must be unique."""
        return f"created {name}"

    return [*st.layered(create_employee, tool("other"))]


def _agentic(world: World) -> list[Any]:
    # The nested model is outside the run (like a provider): kept in the world.
    nested = world.objects.setdefault(
        ("model", "nested"),
        st.models.ScriptedModel([("a", {}), "helped", ("a", {}), "helped again"]),
    )
    helper = st.SimpleAgenticTool("helper", "Helps.").with_tools(tool("a")).with_model(nested)
    return [helper, tool("other")]


@attrs.frozen
class Answer:
    text: str


SCENARIOS: dict[str, Scenario] = {
    "playbook-and-machine": Scenario(
        _playbook_and_machine,
        [
            ("search", {"query": "q"}),
            ("add_item", {"sku": "a"}),
            ("analyze", {}),
            ("confirm", {}),
            ("ship", {"carrier": "nobody"}),
            ("ship", {"carrier": "c"}),
            ("summarize", {}),
            ("deliver", {}),
            "Done.",
        ],
    ),
    "facades": Scenario(
        _facades,
        [
            ("github", {}),
            ("files", {"category": "read"}),
            ("issues", {}),
            ("list_issues", {}),
            ("github", {}),
            ("files", {"category": "write"}),
            ("write", {}),
            "Done.",
        ],
    ),
    "selectable-facade": Scenario(
        _selectable,
        [
            ("shop", {"store": "books"}),
            ("books_stock", {}),
            ("shop", {}),
            ("shop", {"books_stock": {}}),
            "Done.",
        ],
    ),
    "exclusive-facade": Scenario(
        _exclusive,
        [("ops", {}), ("admin", {}), ("other", {}), ("ban", {}), "Done."],
    ),
    "declared-visibility": Scenario(
        _facades,
        [("list_issues", {}), ("github", {}), ("issues", {}), ("list_issues", {}), "Done."],
        lambda world: {"visibility": "declared"},
    ),
    "chaining-from-a-type": Scenario(
        _chain_type,
        [
            ("star", {}),
            ("open_repo", {"name": "first"}),
            ("star", {}),
            ("open_repo", {"name": "second"}),
            ("star", {}),
            ("star", {}),
            "Done.",
        ],
    ),
    "chaining-from-any": Scenario(
        _chain_any,
        [
            ("open_repo", {"name": "first"}),
            ("star", {}),
            ("note", {"id": "n1"}),
            ("read", {}),
            ("star", {}),
            ("open_repo", {"name": "second"}),
            ("star", {}),
            "Done.",
        ],
    ),
    "discovery": Scenario(
        _discovery,
        [
            ("search_customers", {"name": "A"}),
            ("customer_c2_recent_orders", {}),
            ("order_c2-o1_cancel", {}),
            ("order_c2-o1_status", {}),
            ("customer_c1_recent_orders", {}),
            ("order_c1-o1_status", {}),
            "Done.",
        ],
    ),
    "injection-strategy": Scenario(
        _strategy,
        [("search", {}), ("help", {}), ("browse", {}), ("help", {}), ("last", {}), "Done."],
        lambda world: {"strategies": [AddHelp()]},
    ),
    "artifacts-and-blackboard": Scenario(
        _artifacts_and_blackboard,
        [("close", {}), ("make_ticket", {}), ("post", {}), ("close", {}), ("publish", {}), "Done."],
    ),
    "when-conditions": Scenario(
        _when,
        [("a", {}), ("b", {}), ("a", {}), ("b", {}), ("c", {}), "Done."],
    ),
    "searchable-facade": Scenario(
        _searchable,
        [
            ("github", {"query": "new issue"}),
            ("create_issue", {"title": "bug"}),
            ("github", {"names": ["list_commits"]}),
            ("list_commits", {"branch": "main"}),
            "Done.",
        ],
    ),
    "layered": Scenario(
        _layered,
        [
            ("create_employee", {"name": "Ann"}),
            ("tool_detail", {"name": "create_employee"}),
            ("create_employee", {"name": "Ann", "salary": 1.0}),
            "Done.",
        ],
    ),
    "agentic-tool": Scenario(
        _agentic,
        [("helper", {"task": "t"}), ("other", {}), ("helper", {"task": "u"}), "Done."],
    ),
    "unknown-tools-in-a-row": Scenario(
        _strategy,
        [("nope", {}), ("nah", {}), ("search", {}), ("nope", {}), ("nah", {}), "Done."],
    ),
    "output-correction": Scenario(
        _strategy,
        [("search", {}), "not json", '{"text": "Done."}'],
        output_type=Answer,
    ),
    "model-with-static-tools": Scenario(
        _playbook_and_machine,
        [
            ("search", {"query": "q"}),
            ("add_item", {"sku": "a"}),
            ("analyze", {}),
            ("confirm", {}),
            ("summarize", {}),
            "Done.",
        ],
        capabilities=st.models.ModelCapabilities(supports_dynamic_tools=False),
    ),
    "model-declaring-all-tools": Scenario(
        lambda world: [*_discovery(world), *_facades(world)],
        [
            ("search_customers", {"name": "A"}),
            ("github", {}),
            ("customer_c2_recent_orders", {}),
            ("files", {"category": "read"}),
            ("order_c2-o1_status", {}),
            ("issues", {}),
            "Done.",
        ],
        capabilities=st.models.ModelCapabilities(declares_all_tools=True),
    ),
    "facade-in-a-machine": Scenario(
        _facade_in_machine,
        [
            ("box", {}),
            ("inside", {}),
            ("close", {}),
            ("inside", {}),
            ("reopen", {}),
            ("box", {}),
            ("inside", {}),
            "Done.",
        ],
    ),
}
