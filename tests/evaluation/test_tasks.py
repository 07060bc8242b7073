"""Task files: what they hold, their errors (with a path and a hint), canned results,
several user turns and Python checks, run with scripted models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import statetools as st
from statetools.engine.run_result import LoopResult
from statetools.evaluation import (
    AnyOfValues,
    EvalCondition,
    ExpectedCall,
    RunRecord,
    Task,
    TaskSuite,
    load_tasks,
    make_condition,
    run_task,
)
from statetools.evaluation.canned import RESULTS_KEY, CannedTool, parse_results
from statetools.models import ScriptedModel

PING = "tools: [{name: ping, description: Ping the host}]\n"


def test_a_task_file_with_its_defaults() -> None:
    suite = load_tasks(
        PING
        + """\
system_prompt: Be brief.
tasks:
  - id: 1
    turns: [Hi, Ping it]
    expect: [ping, {name: ping, arguments: {host: {any_of: [a, b]}, n: 1}}]
    in_order: false
"""
    )

    task = suite.tasks[0]
    assert (task.id, task.turns, task.in_order) == ("1", ("Hi", "Ping it"), False)
    assert task.expect == (
        ExpectedCall("ping"),
        ExpectedCall("ping", {"host": AnyOfValues(("a", "b")), "n": 1}),
    )
    assert (suite.system_prompt, suite.max_iterations) == ("Be brief.", 10)
    assert [tool.name for tool in suite.catalogue] == ["ping"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tasks: []", "tasks: tasks: expected a non-empty list of tasks"),
        ("task: [{id: a}]", "tasks: unknown key 'task'"),
        ("tasks: [{prompt: Hi}]", "tasks: tasks[0]: a task needs an 'id' (text)"),
        ("tasks: [{id: a}]", "tasks: tasks[0]: a task needs a 'prompt' or 'turns' (one of them)"),
        (
            "tasks: [{id: a, prompt: Hi}, {id: a, prompt: Ho}]",
            "tasks: tasks[1].id: task id 'a' is used twice",
        ),
        (
            "tasks: [{id: a, prompt: Hi, expect: [{arguments: {}}]}]",
            "tasks: tasks[0].expect[0]: an expected call needs a 'name'",
        ),
        (
            "tasks: [{id: a, prompt: Hi, check: nowhere_at_all:check}]",
            "tasks: tasks[0].check: cannot import 'nowhere_at_all:check': "
            "No module named 'nowhere_at_all'",
        ),
        (
            "results: {ping: {cases: 3}}\ntasks: [{id: a, prompt: Hi}]",
            "tasks: results.ping.cases: expected a list",
        ),
        (
            "max_iterations: 0\ntasks: [{id: a, prompt: Hi}]",
            "tasks: max_iterations: expected a whole number of at least 1, got 0",
        ),
    ],
)
def test_bad_task_files_say_where(text: str, message: str) -> None:
    with pytest.raises(st.SpecError) as caught:
        load_tasks(text)
    assert caught.value.message == message


def test_a_jsonl_file_holds_one_task_per_line_and_its_settings(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        json.dumps({"settings": {"tools": [{"name": "ping", "description": "Ping"}]}})
        + "\n"
        + json.dumps({"id": "a", "prompt": "Ping", "expect": ["ping"]})
        + "\n\n"
        + json.dumps({"id": "b", "prompt": "Hi"})
        + "\n"
    )

    suite = load_tasks(path)

    assert [task.id for task in suite.tasks] == ["a", "b"]
    assert suite.source == str(path)
    path.write_text('{"id": "a", "prompt": "Hi"}\n{"id": \n')
    with pytest.raises(st.SpecError) as caught:
        load_tasks(path)
    assert caught.value.message.startswith(f"{path}:2: not valid JSON")


def test_canned_tools_check_arguments_and_answer_by_case() -> None:
    tool = CannedTool(
        name="get_order",
        description="Look up an order",
        input_schema={
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        },
    )
    results = parse_results(
        {"get_order": {"cases": [{"when": {"id": {"any_of": ["7", "#7"]}}, "result": [1, 2]}]}},
        "results",
        default="nothing here",
    )
    context = {RESULTS_KEY: results}

    assert tool.call({"id": "#7"}, context).text == "[1, 2]"
    assert tool.call({"id": "8"}, context).text == "nothing here"
    wrong = tool.call({"id": 7}, context)
    assert wrong.is_error
    assert wrong.text == (
        "Invalid arguments for tool 'get_order': argument 'id' must be a string, got 7. "
        "Call it again with corrected arguments."
    )


def last_answer_mentions_the_host(result: LoopResult, task: object) -> None:
    assert "host" in str(result.output), "the answer does not mention the host"


def test_several_turns_and_a_python_check_judge_the_whole_conversation() -> None:
    suite = load_tasks(
        PING
        + """\
results: {ping: pong}
tasks:
  - id: two
    turns: [Hello, Now ping it]
    expect: [ping]
    check: tests.evaluation.test_tasks:last_answer_mentions_the_host
"""
    )
    flat = make_condition("flat", None, suite)
    task = suite.tasks[0]

    passing = ScriptedModel(["Hello!", ("ping", {}), "The host answered pong."])
    record = _run(passing, suite, flat, task)
    assert (record.success, record.requests, record.calls) == (True, 3, (("ping", {}),))
    assert record.output == "The host answered pong."
    assert [(m["role"], m["content"]) for m in record.messages] == [
        ("user", "Hello"),
        ("assistant", "Hello!"),
        ("user", "Now ping it"),
        ("assistant", ""),
        ("tool", "pong"),
        ("assistant", "The host answered pong."),
    ]

    failing = _run(ScriptedModel(["Hello!", ("ping", {}), "Pong."]), suite, flat, task)
    assert (failing.success, failing.reason) == (False, "the answer does not mention the host")
    never = _run(ScriptedModel(["Hello!", "I will not."]), suite, flat, task)
    assert never.reason == "expected call 1 of 1 (ping) was not made"


def _run(model: ScriptedModel, suite: TaskSuite, condition: EvalCondition, task: Task) -> RunRecord:
    return asyncio.run(run_task(model, suite, condition, task))


def test_a_run_that_ends_with_an_error_is_kept_with_its_kind() -> None:
    suite = load_tasks(PING + "max_iterations: 2\ntasks: [{id: a, prompt: Hi, expect: [ping]}]")
    model = ScriptedModel([("ping", {}), ("ping", {}), ("ping", {})])

    record = _run(model, suite, make_condition("flat", None, suite), suite.tasks[0])

    assert (record.success, record.error, record.requests) == (True, "MaxIterationsExceeded", 2)
    assert record.calls == (("ping", {}), ("ping", {}))
