"""Regression tests for defects adversarial tests found (issue 12: 15, 16, 17, 18)."""

from __future__ import annotations

from typing import Any

import pytest

import statetools as st
from statetools.engine.events import InjectionSkipped
from statetools.models import ScriptedModel


def greeter(model: ScriptedModel, prompt: Any) -> st.SimpleAgenticTool:
    return st.SimpleAgenticTool("greeter", "Greets").with_model(model).with_system_prompt(prompt)


# 15: with_system_prompt(callable) -------------------------------------------------------


def test_a_system_prompt_function_gets_the_run_context_when_the_nested_run_starts() -> None:
    seen: list[str] = []

    def prompt(context: st.ToolCallContext) -> str:
        seen.append(context["user"])
        return f"The user is {context['user']}."

    nested = ScriptedModel(["Hello, Ann.", "Hello again."])
    outer = ScriptedModel(
        [("greeter", {"task": "Greet"}), ("greeter", {"task": "Again"}), "Greeted."]
    )
    result = st.ToolLoop(outer).run("go", tools=[greeter(nested, prompt)], context={"user": "Ann"})
    assert seen == ["Ann", "Ann"]  # evaluated at the start of each nested run
    assert [r.messages[0] for r in nested.requests] == [
        st.SystemMessage("The user is Ann."),
        st.SystemMessage("The user is Ann."),
    ]
    assert [m.content for m in result.messages if m.role == "tool"] == [
        "Hello, Ann.",
        "Hello again.",
    ]


def test_playbooks_and_machines_take_a_system_prompt_function_too() -> None:
    nested = ScriptedModel(["ok"])
    playbook = (
        st.PlaybookTool("helper", "Helps")
        .with_tool(st.Tool.create("a", "A", lambda: "a"))
        .with_model(nested)
        .with_system_prompt(lambda context: f"Tenant {context['tenant']}.")
    )
    st.ToolLoop(ScriptedModel([("helper", {"task": "t"}), "done"])).run(
        "go", tools=[playbook], context={"tenant": "acme"}
    )
    assert nested.requests[0].messages[0] == st.SystemMessage("Tenant acme.")


def test_a_system_prompt_that_is_neither_text_nor_a_function_is_a_definition_error() -> None:
    with pytest.raises(st.DefinitionError) as caught:
        st.SimpleAgenticTool("greeter", "Greets").with_system_prompt(42)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "system_prompt: a system prompt must be text or a function of the run context, got "
        "int Hint: pass a string, or a function (context) -> str"
    )


def test_a_system_prompt_function_that_fails_or_returns_no_text_answers_the_call() -> None:
    def broken(context: st.ToolCallContext) -> str:
        raise LookupError("no user")

    outer = ScriptedModel([("greeter", {"task": "t"}), "done"])
    result = st.ToolLoop(outer).run("go", tools=[greeter(ScriptedModel(["x"]), broken)])
    assert (result.messages[2].content, result.messages[2].is_error) == (
        "Tool 'greeter' failed: no user",
        True,
    )
    with pytest.raises(st.DefinitionError) as caught:
        greeter(ScriptedModel(["x"]), lambda context: 5).call({"task": "t"})
    assert str(caught.value) == (
        "tool 'greeter': the system prompt function of agentic tool 'greeter' returned int, "
        "not text Hint: return the system prompt as a string"
    )


def test_a_system_prompt_function_cannot_be_dumped_to_yaml() -> None:
    playbook = st.PlaybookTool("helper", "Helps").with_system_prompt(lambda context: "x")
    with pytest.raises(st.SpecError) as caught:
        st.dump_playbook(playbook)
    assert str(caught.value) == (
        "playbook 'helper'.system_prompt: a system prompt given as a function cannot be "
        "written to YAML Hint: dump the definition with a text system prompt, or set the "
        "function after loading (.with_system_prompt(fn))"
    )


# 16, 17: provider ids ----------------------------------------------------------------------


@st.tool_provider(prefix="box", id_attribute="key")
class KeyedBox:
    def __init__(self, key: str | None) -> None:
        self._key = key

    def key(self) -> str | None:
        return self._key

    @st.llm_tool("Open the box.")
    def open(self) -> str:
        return f"opened {self._key}"


@st.tool_provider(prefix="crate", id_attribute="code")
class Crate:
    def __init__(self, code: str | None) -> None:
        self.code = code

    @st.llm_tool("Lift the crate.")
    def lift(self) -> str:
        return "lifted"

    @st.llm_tool("Drop the crate.")
    def drop(self) -> str:
        return "dropped"


