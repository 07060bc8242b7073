"""Task files: what a model is asked, what it may call, and what counts as success.

A task file (YAML, or JSON Lines with one task per line) holds the tool catalogue the
tasks run against (``tools_from``: OpenAI-format tools files, or ``tools:`` written
inline), canned tool results so every task runs offline against any model, and the
tasks. A task has a ``prompt`` (or several user ``turns``), the ``expect``-ed calls
(a name, and the arguments that matter, each a value or ``{any_of: [...]}``), and
optionally a Python ``check`` (``module:function``). See docs/eval.md.

>>> suite = load_tasks('''
... tools: [{name: get_order, description: Look up an order,
...          parameters: {type: object, properties: {id: {type: string}}}}]
... tasks:
...   - id: lookup
...     prompt: Where is order 7?
...     expect: [{name: get_order, arguments: {id: {any_of: ["7", "#7"]}}}]
... ''')
>>> task = suite.tasks[0]
>>> task.id, task.turns, task.expect[0].arguments["id"]
('lookup', ('Where is order 7?',), AnyOfValues(values=('7', '#7')))
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from statetools.errors import SpecError
from statetools.evaluation.canned import (
    AnyOfValues,
    CannedResults,
    arguments_match,
    expected_value,
    parse_results,
)
from statetools.safeyaml import load_yaml
from statetools.tools.tool import BaseTool

__all__ = ["AnyOfValues", "ExpectedCall", "Task", "TaskSuite", "load_tasks"]

Check = Callable[..., Any]
"""A Python check: ``check(result, task)``; False or an AssertionError fails the task."""

_SUITE_KEYS = {
    "tools_from",
    "tools",
    "system_prompt",
    "max_iterations",
    "results",
    "default_result",
    "tasks",
}
_TASK_KEYS = {"id", "prompt", "turns", "expect", "in_order", "check", "results", "max_iterations"}


@attrs.frozen
class ExpectedCall:
    """A call the model should make: the tool's name and the arguments that matter.

    >>> ExpectedCall("get_order", {"id": "7"}).matches("get_order", {"id": "7", "x": 1})
    True
    """

    name: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)

    def matches(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call of ``name`` with ``arguments`` is this expected call.

        >>> ExpectedCall("get_order", {"id": "7"}).matches("get_order", {"id": "8"})
        False
        """
        return name == self.name and arguments_match(arguments, self.arguments)


@attrs.frozen
class Task:
    """One task: the user's turns, the calls expected, an optional Python check and
    the canned results of its own (on top of the file's).

    >>> Task("t1", ("Hi",)).expect
    ()
    """

    id: str
    turns: tuple[str, ...]
    expect: tuple[ExpectedCall, ...] = ()
    in_order: bool = True
    check: Check | None = None
    results: CannedResults = attrs.field(factory=CannedResults)
    max_iterations: int | None = None

    @property
    def expected_tools(self) -> tuple[str, ...]:
        """The names of the expected calls, each once, in order.

        >>> Task("t", ("Hi",), (ExpectedCall("a"), ExpectedCall("b"), ExpectedCall("a"))).expected_tools
        ('a', 'b')
        """  # noqa: E501
        return tuple(dict.fromkeys(call.name for call in self.expect))


@attrs.frozen
class TaskSuite:
    """A loaded task file: the tasks, the catalogue they run against (the *flat*
    condition shows all of it), the canned results and the run settings.

    >>> load_tasks("tasks: [{id: a, prompt: Hi}]").tasks[0].id
    'a'
    """

    tasks: tuple[Task, ...]
    catalogue: tuple[BaseTool, ...] = ()
    results: CannedResults = attrs.field(factory=CannedResults)
    system_prompt: str | None = None
    max_iterations: int = 10
    source: str | None = None

    def task(self, task_id: str) -> Task:
        """The task with id ``task_id``.

        >>> load_tasks("tasks: [{id: a, prompt: Hi}]").task("a").turns
        ('Hi',)
        """
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)


def _fail(where: str, message: str, hint: str | None = None) -> SpecError:
    return SpecError(
        f"{where}: {message}", problems=(f"{where}: {message}",), path=where, hint=hint
    )


