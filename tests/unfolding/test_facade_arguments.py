"""A facade called with arguments it does not take unfolds anyway and says so (issue 30:
a small model called ``file_system({"a": true})`` until the request cap)."""

from __future__ import annotations

from typing import Any

import statetools as st
from statetools.models import ScriptedModel
from tests.mcp.upstream import Notes


@st.llm_tool("List the files of a directory.")
def ls(a: bool = False) -> str:
    return "a.txt b.txt" if a else "b.txt"


@st.llm_tool("Remove a file.")
def rm(path: str) -> str:
    return f"removed {path}"


@st.llm_tool("Print the working directory.")
def pwd() -> str:
    return "/home"


def tool_texts(result: st.LoopResult) -> list[tuple[str, bool]]:
    return [(m.content, m.is_error) for m in result.messages if m.role == "tool"]


def run(items: list[Any], *steps: Any) -> tuple[ScriptedModel, st.LoopResult]:
    model = ScriptedModel([*steps, "done"])
    return model, st.ToolLoop(model).run("list all files", tools=items)


def test_the_reproducer_unfolds_and_names_the_tool_the_arguments_fit() -> None:
    files = st.UnfoldingTool.of("file_system", "Open the file system tools", [ls])
    model, result = run([files], ("file_system", {"a": True}), ("ls", {"a": True}))

    assert model.requests[1].tool_names == ["ls"]
    assert tool_texts(result) == [
        (
            "Tools now available: ls.\n"
            "Ignored argument 'a': 'file_system' takes no arguments. "
            'Call ls with {"a": true}.',
            False,
        ),
        ("a.txt b.txt", False),
    ]


def test_arguments_that_fit_no_tool_or_several_are_only_reported() -> None:
    files = st.UnfoldingTool.of(
        "file_system", "Open the file system tools", [ls, rm, pwd], usage_notes="Be careful."
    )
    model, result = run([files], ("file_system", {"recursive": 1, "b": 2}))
    assert model.requests[1].tool_names == ["ls", "rm", "pwd"]
    assert tool_texts(result) == [
        (
            "Tools now available: ls, rm, pwd.\n"
            "Ignored arguments 'recursive', 'b': 'file_system' takes no arguments.\n\n"
            "Be careful.",
            False,
        )
    ]
    both = st.UnfoldingTool.of("fs", "Open", [rm, st.Tool.from_function(rm, name="unlink")])
    _, result = run([both], ("fs", {"path": "x"}))
    assert tool_texts(result) == [
        (
            "Tools now available: rm, unlink.\nIgnored argument 'path': 'fs' takes no arguments.",
            False,
        )
    ]


def test_an_exclusive_facade_unfolds_too() -> None:
    files = st.UnfoldingTool.of("file_system", "Open", [ls], exclusive=True)
    model, result = run([files, pwd], ("file_system", {"a": True}))
    assert [r.tool_names for r in model.requests] == [["file_system", "pwd"], ["ls"]]
    assert tool_texts(result)[0][1] is False


def test_a_by_category_facade_opens_the_category_of_the_tool_the_arguments_fit() -> None:
    files = st.UnfoldingTool.by_category("files", "Open", {"read": [ls, pwd], "write": [rm]})
    model, result = run([files], ("files", {"path": "x"}))
    assert model.requests[1].tool_names == ["files", "rm"]  # the other category may open
    assert tool_texts(result) == [
        (
            "Tools now available: rm.\n"
            "Ignored argument 'path': 'files' takes only category. "
            'Call rm with {"path": "x"}.',
            False,
        )
    ]
    assert result.state.unfolds == (("files", '{"category": "write"}'),)


def test_a_by_category_facade_without_a_fit_opens_every_category_and_resumes_so() -> None:
    files = st.UnfoldingTool.by_category("files", "Open", {"read": [ls, pwd], "write": [rm]})
    model, result = run([files], ("files", {"verbose": True}))
    assert model.requests[1].tool_names == ["ls", "pwd", "rm"]
    assert tool_texts(result) == [
        (
            "Tools now available: ls, pwd, rm.\n"
            "Ignored argument 'verbose': 'files' takes only category.",
            False,
        )
    ]
    assert result.state.unfolds == (("files", '{"category": ["read", "write"]}'),)
    again = ScriptedModel(["resumed"])
    st.ToolLoop(again).run(list(result.messages), tools=[files], state=result.state)
    assert again.requests[0].tool_names == ["ls", "pwd", "rm"]


