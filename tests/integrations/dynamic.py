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
