"""What a search's answer says of each tool: its own words, not the catalogue's
boilerplate (seen with a real model on BFCL, whose every description opens with the
same sentence about its API class)."""

from __future__ import annotations

import statetools as st

OPENING = (
    "This tool belongs to the demo file system. It is a simple file system that allows "
    "users to work with files. Tool description: "
)


def tool(name: str, description: str) -> st.Tool:
    return st.Tool.create(name, description, lambda: name)


def test_each_line_gives_the_tools_own_words_after_the_shared_opening() -> None:
    finder = st.Facade.searchable(
        "find",
        "Find tools",
        [
            tool("ls", OPENING + "List the files of the current folder. Hidden ones too."),
            tool("cd", OPENING + "Change the current folder."),
            tool("weather", "Get the weather of a city. Celsius."),
        ],
    )

    assert finder.call({"query": "folder"}).text == (
        'Tools matching "folder", best first:\n'
        "- cd: Change the current folder.\n"
        "- ls: List the files of the current folder.\n"
        "Tools now available: cd, ls."
    )
    assert finder.call({"names": ["weather"]}).text == (
        "Tools asked for by name:\n"
        "- weather: Get the weather of a city.\n"
        "Tools now available: weather."
    )


def test_a_description_that_is_all_opening_keeps_its_first_sentence() -> None:
    same = "Part of the demo shop of this example, which sells books."
    finder = st.Facade.searchable("find", "Find", [tool("buy", same), tool("sell", same)])

    assert finder.search_index.summary("buy") == same
    assert finder.search_index.summary("nothing") == ""


def test_words_two_tools_share_inside_their_own_sentence_stay() -> None:
    finder = st.Facade.searchable(
        "find",
        "Find tools",
        [
            tool("touch", OPENING + "Create a new file in the current folder."),
            tool("mkdir", OPENING + "Create a new folder in the current folder."),
        ],
    )

    assert [finder.search_index.summary(name) for name in ("touch", "mkdir")] == [
        "Create a new file in the current folder.",
        "Create a new folder in the current folder.",
    ]