@st.tool_provider(prefix="tag", id_attribute="label")
class Tag:
    def label(self, style: str) -> str:
        return style

    @st.llm_tool("Print the tag.")
    def show(self) -> str:
        return "tag"


def test_an_id_attribute_naming_a_method_is_called() -> None:
    def boxes() -> list[KeyedBox]:
        """Find boxes."""
        return [KeyedBox("b1"), KeyedBox("b2")]

    model = ScriptedModel([("boxes", {}), ("box_b2_open", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=[boxes])
    assert model.requests[1].tool_names == ["boxes", "box_b1_open", "box_b2_open"]
    assert result.messages[4].content == "opened b2"


def test_a_provider_without_an_id_is_skipped_with_an_event() -> None:
    def found() -> list[Any]:
        """Find things."""
        return [Crate(None), Crate("c1"), KeyedBox(None), Tag()]

    model = ScriptedModel([("found", {}), "done"])
    result = st.ToolLoop(model).run("go", tools=[found])
    assert model.requests[1].tool_names == ["found", "crate_c1_lift", "crate_c1_drop"]
    skipped = [(e.name, e.reason) for e in result.trace.of_type(InjectionSkipped)]
    assert skipped == [
        ("crate_<code>_lift", "Crate.code is None"),
        ("crate_<code>_drop", "Crate.code is None"),
        ("box_<key>_open", "KeyedBox.key is None"),
        (
            "tag_<label>_show",
            "Tag.label failed: TypeError: Tag.label() missing 1 required positional "
            "argument: 'style'",
        ),
    ]
    assert [e["type"] for e in result.trace.to_json()].count("injection_skipped") == 4


# 18: guidance names only tools that can bind -----------------------------------------------


class User:
    def __init__(self, name: str) -> None:
        self.name = name

    @st.llm_tool("Greet the user.")
    def greet(self) -> str:
        return f"hello {self.name}"


def list_users() -> list[User]:
    """List the users."""
    return [User("ann"), User("bob")]


def users_by_name() -> dict[str, User]:
    """The users by name."""
    return {"ann": User("ann")}


def get_user(name: str) -> User | None:
    """Get one user."""
    return User(name)


def test_guidance_names_only_tools_whose_result_binds() -> None:
    loop = st.ToolLoop(ScriptedModel([("greet", {}), ("list_users", {}), ("greet", {}), "ok"]))
    result = loop.with_tool_chaining_from(User).run(
        "go", tools=[list_users, users_by_name, get_user]
    )
    texts = [m.content for m in result.messages if m.role == "tool"]
    assert texts[0] == "Tool 'greet' needs a User first. Call first: get_user."
    assert (
        texts[2] == "Tool 'greet' needs a User first. Call first: get_user."
    )  # a list never binds

    graph = st.disclosure_graph(list_users, users_by_name, get_user, st.Chaining(User))
    edges = {
        (source, target)
        for source, target, kind in graph.to_networkx().edges(data="kind")
        if kind == "chains_from"
    }
    assert edges == {("tool:greet", "tool:get_user")}


def test_guidance_without_a_tool_that_binds_asks_for_one() -> None:
    loop = st.ToolLoop(ScriptedModel([("greet", {}), "ok"])).with_tool_chaining_from(User)
    result = loop.run("go", tools=[list_users])
    assert result.messages[2].content == (
        "Tool 'greet' needs a User first. Call a tool that returns one."
    )


def test_a_chaining_predicate_that_fails_is_an_injection_skipped_event_too() -> None:
    def picky(user: User) -> bool:
        raise ValueError("no rule for " + user.name)

    loop = st.ToolLoop(ScriptedModel([("get_user", {"name": "ann"}), ("greet", {}), "ok"]))
    result = loop.with_tool_chaining_from(User, picky).run("go", tools=[get_user])
    skipped = [(e.name, e.reason) for e in result.trace.of_type(InjectionSkipped)]
    assert skipped == [
        ("greet", "the chaining predicate failed: ValueError: no rule for ann"),
    ]
    assert result.messages[4].content == "Tool 'greet' needs a User first. Call first: get_user."

    loop = st.ToolLoop(ScriptedModel([("get_user", {"name": "bob"}), "ok"]))
    result = loop.with_tool_chaining_from_any(picky).run("go", tools=[get_user])
    skipped = [(e.name, e.reason) for e in result.trace.of_type(InjectionSkipped)]
    assert skipped == [("greet", "the chaining predicate failed: ValueError: no rule for bob")]
