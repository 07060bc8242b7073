"""Code mode with tools that exist only at run time (discovered entities, chained
objects' methods) and with tool timeouts: scripts call them as they would be called
directly, and the same rules hold."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import statetools as st
from statetools.engine.events import ToolCalled
from statetools.models import ScriptedModel

FIND_STUB = 'def find(name: str) -> Any:\n    """Find a repository."""'
STAR_STUB = 'def repo_x_star() -> Any:\n    """Star the repository. For Repo x"""'
FORK_STUB = 'def repo_x_fork() -> Any:\n    """Fork the repository. For Repo x"""'


@st.tool_provider(prefix="repo")
class Repo:
    """A repository found at run time: its tools are ``repo_{id}_{method}``."""

    def __init__(self, id: str, starred: list[str]) -> None:
        self.id = id
        self.starred = starred

    @st.llm_tool("Star the repository")
    def star(self) -> str:
        self.starred.append(self.id)
        return f"starred {self.id}"

    @st.llm_tool("Fork the repository")
    def fork(self) -> Repo:
        return Repo(f"{self.id}f", self.starred)


def finder(starred: list[str]) -> st.Tool:
    def find(name: str) -> Repo:
        """Find a repository."""
        return Repo(name, starred)

    return st.Tool.from_function(find)


def stubs(request: Any) -> str:
    """The function stubs in the description of run_code."""
    description: str = request.tools[request.tool_names.index("run_code")].description
    return description.split("```python\n")[1].removesuffix("\n```")


def test_discovered_tools_are_called_later_in_the_script_and_in_later_scripts() -> None:
    starred: list[str] = []
    first = (
        "try:\n"
        "    repo_x_star()\n"
        "except NameError as error:\n"
        "    print('before:', error)\n"
        "find('x')\n"
        "print(repo_x_star())\n"
    )
    model = ScriptedModel(
        [("run_code", {"code": first}), ("run_code", {"code": "repo_x_star()"}), "Starred."]
    )
    result = st.ToolLoop(model).run("Star x", tools=[st.CodeMode(finder(starred))])

    assert starred == ["x", "x"]
    first_answer, second_answer = (m for m in result.messages if m.role == "tool")
    assert (first_answer.is_error, first_answer.content) == (
        False,
        "before: name 'repo_x_star' is not defined\n"
        "starred x\n"
        "[now callable: repo_x_star, repo_x_fork]",
    )
    assert (second_answer.is_error, second_answer.content) == (False, "starred x")
    assert [r.tool_names for r in model.requests] == [["run_code"]] * 3  # never shown directly
    assert stubs(model.requests[0]) == FIND_STUB
    assert stubs(model.requests[1]) == f"{FIND_STUB}\n\n{STAR_STUB}\n\n{FORK_STUB}"
    events = [
        (e.type, getattr(e, "call_id", None), getattr(e, "name", None)) for e in result.trace.events
    ]
    assert events[3:10] == [
        ("tool_started", "call_1", "run_code"),
        ("tool_started", "call_1.1", "find"),
        ("tool_called", "call_1.1", "find"),
        ("tools_injected", None, None),
        ("tool_started", "call_1.2", "repo_x_star"),
        ("tool_called", "call_1.2", "repo_x_star"),
        ("tool_called", "call_1", "run_code"),
    ]
    injected = [e.names for e in result.trace.events if e.type == "tools_injected"]
    assert injected == [("repo_x_star", "repo_x_fork")]
    assert dict(result.state.call_counts) == {"run_code": 2, "find": 1, "repo_x_star": 2}
    assert result.state.visible_order == ("run_code", "find", "repo_x_star", "repo_x_fork")


def test_tools_of_an_object_a_discovered_tool_returned_are_reached_through_the_script_too() -> None:
    starred: list[str] = []
    script = "find('x')\nrepo_x_fork()\nrepo_xf_star()"
    model = ScriptedModel([("run_code", {"code": script}), "Done."])
    result = st.ToolLoop(model).run("Fork x", tools=[st.CodeMode(finder(starred))])

    assert starred == ["xf"]
    assert result.messages[2].content == (
        "starred xf\n[now callable: repo_x_star, repo_x_fork, repo_xf_star, repo_xf_fork]"
    )
    assert model.requests[1].tool_names == ["run_code"]


def test_discovery_outside_code_mode_stays_direct_and_scripts_cannot_call_it() -> None:
    starred: list[str] = []

    def ping() -> str:
        """Ping."""
        return "pong"

    script = "repo_y_star()"
    model = ScriptedModel(
        [("find", {"name": "y"}), ("run_code", {"code": script}), ("repo_y_star", {}), "ok"]
    )
    result = st.ToolLoop(model).run("Go", tools=[finder(starred), st.CodeMode(ping)])

    assert model.requests[1].tool_names == ["find", "run_code", "repo_y_star", "repo_y_fork"]
    assert stubs(model.requests[1]) == 'def ping() -> Any:\n    """Ping."""'
    found, scripted, direct = (m for m in result.messages if m.role == "tool")
    assert found.content.endswith("[now available: repo_y_star, repo_y_fork]")
    assert scripted.is_error
    assert scripted.content.endswith("NameError: name 'repo_y_star' is not defined")
    assert direct.content == "starred y"
    assert starred == ["y"]


def test_the_discovery_limit_holds_for_tools_found_by_a_script() -> None:
    starred: list[str] = []
    script = (
        "find('x')\n"
        "find('y')\n"
        "try:\n"
        "    repo_y_star()\n"
        "except NameError as error:\n"
        "    print(error)\n"
        "repo_x_star()"
    )
    model = ScriptedModel([("run_code", {"code": script}), "Done."])
    loop = st.ToolLoop(model, max_discovered_tools=2)
    result = loop.run("Star", tools=[st.CodeMode(finder(starred))])

    assert result.messages[2].content == (
        "name 'repo_y_star' is not defined\nstarred x\n[now callable: repo_x_star, repo_x_fork]"
    )
    assert starred == ["x"]
    limited = [e for e in result.trace.events if e.type == "injection_limit_reached"]
    assert [(e.limit, e.names) for e in limited] == [(2, ("repo_y_star", "repo_y_fork"))]


class Issue:
    """An object whose methods become tools when a tool returns it (chaining)."""

    def __init__(self, number: int) -> None:
        self.id = number

    @st.llm_tool("Close the issue")
    def close(self) -> str:
        return f"closed #{self.id}"


def open_issue(number: int) -> Issue:
    """Open an issue by its number."""
    return Issue(number)


def test_a_chained_objects_methods_are_called_in_the_script_that_got_the_object() -> None:
    script = "open_issue(4)\nprint(close())\nopen_issue(5)\nclose()"
    model = ScriptedModel([("run_code", {"code": script}), ("run_code", {"code": "close()"}), "ok"])
    result = st.ToolLoop(model).run(
        "Close 4 and 5", tools=[st.CodeMode(open_issue, st.Chaining.any())]
    )

    first, second = (m for m in result.messages if m.role == "tool")
    assert first.content == "closed #4\nclosed #5\n[now callable: close]"
    assert second.content == "closed #5"  # the newest object's method
    assert [r.tool_names for r in model.requests] == [["run_code"]] * 3
    assert stubs(model.requests[1]).endswith('def close() -> Any:\n    """Close the issue"""')


def test_a_method_declared_by_chaining_is_locked_in_the_script_until_its_object_exists() -> None:
    script = (
        "try:\n    close()\nexcept PermissionError as error:\n    print(error)\n"
        "open_issue(9)\nclose()"
    )
    model = ScriptedModel([("run_code", {"code": script}), "ok"])
    result = st.ToolLoop(model).run("Close 9", tools=[st.CodeMode(open_issue, st.Chaining(Issue))])

    direct_model = ScriptedModel([("close", {}), "ok"])
    direct = st.ToolLoop(direct_model).run("Close 9", tools=[open_issue, st.Chaining(Issue)])
    refusal = direct.messages[2].content

    assert result.messages[2].content == f"{refusal}\nclosed #9\n[now callable: close]"
    assert refusal.startswith("Tool 'close' ")


async def pause(seconds: float) -> str:
    """Wait a while."""
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


def test_the_loops_tool_timeout_holds_for_each_call_of_a_script_and_the_script_goes_on() -> None:
    script = (
        "for seconds in (0.01, 5.0, 0.02):\n"
        "    try:\n"
        "        print(pause(seconds))\n"
        "    except RuntimeError as error:\n"
        "        print('caught:', error)\n"
    )
    model = ScriptedModel([("run_code", {"code": script}), ("pause", {"seconds": 5.0}), "ok"])
    result = st.ToolLoop(model, tool_timeout=0.3).run("Wait", tools=[st.CodeMode(pause)])

    scripted, direct = (m for m in result.messages if m.role == "tool")
    assert (direct.is_error, direct.content) == (True, "Tool 'pause' timed out after 0.3 s.")
    assert (scripted.is_error, scripted.content) == (
        False,
        f"waited 0.01\ncaught: {direct.content}\nwaited 0.02",
    )
    assert [(e.call_id, e.outcome) for e in result.trace.of_type(ToolCalled)] == [
        ("call_1.1", "text"),
        ("call_1.2", "error"),
        ("call_1.3", "text"),
        ("call_1", "text"),
        ("call_2", "error"),
    ]
    assert result.state.call_counts["pause"] == 2  # a timed-out call counts for nothing


def test_a_tools_own_timeout_holds_in_a_script_and_the_script_is_not_timed_as_a_whole() -> None:
    patient = st.Tool.create("patient", "Wait, patiently.", pause, metadata={"timeout": 1.0})
    hasty = st.Tool.create("hasty", "Wait, hastily.", pause, metadata={"timeout": 0.05})
    script = (
        "print(patient(0.2))\n"
        "print(patient(0.2))\n"
        "try:\n    hasty(0.5)\nexcept RuntimeError as error:\n    print(error)\n"
    )
    model = ScriptedModel([("run_code", {"code": script}), "ok"])
    loop = st.ToolLoop(model, tool_timeout=0.3)  # less than the script takes in all
    result = loop.run("Wait", tools=[st.CodeMode(patient, hasty)])

    assert (result.messages[2].is_error, result.messages[2].content) == (
        False,
        "waited 0.2\nwaited 0.2\nTool 'hasty' timed out after 0.05 s.",
    )


def test_a_resumed_run_reaches_the_tools_a_script_found_through_the_script_again() -> None:
    starred: list[str] = []
    world = {"x": Repo("x", starred)}

    def find(name: str) -> Repo:
        """Find a repository."""
        return world[name]

    def loop(steps: list[Any]) -> st.ToolLoop:
        return st.ToolLoop(ScriptedModel(steps), instances=lambda kind, key: world.get(key))

    with pytest.raises(st.ScriptExhaustedError) as caught:
        loop([("run_code", {"code": "find('x')"})]).run("Star x", tools=[st.CodeMode(find)])
    first = caught.value.result
    assert first is not None
    assert first.state.objects == (("discovery@run_code", f"{__name__}.Repo", "x"),)
    saved = st.DisclosureState.from_json(first.state.to_json())

    steps: list[Any] = [("run_code", {"code": "repo_x_star()"}), "Starred."]
    resumed = loop(steps)
    second = resumed.run(list(first.messages), tools=[st.CodeMode(find)], state=saved)

    assert second.messages[-2].content == "starred x"
    model = resumed.model
    assert isinstance(model, ScriptedModel)
    assert model.requests[0].tool_names == ["run_code"]
    assert stubs(model.requests[0]) == f"{FIND_STUB}\n\n{STAR_STUB}\n\n{FORK_STUB}"
