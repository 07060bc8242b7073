"""A search that opens nothing new says so (a real model on BFCL sent the same search
three times over and never called the tool it had found)."""

from __future__ import annotations

import statetools as st
from statetools.models import ScriptedModel

LS = st.Tool.create("ls", "List the files.", lambda: "a.txt")
DU = st.Tool.create("du", "Disk usage of the files.", lambda: "1k")
FIND = st.Facade.searchable("find_tools", "Find tools", [LS, DU])


def tool_texts(steps: list[object]) -> list[str]:
    model = ScriptedModel([*steps, "done"])
    result = st.ToolLoop(model).run("Look at my files", tools=[FIND])
    return [m.content for m in result.messages if m.role == "tool"]


def test_the_same_search_again_is_told_nothing_new_opened() -> None:
    texts = tool_texts([("find_tools", {"query": "files"})] * 2)

    assert texts == [
        'Tools matching "files", best first:\n'
        "- ls: List the files.\n"
        "- du: Disk usage of the files.\n"
        "Tools now available: ls, du.",
        'Tools matching "files", best first:\n'
        "- ls: List the files.\n"
        "- du: Disk usage of the files.\n"
        "Tools now available: ls, du.\n"
        "[nothing new: ls, du were already available. "
        "Call one of them, or search with other words.]",
    ]


def test_one_tool_again_and_a_search_that_opens_one_more() -> None:
    texts = tool_texts(
        [
            ("find_tools", {"names": ["ls"]}),
            ("find_tools", {"names": ["ls"]}),
            ("find_tools", {"names": ["ls", "du"]}),
        ]
    )

    assert texts[1].endswith(
        "Tools now available: ls.\n"
        "[nothing new: ls was already available. Call it, or search with other words.]"
    )
    assert texts[2].endswith("Tools now available: ls, du.")  # du is new: no line
