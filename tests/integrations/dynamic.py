"""A design whose tools appear during the run: chaining (the methods of a returned
``Repo`` become tools) and entity discovery (each ``Customer`` a tool returns brings
``customer_{id}_{method}`` tools).

The objects are made per design, so concurrent runs never share them.
"""

from __future__ import annotations

from typing import Any

import attrs

import statetools as st


@attrs.define
class Repo:
    name: str
    stars: int = 0

    @property
    def id(self) -> str:
        """How a saved disclosure state refers to the repo."""
        return self.name

    @st.llm_tool("Star the repository.")
    def star(self) -> str:
        self.stars += 1
        return f"{self.name}: {self.stars} stars"


@st.tool_provider()
@attrs.define
class Customer:
    id: str
    name: str
    notes: list[str] = attrs.field(factory=list)

    @st.llm_tool("The customer's name.")
    def profile(self) -> str:
        return self.name

    @st.llm_tool("Add a note to the customer.")
    def add_note(self, text: str) -> str:
        self.notes.append(text)
        return f"noted for {self.name}"


def design(repos: dict[str, Repo], customers: list[Customer]) -> list[Any]:
    """``open_repo`` (chaining from Repo: ``star``, declared from the start and bound to
    the newest repo) and ``search_customers`` (discovery)."""

    def open_repo(name: str) -> Repo:
        """Open a repository by name."""
        repos[name] = Repo(name)
        return repos[name]

    def search_customers(name: str) -> list[Customer]:
        """Find customers by name."""
        return [c for c in customers if c.name.startswith(name)]

    repo_tools = (
        st.PlaybookTool("repos", "Repositories")
        .with_tool(st.Tool.from_function(open_repo))
        .with_tool_chaining_from(Repo)
    )
    return [repo_tools, st.Tool.from_function(search_customers)]


def people() -> list[Customer]:
    return [Customer("c1", "Ann"), Customer("c2", "Andy"), Customer("c3", "Bob")]


@attrs.define
class Door:
    id: str = "front"

    @st.llm_tool("Close the door.")
    def close(self) -> str:
        return "door closed"


@attrs.define
class Box:
    id: str = "b1"

    @st.llm_tool("Close the box.")
    def close(self, force: bool) -> str:
        return "box forced shut" if force else "box closed"


def design_any() -> list[Any]:
    """Chaining from any returned object: ``close`` is the door's, then the box's
    (same name, another description and schema)."""

    def open_door() -> Door:
        """Open the door."""
        return Door()

    def open_box() -> Box:
        """Open the box."""
        return Box()

    return [st.Tool.from_function(open_door), st.Tool.from_function(open_box), st.Chaining.any()]


SCRIPT_ANY: list[Any] = [
    ("open_door", {}),
    ("close", {}),
    ("open_box", {}),
    ("close", {"force": True}),
    "Both closed.",
]
REQUESTS_ANY = [
    ["open_door", "open_box"],
    ["open_door", "open_box", "close"],
    ["open_door", "open_box", "close"],
    ["open_door", "open_box", "close"],
    ["open_door", "open_box", "close"],
]
CLOSE_SCHEMAS = [
    None,
    ("Close the door.", {}),
    ("Close the door.", {}),
    ("Close the box.", {"force": {"type": "boolean"}}),
    ("Close the box.", {"force": {"type": "boolean"}}),
]
"""The description and properties of ``close`` in each request of SCRIPT_ANY."""
ANSWERS_ANY = [
    '{"id": "front"}\n[now available: close]',
    "door closed",
    '{"id": "b1"}\n[now available: close]',
    "box forced shut",
]


SCRIPT: list[Any] = [
    ("star", {}),
    ("open_repo", {"name": "tides"}),
    ("star", {}),
    ("customer_c1_profile", {}),
    ("search_customers", {"name": "An"}),
    ("customer_c2_add_note", {"text": "call back"}),
    ("customer_c1_profile", {}),
    "All done.",
]
"""The calls the test model makes, one per request, then its answer."""

BEFORE = ["open_repo", "star", "search_customers"]
FOUND = [
    *BEFORE,
    "customer_c1_profile",
    "customer_c1_add_note",
    "customer_c2_profile",
    "customer_c2_add_note",
]
REQUESTS = [BEFORE] * 5 + [FOUND] * 3
"""The tools of each model request of SCRIPT, exactly: ``star`` is declared from the
start (a call before a repo is open gets guidance); the customers' tools come with the
search that found them."""
CUSTOMERS = (
    '[{"id": "c1", "name": "Ann", "notes": []}, {"id": "c2", "name": "Andy", "notes": []}]\n'
    "[now available: customer_c1_profile, customer_c1_add_note, customer_c2_profile, "
    "customer_c2_add_note]"
)
ANSWERS = [
    "Tool 'star' needs a Repo first. Call first: open_repo.",
    '{"name": "tides", "stars": 0}\n[now available: star]',
    "tides: 1 stars",
    None,  # a name nobody has yet: the framework's own unknown-tool answer
    CUSTOMERS,
    "noted for Andy",
    "Ann",
]
"""What the model reads back for each call of SCRIPT (None: the framework's text)."""


def shop_design(door: dict[str, bool]) -> list[Any]:
    """``shop`` (a facade whose selector builds ``{store}_{i}`` tools, ``count`` of them)
    sits on a desk that is open while ``door["open"]`` holds."""

    def build(arguments: dict[str, Any]) -> list[st.Tool]:
        store, count = arguments["store"], arguments.get("count", 1)
        return [
            st.Tool.create(f"{store}_{i}", f"Item {i} of {store}.", lambda: f"{store} item")
            for i in range(count)
        ]

    schema = st.InputSchema.of(
        st.Parameter.string("store", "Store"),
        st.Parameter.integer("count", "How many items", required=False),
    )
    shop = st.UnfoldingTool.selectable("shop", "Open a shop.", [], schema, build)
    desk = st.PlaybookTool("desk", "The desk").with_tool(shop)
    return [desk.unlocked_when(lambda view: door["open"], "the door is open")]