def _expected(data: Any, where: str) -> ExpectedCall:
    if isinstance(data, str):
        return ExpectedCall(data)
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        raise _fail(
            where, "an expected call needs a 'name'", "write {name: TOOL, arguments: {...}}"
        )
    unknown = set(data) - {"name", "arguments"}
    if unknown:
        raise _fail(where, f"unknown key {sorted(unknown)[0]!r}", "use name and arguments")
    arguments = data.get("arguments") or {}
    if not isinstance(arguments, Mapping):
        raise _fail(f"{where}.arguments", "expected a mapping of argument names to values")
    return ExpectedCall(data["name"], expected_value(arguments))


def resolve_check(reference: str, where: str) -> Check:
    """The function a ``check: module:function`` names.

    >>> resolve_check("json:dumps", "check").__name__
    'dumps'
    """
    module, _, attribute = reference.partition(":")
    if not module or not attribute:
        raise _fail(where, f"invalid check {reference!r}", "write check: package.module:function")
    try:
        found: Any = importlib.import_module(module)
        for part in attribute.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise _fail(
            where, f"cannot import {reference!r}: {exc}", "check the module path and PYTHONPATH"
        ) from exc
    if not callable(found):
        raise _fail(where, f"{reference!r} is not callable")
    return found  # type: ignore[no-any-return]


