"""The cattrs converter that reads the YAML/dict format into definitions.

One converter with ``forbid_extra_keys`` and ``detailed_validation`` (made in
:mod:`statetools.spec.values`): every problem of a file comes back in one error tree
whose notes give each problem's path. This module registers the hooks:

- plain values, lists, mappings and forms (:mod:`~statetools.spec.values`);
- references resolved while structuring: tools, import paths, state names and
  conditions (:mod:`~statetools.spec.resolve`);
- definitions built from their forms with the Python builders
  (:mod:`~statetools.spec.build`, facades in :mod:`~statetools.spec.build_facades`),
  and a document's own keys (:mod:`~statetools.spec.document`);
- a tagged union on ``kind`` for definitions (cattrs' ``configure_tagged_union``),
  wrapped so that a missing or unknown ``kind`` gets a clear message.
"""

from __future__ import annotations

from typing import Any

from cattrs.strategies import configure_tagged_union

from statetools.definitions.conditions import After, Condition, InState, When
from statetools.definitions.playbook import PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
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
from statetools.spec.document import (
    structure_context,
    structure_mcp_servers,
    structure_script,
    structure_step,
    structure_tools_from,
)
from statetools.spec.forms import (
    AgentForm,
    CallableRef,
    Definition,
    EntryForm,
    EnumRef,
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
from statetools.spec.resolve import (
    ReadContext,
    current,
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
from statetools.spec.values import converter
from statetools.tools.tool import BaseTool

__all__ = ["ReadContext", "converter", "current", "declared_states", "reading"]

_HOOKS: list[tuple[Any, Any]] = [
    (StateName, state_name),
    (Names, tool_names),
    (TypeRef, structure_type_ref),
    (CallableRef, structure_callable_ref),
    (EnumRef, structure_enum_ref),
    (BaseTool, resolve_tool),
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

configure_tagged_union(Definition, converter, tag_generator=kind_of, tag_name="kind")
converter.register_structure_hook(
    Definition, definition_hook(converter.get_structure_hook(Definition))
)
