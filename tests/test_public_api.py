"""The public names of DESIGN.md section 3 exist, and every public name is documented."""

from __future__ import annotations

import inspect

import pytest

import statetools as st

CONTRACT = [
    "Tool.create",
    "Tool.from_function",
    "InputSchema.of",
    "Parameter.string",
    "Parameter.integer",
    "Parameter.number",
    "Parameter.boolean",
    "Parameter.array",
    "Parameter.object",
    "llm_tool",
    "tools_from_instance",
    "ToolResult.text",
    "ToolResult.artifact",
    "ToolResult.error",
    "ToolCallContext.merge",
    "Tool.call",
    "Tool.acall",
    "Tool.with_description",
    "Tool.with_note",
    "PlaybookTool.with_tools",
    "PlaybookTool.with_tool",
    "PlaybookTool.unlocked_by",
    "PlaybookTool.unlocked_by_all",
    "PlaybookTool.unlocked_by_any",
    "PlaybookTool.unlocked_by_artifact",
    "PlaybookTool.unlocked_by_blackboard",
    "PlaybookTool.unlocked_when",
    "PlaybookTool.with_model",
    "StateMachineTool.with_initial_state",
    "StateMachineTool.in_state",
    "StateMachineTool.with_tool",
    "StateMachineTool.transitions_to",
    "StateMachineTool.with_global_tools",
    "StateMachineTool.with_final_states",
    "StateMachineTool.starting_in",
    "SimpleAgenticTool.with_tools",
    "SimpleAgenticTool.with_model",
    "ToolLoop.run",
    "ToolLoop.arun",
    "models.ScriptedModel",
    "models.OpenAIChatModel",
    "models.AnthropicModel",
    "models.resolve",
    "disclosure_graph",
    "StatetoolsError",
    "MaxIterationsExceeded",
    "ToolNotFoundError",
    "OutputValidationError",
    "ProviderError",
    "SpecError",
    "UnfoldingTool.searchable",
    "Facade.of",
    "Facade.searchable",
    "StateMachineTool.of",
    "PlaybookTool.of",
    "Move",
    "Unlock",
    "layered",
    "example_arguments",
    "tools_from_module",
]


@pytest.mark.parametrize("dotted", CONTRACT)
def test_contract_name_exists(dotted: str) -> None:
    obj: object = st
    for part in dotted.split("."):
        obj = getattr(obj, part)
    assert obj is not None


def test_run_errors_are_statetools_errors() -> None:
    for error in (
        st.MaxIterationsExceeded,
        st.ToolNotFoundError,
        st.OutputValidationError,
        st.ProviderError,
    ):
        assert issubclass(error, st.RunError)
        assert issubclass(error, st.StatetoolsError)
    assert issubclass(st.SpecError, st.StatetoolsError)


def _documented(obj: object) -> bool:
    return bool(inspect.getdoc(obj))


def test_every_public_class_and_function_has_a_docstring() -> None:
    missing = []
    for name in st.__all__:
        obj = getattr(st, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj)):
            continue  # type aliases (Condition, Event, Message, Listener)
        if not _documented(obj):
            missing.append(name)
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                target = value
                if isinstance(value, classmethod | staticmethod):
                    target = value.__func__
                elif isinstance(value, property):
                    target = value.fget
                elif not inspect.isfunction(value):
                    continue
                if not _documented(target):
                    missing.append(f"{name}.{member}")
    assert missing == []