def _positive(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _fail(where, f"expected a whole number of at least 1, got {value!r}")
    return value


def _task(data: Any, where: str, seen: set[str]) -> Task:
    if not isinstance(data, Mapping):
        raise _fail(where, "a task is a mapping", "write {id: ..., prompt: ..., expect: [...]}")
    unknown = set(data) - _TASK_KEYS
    if unknown:
        raise _fail(
            where, f"unknown key {sorted(unknown)[0]!r}", f"use {', '.join(sorted(_TASK_KEYS))}"
        )
    task_id = data.get("id")
    if not isinstance(task_id, str | int) or isinstance(task_id, bool) or not str(task_id):
        raise _fail(where, "a task needs an 'id' (text)")
    task_id = str(task_id)
    if task_id in seen:
        raise _fail(
            f"{where}.id", f"task id {task_id!r} is used twice", "give each task its own id"
        )
    seen.add(task_id)
    if ("prompt" in data) == ("turns" in data):
        raise _fail(where, "a task needs a 'prompt' or 'turns' (one of them)")
    turns = [data["prompt"]] if "prompt" in data else data["turns"]
    if not isinstance(turns, list) or not turns or not all(isinstance(t, str) for t in turns):
        raise _fail(where, "'turns' is a list of user messages (text)")
    expect = data.get("expect") or []
    if not isinstance(expect, list):
        raise _fail(f"{where}.expect", "expected a list of calls")
    check = data.get("check")
    if check is not None and not isinstance(check, str):
        raise _fail(f"{where}.check", "expected 'module:function'")
    in_order = data.get("in_order", True)
    if not isinstance(in_order, bool):
        raise _fail(f"{where}.in_order", "expected true or false")
    limit = data.get("max_iterations")
    return Task(
        id=task_id,
        turns=tuple(turns),
        expect=tuple(_expected(item, f"{where}.expect[{i}]") for i, item in enumerate(expect)),
        in_order=in_order,
        check=None if check is None else resolve_check(check, f"{where}.check"),
        results=parse_results(data.get("results"), f"{where}.results"),
        max_iterations=None if limit is None else _positive(limit, f"{where}.max_iterations"),
    )


def _catalogue(data: Mapping[str, Any], base: Path, where: str) -> tuple[BaseTool, ...]:
    from statetools.spec.design import load_design

    document: dict[str, Any] = {}
    if "tools_from" in data:
        document["tools_from"] = data["tools_from"]
    tools: list[BaseTool] = []
    for i, item in enumerate(data.get("tools") or []):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise _fail(
                f"{where}.tools[{i}]",
                "a tool needs a 'name'",
                "write {name, description, parameters}",
            )
        from statetools.spec.references import SchemaOnlyTool

        tools.append(
            SchemaOnlyTool(
                name=item["name"],
                description=str(item.get("description") or item["name"]),
                input_schema=item.get("parameters") or {"type": "object", "properties": {}},
                source=where,
            )
        )
    if document:
        tools = [*load_design(document, base_dir=base).catalogue, *tools]
    return tuple(tools)


def _suite_data(text: str, name: str) -> dict[str, Any]:
    if name.endswith(".jsonl"):
        settings: dict[str, Any] = {}
        tasks: list[Any] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise _fail(f"{name}:{number}", f"not valid JSON ({exc})") from exc
            if isinstance(item, Mapping) and set(item) == {"settings"}:
                settings.update(item["settings"])
            else:
                tasks.append(item)
        return {**settings, "tasks": tasks}
    data = load_yaml(text)
    if not isinstance(data, Mapping):
        raise _fail(
            name, "a task file is a mapping with 'tasks'", "write tasks: [{id, prompt, expect}]"
        )
    return dict(data)


def load_tasks(source: str | os.PathLike[str] | Mapping[str, Any]) -> TaskSuite:
    """Read a task file (YAML, or ``.jsonl``: one task per line, and optionally a line
    ``{"settings": {...}}`` with the file-level keys), YAML text, or a dict.

    Raises :class:`~statetools.SpecError` with the path of the first problem.

    >>> len(load_tasks({"tasks": [{"id": 1, "turns": ["Hi", "Bye"]}]}).tasks[0].turns)
    2
    """
    base = Path.cwd()
    name = "tasks"
    if isinstance(source, Mapping):
        data = dict(source)
    elif isinstance(source, os.PathLike) or (
        isinstance(source, str)
        and "\n" not in source
        and source.endswith((".yaml", ".yml", ".jsonl", ".json"))
    ):
        path = Path(source)
        if not path.is_file():
            raise _fail(
                str(path), "no such task file", "give the path of a YAML or JSONL task file"
            )
        base, name = path.parent, str(path)
        data = _suite_data(path.read_text(encoding="utf-8"), name)
    else:
        data = _suite_data(str(source), name)
    unknown = set(data) - _SUITE_KEYS
    if unknown:
        raise _fail(
            name, f"unknown key {sorted(unknown)[0]!r}", f"use {', '.join(sorted(_SUITE_KEYS))}"
        )
    items = data.get("tasks")
    if not isinstance(items, list) or not items:
        raise _fail(f"{name}: tasks", "expected a non-empty list of tasks")
    seen: set[str] = set()
    tasks = tuple(_task(item, f"{name}: tasks[{i}]", seen) for i, item in enumerate(items))
    system_prompt = data.get("system_prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise _fail(f"{name}: system_prompt", "expected text")
    default = data.get("default_result", "OK")
    return TaskSuite(
        tasks=tasks,
        catalogue=_catalogue(data, base, name),
        results=parse_results(data.get("results"), f"{name}: results", default=default),
        system_prompt=system_prompt,
        max_iterations=_positive(data.get("max_iterations", 10), f"{name}: max_iterations"),
        source=None if isinstance(source, Mapping) else name,
    )


def expected_sequence(task: Task, calls: Sequence[tuple[str, Mapping[str, Any]]]) -> str | None:
    """Why ``calls`` (name, arguments; in the order made) do not satisfy the task's
    expected calls, or None when they do. In order, the expected calls must appear as a
    subsequence; otherwise each must match a distinct call.

    >>> task = Task("t", ("Hi",), (ExpectedCall("a"), ExpectedCall("b")))
    >>> expected_sequence(task, [("b", {}), ("a", {})])
    'expected call 2 of 2 (b) was not made after call 1 (a)'
    >>> expected_sequence(task, [("a", {}), ("x", {}), ("b", {})]) is None
    True
    """
    if task.in_order:
        position = 0
        for index, wanted in enumerate(task.expect):
            while position < len(calls) and not wanted.matches(*calls[position]):
                position += 1
            if position == len(calls):
                if index == 0:
                    return f"expected call 1 of {len(task.expect)} ({wanted.name}) was not made"
                return (
                    f"expected call {index + 1} of {len(task.expect)} ({wanted.name}) was not "
                    f"made after call {index} ({task.expect[index - 1].name})"
                )
            position += 1
        return None
    free = list(range(len(calls)))
    for index, wanted in enumerate(task.expect):
        hit = next((i for i in free if wanted.matches(*calls[i])), None)
        if hit is None:
            return f"expected call {index + 1} of {len(task.expect)} ({wanted.name}) was not made"
        free.remove(hit)
    return None
