"""Writing definitions as YAML that loads back to equal definitions: :func:`dump_playbook`.

Tools are written by import path when their handler (or the tool object itself) can
be imported again, else by name (load the text with ``tools=[...]`` then).
Schema-only tools are written by name, with their tools file under ``tools_from``.
Types, ``when`` predicates and transition guards are written by import path; one that
cannot be imported (a lambda, a class defined inside a function) is an error, as is
an agentic definition's model (attach models in Python).

>>> from statetools import PlaybookTool, Tool
>>> search = Tool.create("search", "Search", lambda q: q)
>>> print(dump_playbook(PlaybookTool("p", "Find things").with_tools(search)), end="")
kind: playbook
name: p
description: Find things
tools:
  - search
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from statetools.code.mode import CodeMode
from statetools.definitions.conditions import (
    After,
    AllOf,
    AnyOf,
    Condition,
    InState,
    OnArtifact,
    OnBlackboard,
    When,
)
from statetools.definitions.items import as_tool
from statetools.definitions.machine import StateMachineTool, Transition
from statetools.definitions.playbook import AgentOptions, PlaybookTool
from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import SpecError
from statetools.sections import Sections
from statetools.spec.code_kind import code_mode_data
from statetools.spec.design import Design
from statetools.spec.dump_facades import facade_data, with_held
from statetools.spec.forms import is_yaml_enum
from statetools.spec.references import SchemaOnlyTool, import_path_of
from statetools.spec.section_kinds import sections_data
from statetools.spec.source import plain, yaml_text
from statetools.tools.tool import BaseTool, Tool


class _Writer:
    """Turns definitions into plain data, remembering the tools files they need."""

    def __init__(self, relative_to: Path | None) -> None:
        self.relative_to = relative_to
        self.tools_from: dict[str, None] = {}
        self.by_path: dict[str, BaseTool] = {}
        """Tools written by import path, by name: later mentions write the name."""
        self.held: list[dict[str, Any]] = []
        """Playbooks and machines that facades hold, written so far."""

    # references -------------------------------------------------------------------

    def _path(self, value: Any, what: str, where: str) -> str:
        path = import_path_of(value)
        if path is None:
            raise SpecError(
                f"{what} {value!r} cannot be written: it has no import path",
                path=where,
                hint="define it at module level so 'module:attribute' finds it",
            )
        return path

    def _file(self, tool: SchemaOnlyTool) -> str:
        location = Path(tool.location) if tool.location else Path(tool.source)
        if self.relative_to is not None and location.is_absolute():
            try:
                return os.path.relpath(location, self.relative_to)
            except ValueError:  # another drive on Windows
                return str(location)
        return str(location)

    def tool(self, tool: BaseTool) -> Any:
        """A tool reference: the import path the first time (if one finds this very tool
        again), its name after that and otherwise; a facade is written inline."""
        if isinstance(tool, UnfoldingTool):
            return self.facade(tool, inline=True)
        if isinstance(tool, SchemaOnlyTool):
            self.tools_from[self._file(tool)] = None
            return tool.name
        written = self.by_path.get(tool.name)
        if written is not None and (written is tool or written == tool):
            return tool.name
        path = self._import_path(tool)
        if path is None:
            return tool.name
        self.by_path.setdefault(tool.name, tool)
        return path

    def _import_path(self, tool: BaseTool) -> str | None:
        if isinstance(tool, Tool):
            path = import_path_of(tool.handler)
            if path is not None and _as_tool_or_none(tool.handler) == tool:
                return path
            module_name = getattr(tool.handler, "__module__", None)
            module = sys.modules.get(module_name) if isinstance(module_name, str) else None
            if module is not None and module_name != "__main__":
                for name, value in vars(module).items():
                    if value is tool:
                        return f"{module_name}:{name}"
        return None

    # conditions -------------------------------------------------------------------

    def condition(self, condition: Condition, where: str) -> Any:
        """A condition in its shortest form that loads back to an equal condition."""
        match condition:
            case After(tools=tools, count=1):
                return tools[0] if len(tools) == 1 else list(tools)
            case After(tools=tools, count=count):
                return {"after": {"tools": list(tools), "count": count}}
            case AllOf(conditions=parts):
                return {"all_of": [self.condition(p, where) for p in parts]}
            case AnyOf(conditions=parts):
                return {"any_of": [self.condition(p, where) for p in parts]}
            case OnArtifact(type=kind):
                return {"on_artifact": self._path(kind, "type", where)}
            case OnBlackboard(type=kind):
                return {"on_blackboard": self._path(kind, "type", where)}
            case InState(machine=machine, state=state):
                return {"in_state": {"machine": machine, "state": state}}
            case When(predicate=predicate, label=label):
                path = self._path(predicate, "predicate", where)
                if label == getattr(predicate, "__name__", None):
                    return {"when": path}
                return {"when": {"predicate": path, "label": label}}
        raise SpecError(f"not a condition: {condition!r}", path=where)

    # definitions ------------------------------------------------------------------

    def agent(self, options: AgentOptions, where: str) -> dict[str, Any] | None:
        if options.model is not None and not isinstance(options.model, str):
            raise SpecError(
                "an agentic definition's model cannot be written to YAML",
                path=where,
                hint="dump definition.with_model(None) and name the model in the file "
                "(agent: {model: 'openai:gpt-4o-mini'}) or attach it after loading",
            )
        if options == AgentOptions():
            return None
        data: dict[str, Any] = {}
        if options.model is not None:
            data["model"] = options.model
        if callable(options.system_prompt):
            raise SpecError(
                "a system prompt given as a function cannot be written to YAML",
                path=f"{where}.system_prompt",
                hint="dump the definition with a text system prompt, or set the function "
                "after loading (.with_system_prompt(fn))",
            )
        if options.system_prompt is not None:
            data["system_prompt"] = options.system_prompt
        if options.max_iterations != AgentOptions().max_iterations:
            data["max_iterations"] = options.max_iterations
        if options.parameters:
            data["parameters"] = [
                {"name": p.name, "schema": plain(p.schema), "required": p.required}
                for p in options.parameters
            ]
        return data

    def playbook(self, playbook: PlaybookTool) -> dict[str, Any]:
        where = f"playbook '{playbook.name}'"
        entries: list[Any] = []
        for entry in playbook.entries:
            ref = self.tool(entry.tool)
            item: dict[str, Any] = {"tool": ref}
            if entry.condition is not None:
                item["unlocked_by"] = self.condition(
                    entry.condition, f"{where}, tool '{entry.tool.name}'"
                )
            item.update(_timeout(entry.tool))
            entries.append(ref if list(item) == ["tool"] and not isinstance(ref, dict) else item)
        data: dict[str, Any] = {
            "kind": "playbook",
            "name": playbook.name,
            "description": playbook.description,
        }
        if entries:
            data["tools"] = entries
        agent = self.agent(playbook.agent, where)
        if agent is not None:
            data["agent"] = agent
        return data

    def _transition(self, transition: Transition, where: str) -> Any:
        if transition.guard is None and transition.label is None:
            return transition.target
        data: dict[str, Any] = {"state": transition.target}
        if transition.guard is not None:
            data["when"] = self._path(transition.guard, "guard", where)
        if transition.label is not None:
            data["label"] = transition.label
        return data

    def _state_tools(self, machine: StateMachineTool[Any], state: str) -> list[Any]:
        where = f"machine '{machine.name}', state {state}"
        by_name = {tool.name: tool for tool in machine.tools}
        items: list[Any] = []
        for name, in_state in machine.availability:
            if in_state != state:
                continue
            ref = self.tool(by_name[name])
            transitions = [
                self._transition(t, where)
                for t in machine.transitions
                if t.source == state and t.tool == name
            ]
            item: dict[str, Any] = {"tool": ref}
            if transitions:
                item["transitions_to"] = transitions[0] if len(transitions) == 1 else transitions
            item.update(_timeout(by_name[name]))
            items.append(ref if list(item) == ["tool"] and not isinstance(ref, dict) else item)
        return items

    def machine(self, machine: StateMachineTool[Any]) -> dict[str, Any]:
        where = f"machine '{machine.name}'"
        data: dict[str, Any] = {
            "kind": "machine",
            "name": machine.name,
            "description": machine.description,
        }
        visited = list(dict.fromkeys(state for _, state in machine.availability))
        if is_yaml_enum(machine.states):
            order = machine.state_names
        else:
            data["enum"] = self._path(machine.states, "state enum", where)
            order = visited
        if machine.initial is not None:
            data["initial"] = machine.initial
        data["states"] = {
            state: ({"tools": tools} if (tools := self._state_tools(machine, state)) else {})
            for state in order
        }
        by_name = {tool.name: tool for tool in machine.tools}
        if machine.global_tools:
            data["global_tools"] = [self.tool(by_name[name]) for name in machine.global_tools]
        if machine.final_states:
            data["final_states"] = list(machine.final_states)
        agent = self.agent(machine.agent, where)
        if agent is not None:
            data["agent"] = agent
        return data

    def facade(self, facade: UnfoldingTool, *, inline: bool = False) -> dict[str, Any]:
        """A facade (see :func:`~statetools.spec.dump_facades.facade_data`)."""
        return facade_data(facade, self, inline=inline)

    def definition(self, definition: Any) -> dict[str, Any]:
        if isinstance(definition, PlaybookTool):
            return self.playbook(definition)
        if isinstance(definition, StateMachineTool):
            return self.machine(definition)
        if isinstance(definition, UnfoldingTool):
            return self.facade(definition)
        if isinstance(definition, Sections):
            return sections_data(definition, self)
        if isinstance(definition, CodeMode):
            return code_mode_data(definition, self)
        raise SpecError(
            f"cannot write {type(definition).__name__} as a definition",
            hint="dump_playbook writes playbooks, state machines, facades, sections, skills "
            "and code modes",
        )

    def definitions(self, definitions: Sequence[Any]) -> list[dict[str, Any]]:
        """Each definition, followed by the playbooks and machines its facades hold."""
        written: list[dict[str, Any]] = []
        for definition in definitions:
            written.append(self.definition(definition))
            written.extend(self.held)
            self.held.clear()
        return with_held(written)

    def script(self, steps: Sequence[Any]) -> list[Any]:
        written: list[Any] = []
        for index, step in enumerate(steps):
            if isinstance(step, str):
                written.append({"answer": step})
            elif isinstance(step, tuple) and len(step) == 2:
                written.append({"call": {"name": step[0], "arguments": plain(step[1])}})
            elif isinstance(step, list):
                calls = [{"name": n, "arguments": plain(a)} for n, a in step]
                written.append({"calls": calls})
            else:
                raise SpecError(
                    f"script step {index + 1} cannot be written to YAML: {step!r}",
                    hint="only answers and tool calls can be written",
                )
        return written


def _timeout(tool: BaseTool) -> dict[str, float]:
    """``{"timeout": seconds}`` for a tool with its own timeout, else nothing."""
    seconds = tool.metadata.timeout
    return {} if seconds is None else {"timeout": seconds}


def _as_tool_or_none(value: Any) -> BaseTool | None:
    try:
        return as_tool(value)
    except Exception:
        return None


def to_data(value: Any, *, relative_to: str | os.PathLike[str] | None = None) -> Any:
    """The plain data :func:`dump_playbook` writes (a dict), for JSON or further editing.

    >>> search = Tool.create("search", "Search the web", lambda query: "found")
    >>> to_data(PlaybookTool("research", "Research").with_tool(search))
    {'kind': 'playbook', 'name': 'research', 'description': 'Research', 'tools': ['search']}
    """
    writer = _Writer(Path(relative_to) if relative_to is not None else None)
    head: dict[str, Any] = {}
    if isinstance(value, Design):
        body: dict[str, Any] = {"definitions": writer.definitions(value.definitions)}
        for key in ("prompt", "system_prompt"):
            if getattr(value, key) is not None:
                body[key] = getattr(value, key)
        if value.script is not None:
            body["script"] = writer.script(value.script)
        if isinstance(value.context, Mapping):
            body["context"] = plain(value.context)
        elif value.context is not None:
            body["context"] = writer._path(value.context, "context factory", "context")
    elif isinstance(value, list | tuple):
        body = {"definitions": writer.definitions(value)}
    else:
        body = writer.definition(value)
        if writer.held:  # the definitions its facades hold go beside it
            body = {"definitions": with_held([body, *writer.held])}
    if writer.tools_from:
        head["tools_from"] = list(writer.tools_from)
    return {**head, **body}


def dump_playbook(value: Any, *, relative_to: str | os.PathLike[str] | None = None) -> str:
    """YAML text for a definition, a list of definitions, or a :class:`Design`.

    ``load_playbook(dump_playbook(d), tools=...)`` equals ``d``. Schema-only tools'
    files are written as full paths, or relative to ``relative_to`` (the folder the
    YAML will be saved in). Raises :class:`~statetools.SpecError` for what YAML
    cannot hold (lambdas, local classes, models).

    >>> def search(query: str) -> str:
    ...     '''Search the web.'''
    ...     return "found"
    >>> research = PlaybookTool("research", "Research a topic").with_tool(search)
    >>> print(dump_playbook(research), end="")
    kind: playbook
    name: research
    description: Research a topic
    tools:
      - search
    >>> load_playbook(dump_playbook(research), tools=[search]) == research
    True
    """
    data = to_data(value, relative_to=relative_to)
    return yaml_text(data)
