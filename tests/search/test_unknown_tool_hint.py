"""A call of a tool that does not exist, with a search facade in view, is told how to
search for what it would do (a real model on BFCL called `create_file` three times over
while only the search facade was shown, and the run ended)."""

from __future__ import annotations

import statetools as st
from statetools.models import ScriptedModel

LS = st.Tool.create("ls", "List the files.", lambda: "a.txt")


def answers(tools: list[st.BaseTool], name: str) -> str:
    model = ScriptedModel([(name, {"folder": "Documents"}), "done"])
    result = st.ToolLoop(model).run("Make a file", tools=tools)
    return result.messages[2].content


def test_an_unknown_tool_is_told_the_search_to_make() -> None:
    finder = st.Facade.searchable("find_tools", "Find tools", [LS])

    assert answers([finder], "createFile") == (
        "Tool 'createFile' does not exist. Available tools: find_tools. "
        'To find a tool that does this, call find_tools with {"query": "create file"}.'
    )


def test_the_hint_follows_the_close_names() -> None:
    finder = st.Facade.searchable("find_tools", "Find tools", [LS])

    assert answers([finder], "find_tool") == (
        "Tool 'find_tool' does not exist. Did you mean 'find_tools'? "
        "Available tools: find_tools. To find a tool that does this, call find_tools with "
        '{"query": "find tool"}.'
    )


def test_without_a_search_facade_or_words_there_is_no_hint() -> None:
    finder = st.Facade.searchable("find_tools", "Find tools", [LS])

    assert answers([LS], "create_file") == (
        "Tool 'create_file' does not exist. Available tools: ls."
    )
    assert answers([finder], "_") == "Tool '_' does not exist. Available tools: find_tools."