def test_a_by_category_facade_with_its_category_ignores_the_rest() -> None:
    files = st.UnfoldingTool.by_category("files", "Open", {"read": [ls, pwd], "write": [rm]})
    model, result = run([files], ("files", {"category": "read", "a": True}))
    assert model.requests[1].tool_names == ["files", "ls", "pwd"]
    assert tool_texts(result) == [
        (
            "Tools now available: ls, pwd.\n"
            "Ignored argument 'a': 'files' takes only category. "
            'Call ls with {"a": true}.',
            False,
        )
    ]


def test_a_search_facade_opens_the_tool_the_arguments_fit_or_searches_their_words() -> None:
    find = st.UnfoldingTool.searchable("find_tools", "Find file tools", [ls, rm, pwd])
    model, result = run([find], ("find_tools", {"path": "notes.txt"}), ("find_tools", {"x": 1}))
    assert model.requests[1].tool_names == ["find_tools", "rm"]
    assert tool_texts(result) == [
        (
            "Tools asked for by name:\n"
            "- rm: Remove a file.\n"
            "Ignored argument 'path': 'find_tools' takes only query, names. "
            'Call rm with {"path": "notes.txt"}.\n'
            "Tools now available: rm.",
            False,
        ),
        (
            "Ignored argument 'x': 'find_tools' takes only query, names. "
            'Searched for "x" instead.\n'
            'No tool matches "x". Try other words.',
            False,
        ),
    ]
    _, result = run([find], ("find_tools", {"directory": "/home", "files": True}))
    assert tool_texts(result)[0] == (
        'Tools matching "directory files /home", best first:\n'
        "- ls: List the files of a directory.\n"
        "- rm: Remove a file.\n"
        "- pwd: Print the working directory.\n"
        "Ignored arguments 'directory', 'files': 'find_tools' takes only query, names. "
        'Searched for "directory files /home" instead.\n'
        "Tools now available: ls, rm, pwd.",
        False,
    )


def test_a_selectable_facade_ignores_arguments_outside_its_schema() -> None:
    schema = st.InputSchema.of(st.Parameter.string("store", "Store"))
    shop = st.UnfoldingTool.selectable(
        "shop", "Open a shop", [ls, rm], schema, lambda args: ["ls"] if args["store"] else []
    )
    model, result = run([shop], ("shop", {"store": "books", "a": True}), ("shop", {"a": True}))
    assert model.requests[1].tool_names == ["ls"]
    assert tool_texts(result) == [
        (
            "Tools now available: ls.\n"
            "Ignored argument 'a': 'shop' takes only store. "
            'Call ls with {"a": true}.',
            False,
        ),
        (  # called again: it lists what it opened
            "Tools now available: ls.\n"
            "Ignored argument 'a': 'shop' takes only store. "
            'Call ls with {"a": true}.',
            False,
        ),
    ]


def test_a_selectable_facade_missing_its_own_arguments_still_says_what_is_wrong() -> None:
    schema = st.InputSchema.of(st.Parameter.string("store", "Store"))
    shop = st.UnfoldingTool.selectable("shop", "Open a shop", [ls], schema, lambda a: ["ls"])
    _, result = run([shop], ("shop", {"a": True, "b": 1}))
    assert tool_texts(result) == [
        (
            "Invalid arguments for tool 'shop': missing required argument 'store'; "
            "unknown arguments 'a', 'b' (allowed: store). Call it again with corrected arguments.",
            True,
        )
    ]


def test_an_mcp_facade_unfolds_and_names_the_remote_tool() -> None:
    notes = Notes()
    server = st.mcp.MCPServer.in_process(notes.server, name="notes")
    model, result = run([server.facade()], ("notes", {"key": "a"}), ("read_note", {"key": "a"}))
    assert model.requests[1].tool_names == ["read_note", "write_note"]
    assert tool_texts(result) == [
        (
            "Tools now available: read_note, write_note.\n"
            "Ignored argument 'key': 'notes' takes no arguments. "
            'Call read_note with {"key": "a"}.',
            False,
        ),
        ("Note a: buy milk", False),
    ]
