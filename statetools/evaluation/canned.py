"""Canned tool results: every tool of an evaluation answers from the task file, offline.

A tool's result is a value (text as is, anything else as JSON), ``{error: TEXT}`` (an
error result), or ``{cases: [{when: {ARG: VALUE}, result: ...}, ...], otherwise: ...}``
(the first case whose arguments match; ``otherwise`` or the file's ``default_result``
when none does). A task's own results replace the file's for the tools it names.
A case's ``when`` (and a task's expected call) matches arguments by value, and
``{any_of: [...]}`` matches any of several values.

>>> results = parse_results({"get_order": {"cases": [
...     {"when": {"id": "7"}, "result": {"status": "shipped"}}],
...     "otherwise": {"error": "no such order"}}}, "results")
>>> results.answer("get_order", {"id": "7"}).text, results.answer("get_order", {"id": "8"}).text
('{"status": "shipped"}', 'no such order')
>>> arguments_match({"id": "#7", "note": "x"}, expected_value({"id": {"any_of": ["7", "#7"]}}))
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from statetools.errors import SpecError
from statetools.tools.calling import (
    Arguments,
    Context,
    ToolResult,
    invalid_arguments,
    parse_arguments,
)
from statetools.tools.tool import BaseTool
from statetools.tools.validation import argument_problems, make_validator

__all__ = [
    "RESULTS_KEY",
    "AnyOfValues",
    "CannedResults",
    "CannedTool",
    "arguments_match",
    "canned_tools",
    "expected_value",
    "parse_results",
]


@attrs.frozen
class AnyOfValues:
    """An expected argument that may take any of several values.

    >>> AnyOfValues(("#W1", "W1")).matches("W1")
    True
    """

    values: tuple[Any, ...]

    def matches(self, value: Any) -> bool:
        """Whether ``value`` equals one of the values.

        >>> AnyOfValues((1, 2)).matches(3)
        False
        """
        return any(_equal(value, wanted) for wanted in self.values)


def _equal(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, AnyOfValues):
        return wanted.matches(value)
    if isinstance(wanted, Mapping):
        return isinstance(value, Mapping) and all(
            key in value and _equal(value[key], item) for key, item in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_equal(a, b) for a, b in zip(value, wanted, strict=True))
        )
    if isinstance(wanted, bool) or isinstance(value, bool):
        return value is wanted
    return bool(value == wanted)


def arguments_match(arguments: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether every argument named in ``wanted`` has a matching value in ``arguments``
    (arguments not named are not checked; nested objects match the same way).

    >>> arguments_match({"id": "7", "note": "x"}, {"id": AnyOfValues(("7", "#7"))})
    True
    """
    return all(key in arguments and _equal(arguments[key], item) for key, item in wanted.items())


def expected_value(data: Any) -> Any:
    """An expected value as written in a task file: ``{any_of: [...]}`` becomes
    :class:`AnyOfValues`, recursively.

    >>> expected_value({"any_of": [1, 2]})
    AnyOfValues(values=(1, 2))
    """
    if isinstance(data, Mapping):
        if set(data) == {"any_of"} and isinstance(data["any_of"], list):
            return AnyOfValues(tuple(expected_value(item) for item in data["any_of"]))
        return {str(key): expected_value(item) for key, item in data.items()}
    if isinstance(data, list):
        return [expected_value(item) for item in data]
    return data


RESULTS_KEY = "statetools.eval.results"
"""The run context key holding the :class:`CannedResults` of the task being run."""


@attrs.frozen
class Answer:
    """One canned answer: its text and whether it is an error."""

    text: str
    is_error: bool = False


@attrs.frozen
class Case:
    """A canned answer given when the call's arguments match ``when``."""

    when: Mapping[str, Any]
    answer: Answer


@attrs.frozen
class Rule:
    """How one tool answers: cases in order, then ``otherwise`` (None: the default)."""

    cases: tuple[Case, ...] = ()
    otherwise: Answer | None = None


@attrs.frozen
class CannedResults:
    """Canned answers by tool name, and the default answer for everything else.

    >>> CannedResults().answer("anything", {}).text
    'OK'
    """

    rules: Mapping[str, Rule] = attrs.field(factory=dict)
    default: Answer = Answer("OK")

    def answer(self, name: str, arguments: Mapping[str, Any]) -> Answer:
        """The answer to a call of ``name`` with ``arguments``.

        >>> parse_results({"ping": "pong"}, "r").answer("ping", {})
        Answer(text='pong', is_error=False)
        """
        rule = self.rules.get(name)
        if rule is None:
            return self.default
        for case in rule.cases:
            if arguments_match(arguments, case.when):
                return case.answer
        return rule.otherwise or self.default

    def over(self, base: CannedResults) -> CannedResults:
        """These results on top of ``base`` (a task's over its file's).

        >>> task = parse_results({"a": "task"}, "r")
        >>> task.over(parse_results({"a": "file", "b": "file"}, "r")).answer("b", {}).text
        'file'
        """
        return CannedResults({**base.rules, **self.rules}, base.default)


