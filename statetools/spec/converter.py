"""The cattrs converter that reads the YAML/dict format into definitions, and the hooks
that read a design document's own keys: ``mcp_servers``, ``tools_from``, ``script``
(and its steps) and ``context``.

One converter with ``forbid_extra_keys`` and ``detailed_validation`` (made in
:mod:`statetools.spec.values`): every problem of a file comes back in one error tree
whose notes give each problem's path. This module registers the hooks:

- plain values, lists, mappings and forms (:mod:`~statetools.spec.values`);
- references resolved while structuring: tools, import paths, state names and
  conditions (:mod:`~statetools.spec.resolve`);
- definitions built from their forms with the Python builders
  (:mod:`~statetools.spec.build`, facades in :mod:`~statetools.spec.build_facades`),
  and a document's own keys (here);
- a tagged union on ``kind`` for definitions (cattrs' ``configure_tagged_union``),
  wrapped so that a missing or unknown ``kind`` gets a clear message;
- a design's definitions list, and the items of a facade's ``tools:``, which may name
  a playbook or machine of that list (:mod:`~statetools.spec.nesting`).

Tools that ``mcp_servers`` and ``tools_from`` bring in join the read's catalogue, so
definitions can name them; every problem is reported at the path of its entry.

>>> load_design("script: [{answer: Done.}]").scripted_model().remaining
1
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from cattrs.strategies import configure_tagged_union

from statetools.definitions.conditions import After, Condition, InState, When
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import StatetoolsError
from statetools.models.scripted import parse_script
from statetools.safeyaml import RefusedYaml, check_size, load_yaml
from statetools.spec.build import (
    declared_states,
    definition_hook,
    is_machine,
    kind_of,
    structure_agent,
    structure_entry,
    structure_machine,
    structure_playbook,
    structure_state_tool,
    structure_transition,
    structure_transitions,
)
from statetools.spec.build_facades import structure_facade
from statetools.spec.forms import (
    AgentForm,
    CallableRef,
    Definition,
    EntryForm,
    EnumRef,
    FacadeItem,
    MCPServers,
    Names,
    RunContext,
    Script,
    StateName,
    StateToolForm,
    StepForm,
    ToolsFrom,
    TransitionForm,
    Transitions,
    TypeRef,
)
from statetools.spec.nesting import structure_definitions, structure_facade_item
from statetools.spec.problems import Invalid, Several, shorten
from statetools.spec.references import load_tools_file
from statetools.spec.resolve import (
    ReadContext,
    current,
    import_cached,
    reading,
    resolve_tool,
    state_name,
    structure_after,
    structure_callable_ref,
    structure_condition,
    structure_enum_ref,
    structure_in_state,
    structure_optional_condition,
    structure_type_ref,
    structure_when,
    tool_names,
)
from statetools.spec.values import converter, describe_value, fields_of
from statetools.tools.tool import BaseTool

__all__ = [
    "ReadContext",
    "converter",
    "current",
    "declared_states",
    "reading",
    "structure_context",
    "structure_mcp_servers",
    "structure_script",
    "structure_step",
    "structure_tools_from",
]


def structure_mcp_servers(value: Any, _: Any) -> MCPServers:
    """``mcp_servers:``: each entry becomes a server whose tools (from its saved
    ``listing``, else listed now) can be named like any tool."""
    if not isinstance(value, Mapping):
        raise Invalid(
            f"expected a mapping of server names, got {describe_value(value)}",
            hint="mcp_servers: {git: {command: mcp-server-git}}",
        )
    design = importlib.import_module("statetools.mcp.design_servers")  # the optional mcp extra
    context = current()
    problems: list[Invalid] = []
    for name, config in value.items():
        try:
            server = design.server_from_config(str(name), config, context.base_dir)
            tools = design.listed_tools(server)
        except StatetoolsError as exc:
            problems.append(Invalid(exc.message, hint=exc.hint, at=(name,)))
            continue
        context.mcp_servers[str(name)] = server
        for tool in tools:
            if tool.name in context.catalogue:
                problems.append(
                    Invalid(
                        f"tool '{tool.name}' is offered twice",
                        hint="give one of the servers a prefix:",
                        at=(name,),
                    )
                )
            context.catalogue.setdefault(tool.name, tool)
    if problems:
        raise Several(problems)
    return MCPServers(context.mcp_servers)


def structure_tools_from(value: Any, _: Any) -> ToolsFrom:
    """A document's ``tools_from:``: a tools file's path or a list of them; each file's
    tools join the catalogue that tool names are looked up in (a problem in one file is
    reported with the others)."""
    single = isinstance(value, str)
    sources = [value] if single else value
    if not isinstance(sources, list | tuple):
        raise Invalid(f"expected a file path or a list of them, got {describe_value(value)}")
    context = current()
    problems: list[Invalid] = []
    paths: list[str] = []
    for index, source in enumerate(sources):
        at: tuple[int, ...] = () if single else (index,)
        if not isinstance(source, str):
            problems.append(Invalid(f"expected a file path, got {describe_value(source)}", at=at))
            continue
        paths.append(source)
        try:
            tools = load_tools_file(source, context.base_dir)
        except Several as exc:
            context.catalogue_complete = False
            problems.extend(Invalid(p.message, hint=p.hint, at=at) for p in exc.problems)
            continue
        except Invalid as exc:
            context.catalogue_complete = False
            problems.append(Invalid(exc.message, hint=exc.hint, at=at))
            continue
        for tool in tools:
            if tool.name in context.catalogue:
                problems.append(Invalid(f"tool '{tool.name}' is in two tools files", at=at))
            context.catalogue.setdefault(tool.name, tool)
    if problems:
        raise Several(problems)
    return ToolsFrom(paths)


def structure_step(value: Any, _: Any) -> Any:
    """A script step: ``answer: TEXT`` gives the text, ``call: {name, arguments}`` a
    ``(name, arguments)`` pair and ``calls: [...]`` a list of them (as
    :class:`~statetools.models.ScriptedModel` takes its steps)."""
    if not isinstance(value, Mapping) or len(value) != 1:
        raise Invalid(
            "a step is a mapping with one key: answer, call or calls",
            hint="e.g. '- answer: Done.' or '- call: {name: search, arguments: {q: x}}'",
        )
    form = fields_of(StepForm)(value, StepForm)
    if form.answer is not None:
        return form.answer
    if form.call is not None:
        return (form.call.name, dict(form.call.arguments))
    if form.calls:
        return [(call.name, dict(call.arguments)) for call in form.calls]
    raise Invalid("'calls' must not be empty", at=("calls",))


def structure_script(value: Any, _: Any) -> Script:
    """A document's ``script:``: steps, or the path of a script file (as
    :meth:`ScriptedModel.from_yaml` reads)."""
    if not isinstance(value, str):
        return Script(converter.structure(value, tuple[StepForm, ...]))
    path = Path(value)
    if not path.is_absolute():
        path = current().base_dir / path
    try:
        text = path.read_text(encoding="utf-8")
        check_size(len(text.encode("utf-8")), f"script file {value!r}")
        return Script(parse_script(load_yaml(text), where=value))
    except RefusedYaml as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise Invalid(f"cannot read script file {str(path)!r}: {reason}") from exc
    except yaml.YAMLError as exc:
        raise Invalid(f"script file {value!r} is not valid YAML: {shorten(str(exc))}") from exc
    except StatetoolsError as exc:
        messages = getattr(exc, "problems", ()) or (exc.message,)
        raise Several([Invalid(f"in script file {m}") for m in messages]) from exc


def structure_context(value: Any, _: Any) -> RunContext:
    """A document's ``context:``: a factory's import path, or a mapping of data."""
    if isinstance(value, Mapping):
        return RunContext(converter.structure(value, dict[str, Any]))
    if not isinstance(value, str):
        raise Invalid(
            f"expected an import path or a mapping, got {describe_value(value)}",
            hint="write 'context: myapp.demo:new_context' (a function returning a dict)",
        )
    found = import_cached(value)
    if not callable(found) and not isinstance(found, Mapping):
        raise Invalid(
            f"{value!r} is neither a function nor a mapping",
            hint="name a function that returns a fresh dict for every run",
        )
    return RunContext(found)


_HOOKS: list[tuple[Any, Any]] = [
    (StateName, state_name),
    (Names, tool_names),
    (TypeRef, structure_type_ref),
    (CallableRef, structure_callable_ref),
    (EnumRef, structure_enum_ref),
    (BaseTool, resolve_tool),
    (FacadeItem, structure_facade_item),
    (After, structure_after),
    (InState, structure_in_state),
    (When, structure_when),
    (Condition, structure_condition),
    (Condition | None, structure_optional_condition),
    (AgentForm, structure_agent),
    (EntryForm, structure_entry),
    (PlaybookTool, structure_playbook),
    (UnfoldingTool, structure_facade),
    (TransitionForm, structure_transition),
    (Transitions, structure_transitions),
    (StateToolForm, structure_state_tool),
    (StepForm, structure_step),
    (Script, structure_script),
    (MCPServers, structure_mcp_servers),
    (ToolsFrom, structure_tools_from),
    (RunContext, structure_context),
]
for _kind, _hook in _HOOKS:
    converter.register_structure_hook(_kind, _hook)
converter.register_structure_hook_func(is_machine, structure_machine)
converter.register_structure_hook_func(
    lambda kind: kind == tuple[Definition, ...], structure_definitions
)

configure_tagged_union(Definition, converter, tag_generator=kind_of, tag_name="kind")
converter.register_structure_hook(
    Definition, definition_hook(converter.get_structure_hook(Definition))
)
