"""Schema-only tools imported from OpenAI-format tools files with ``tools_from``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import statetools as st
from statetools.spec import SchemaOnlyTool
from tests.spec import sample

CATALOGUE = [
    {
        "type": "function",
        "function": {
            "name": "get_issue",
            "description": "Get one issue",
            "parameters": {
                "type": "object",
                "properties": {"number": {"type": "integer", "description": "Issue number"}},
                "required": ["number"],
            },
        },
    },
    {"type": "function", "function": {"name": "list_issues", "description": "List issues"}},
    {"name": "close_issue", "description": "Close an issue", "parameters": {"type": "object"}},
    {
        "name": "label_issue",
        "description": "Label an issue",
        "input_schema": {"type": "object", "properties": {"label": {"type": "string"}}},
    },
]


def _write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _design(folder: Path, text: str) -> Path:
    path = folder / "design.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_tools_come_from_the_file_next_to_the_yaml(tmp_path: Path) -> None:
    _write(tmp_path, "catalogue.json", CATALOGUE)
    design = st.load_design(
        _design(
            tmp_path,
            "tools_from: catalogue.json\nkind: playbook\nname: issues\ndescription: Issues\n"
            "tools:\n  - list_issues\n  - tool: get_issue\n    unlocked_by: list_issues\n",
        )
    )
    (playbook,) = design.definitions
    get_issue = playbook.tools[1]
    assert isinstance(get_issue, SchemaOnlyTool)
    assert get_issue.input_schema["required"] == ["number"]
    assert get_issue.description == "Get one issue"
    assert [t.name for t in design.catalogue] == [
        "get_issue",
        "list_issues",
        "close_issue",
        "label_issue",
    ]
    assert design.catalogue[3].input_schema["properties"] == {"label": {"type": "string"}}


def test_calling_a_schema_only_tool_says_it_has_no_handler(tmp_path: Path) -> None:
    _write(tmp_path, "catalogue.json", CATALOGUE)
    design = st.load_design(
        _design(tmp_path, "tools_from: [catalogue.json]\ndefinitions: []\n"),
    )
    result = design.catalogue[0].call({"number": 1})
    assert result.is_error
    assert result.text == "no handler: this tool was imported schema-only from catalogue.json"


def test_a_schema_only_design_runs_the_scheduler(tmp_path: Path) -> None:
    _write(tmp_path, "catalogue.json", CATALOGUE)
    path = _design(
        tmp_path,
        "tools_from: catalogue.json\nkind: playbook\nname: issues\ndescription: Issues\n"
        "tools: [list_issues, {tool: close_issue, unlocked_by: list_issues}]\n"
        "script:\n  - call: {name: list_issues}\n  - answer: done\n",
    )
    design = st.load_design(path)
    model = design.scripted_model()
    assert model is not None
    result = st.ToolLoop(model).run("go", tools=design.tools)
    (answer,) = [m for m in result.messages if m.role == "tool"]
    assert answer.content == ("no handler: this tool was imported schema-only from catalogue.json")
    # the call failed (no handler), so what it would unlock stays locked
    assert [r.tool_names for r in model.requests] == [["list_issues"], ["list_issues"]]


def test_a_mapping_with_a_tools_list_and_yaml_files_work(tmp_path: Path) -> None:
    _write(tmp_path, "wrapped.json", {"tools": CATALOGUE[:1]})
    (tmp_path / "more.yaml").write_text("- name: ping\n  description: Ping\n", encoding="utf-8")
    design = st.load_design(
        _design(tmp_path, "tools_from: [wrapped.json, more.yaml]\n"),
    )
    assert [t.name for t in design.catalogue] == ["get_issue", "ping"]


def test_the_registry_wins_over_a_schema_only_tool(tmp_path: Path) -> None:
    _write(tmp_path, "catalogue.json", [{"name": "confirm", "description": "Schema"}])
    playbook = st.load_playbook(
        _design(
            tmp_path,
            "tools_from: catalogue.json\nkind: playbook\nname: p\ndescription: d\n"
            "tools: [confirm]\n",
        ),
        tools=sample.REGISTRY,
    )
    assert playbook.tools == [sample.confirm]


def _problems(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(st.SpecError) as caught:
        st.load_design(path)
    return [(p.where, p.message) for p in caught.value.problems]  # type: ignore[attr-defined]


def test_problems_in_tools_files_are_reported_with_the_tools_from_path(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "bad.json",
        [
            {"type": "function", "function": {"name": "ok", "description": "Fine"}},
            {"type": "function", "function": {"name": "no desc"}},
            {"type": "function", "function": {"name": "nodesc"}},
            {"type": "function", "function": {"name": "ok", "description": "Again"}},
            "text",
        ],
    )
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
    path = _design(tmp_path, "tools_from: [bad.json, missing.json, broken.json]\n")
    problems = _problems(path)
    assert problems[:5] == [
        ("$.tools_from[0]", "bad.json tool #2: invalid tool name 'no desc'"),
        ("$.tools_from[0]", "bad.json tool #3: tool 'nodesc' has no description"),
        ("$.tools_from[0]", "bad.json: tool 'ok' is defined twice"),
        ("$.tools_from[0]", "bad.json tool #5: a tool must be a mapping"),
        (
            "$.tools_from[1]",
            f"cannot read tools file {str(tmp_path / 'missing.json')!r}: No such file or directory",
        ),
    ]
    assert problems[5][0] == "$.tools_from[2]"
    assert problems[5][1].startswith("tools file 'broken.json' is not valid JSON/YAML")


def test_a_tools_file_of_the_wrong_shape(tmp_path: Path) -> None:
    _write(tmp_path, "odd.json", {"functions": []})
    assert _problems(_design(tmp_path, "tools_from: odd.json\n")) == [
        (
            "$.tools_from",
            "a tools file holds a list of tools (or a mapping with a 'tools' list)",
        )
    ]


def test_unknown_tools_are_not_blamed_when_a_tools_file_failed(tmp_path: Path) -> None:
    path = _design(
        tmp_path,
        "tools_from: missing.json\nkind: playbook\nname: p\ndescription: d\ntools: [x]\n",
    )
    assert _problems(path)[1] == (
        "$.tools[0]",
        "unknown tool 'x' (a tools file could not be read)",
    )


def test_a_tool_in_two_files(tmp_path: Path) -> None:
    _write(tmp_path, "a.json", [{"name": "x", "description": "X"}])
    _write(tmp_path, "b.json", [{"name": "x", "description": "X too"}])
    assert _problems(_design(tmp_path, "tools_from: [a.json, b.json]\n")) == [
        ("$.tools_from[1]", "tool 'x' is in two tools files")
    ]


def test_json_indented_with_tabs_loads_too(tmp_path: Path) -> None:
    tools = json.dumps([{"name": "ping", "description": "Ping"}], indent="\t")
    (tmp_path / "tabs.json").write_text(tools, encoding="utf-8")
    design = st.load_design(_design(tmp_path, "tools_from: tabs.json\n"))
    assert [t.name for t in design.catalogue] == ["ping"]
    playbook = json.dumps({"kind": "playbook", "name": "p", "description": "d"}, indent="\t")
    assert st.load_playbook(playbook).name == "p"


def test_a_failed_tools_file_lists_three_of_the_names_it_leaves_unknown(tmp_path: Path) -> None:
    path = _design(
        tmp_path,
        "tools_from: missing.json\nkind: playbook\nname: p\ndescription: d\n"
        "tools: [a, b, c, d, e]\n",
    )
    with pytest.raises(st.SpecError) as raised:
        st.load_design(path)

    assert len(raised.value.problems) == 6
    assert str(raised.value).splitlines()[1:] == [
        f"  $.tools_from (line 1): cannot read tools file '{tmp_path / 'missing.json'}': "
        "No such file or directory Hint: tools_from paths are relative to the YAML file",
        "  $.tools[0] (line 5): unknown tool 'a' (a tools file could not be read)",
        "  $.tools[1] (line 5): unknown tool 'b' (a tools file could not be read)",
        "  $.tools[2] (line 5): unknown tool 'c' (a tools file could not be read)",
        "  ... and 2 more unknown tools (a tools file could not be read) "
        "(all are in SpecError.problems)",
    ]