def _answer(value: Any, where: str) -> Answer:
    if isinstance(value, Mapping) and set(value) == {"error"}:
        if not isinstance(value["error"], str):
            raise SpecError(f"{where}.error: expected text", path=where)
        return Answer(value["error"], True)
    if isinstance(value, str):
        return Answer(value)
    return Answer(json.dumps(value, ensure_ascii=False))


def _rule(value: Any, where: str) -> Rule:
    if not (isinstance(value, Mapping) and "cases" in value):
        return Rule(otherwise=_answer(value, where))
    unknown = set(value) - {"cases", "otherwise"}
    if unknown:
        raise SpecError(
            f"{where}: unknown key {sorted(unknown)[0]!r}",
            path=where,
            hint="a tool with cases has 'cases' and 'otherwise'",
        )
    if not isinstance(value["cases"], list):
        raise SpecError(f"{where}.cases: expected a list", path=f"{where}.cases")
    cases = []
    for i, case in enumerate(value["cases"]):
        here = f"{where}.cases[{i}]"
        if not isinstance(case, Mapping) or "result" not in case:
            raise SpecError(
                f"{here}: a case needs 'result'", path=here, hint="write {when: {...}, result: ...}"
            )
        when = case.get("when") or {}
        if not isinstance(when, Mapping):
            raise SpecError(f"{here}.when: expected a mapping of arguments", path=f"{here}.when")
        cases.append(Case(expected_value(when), _answer(case["result"], f"{here}.result")))
    otherwise = value.get("otherwise")
    return Rule(tuple(cases), None if otherwise is None else _answer(otherwise, where))


def parse_results(data: Any, where: str, *, default: Any = "OK") -> CannedResults:
    """Canned results from a task file's ``results:`` mapping (None: none).

    >>> parse_results({"ping": "pong"}, "results").answer("ping", {}).text
    'pong'
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise SpecError(
            f"{where}: expected a mapping of tool names to results",
            path=where,
            hint="write results: {TOOL: RESULT}",
        )
    rules = {str(name): _rule(value, f"{where}.{name}") for name, value in data.items()}
    return CannedResults(rules, _answer(default, f"{where}: default_result"))


@attrs.frozen(kw_only=True)
class CannedTool(BaseTool):
    """A tool of the catalogue that checks its arguments against its schema, as a real
    tool would, and answers from the :class:`CannedResults` in the run's context.

    >>> tool = CannedTool(name="ping", description="Ping",
    ...                   input_schema={"type": "object", "properties": {}})
    >>> tool.call({}, {RESULTS_KEY: parse_results({"ping": "pong"}, "r")}).text
    'pong'
    """

    async def acall(self, arguments: Arguments = None, context: Context = None) -> ToolResult:
        """The canned answer, or an error naming what is wrong with the arguments.

        >>> import asyncio
        >>> tool = CannedTool(name="get", description="Get", input_schema={
        ...     "type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})
        >>> asyncio.run(tool.acall({})).text
        "Invalid arguments for tool 'get': missing required argument 'id'. Call it again with corrected arguments."
        """  # noqa: E501
        parsed = parse_arguments(self.name, arguments)
        if isinstance(parsed, str):
            return ToolResult.error(parsed)
        problems = argument_problems(make_validator(self.input_schema), parsed)
        if problems:
            return ToolResult.error(invalid_arguments(self.name, problems))
        results = (context or {}).get(RESULTS_KEY)
        answer = (results or CannedResults()).answer(self.name, parsed)
        return ToolResult.error(answer.text) if answer.is_error else ToolResult.text(answer.text)


def canned_tools(tools: list[BaseTool] | tuple[BaseTool, ...]) -> dict[str, BaseTool]:
    """A canned tool for each tool, by name (the definition as the model sees it).

    >>> from statetools.tools.tool import Tool
    >>> sorted(canned_tools([Tool.create("ping", "Ping", lambda: "pong")]))
    ['ping']
    """
    return {
        tool.name: CannedTool(
            name=tool.name, description=tool.description, input_schema=tool.input_schema
        )
        for tool in tools
    }
