"""Entity discovery: ``@tool_provider`` objects in tool results become tools.

Each provider object found in a result (the value itself, or an item of a returned
list or tuple) adds its ``@llm_tool`` methods as ``{prefix}_{id}_{method}``. Names are
made safe for every provider (``[a-zA-Z0-9_-]``, at most 64 characters).
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import re
import sys
from collections.abc import Callable
from typing import Any

import attrs

from statetools.errors import DefinitionError
from statetools.tools.decorators import ProviderSpec, marked_methods, provider_spec
from statetools.tools.tool import BaseTool, Tool, ToolMetadata
from statetools.tools.typeschema import json_default, type_schema

logger = logging.getLogger("statetools.discovery")

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
MAX_NAME = 64


def safe_part(text: str) -> str:
    """``text`` with every run of characters providers reject replaced by ``_``.

    >>> safe_part("c-1/ä b")
    'c-1_b'
    """
    return _UNSAFE.sub("_", text).strip("_") or "_"


def provider_tool_name(prefix: str, entity_id: str, method: str) -> str:
    """``{prefix}_{id}_{method}``, safe and at most 64 characters (a long id is cut and
    marked with a short hash of the whole id, so names stay distinct).

    >>> provider_tool_name("customer", "c 1", "recent_orders")
    'customer_c_1_recent_orders'
    >>> len(provider_tool_name("order", "x" * 100, "cancel"))
    64
    """
    head, tail = safe_part(prefix), safe_part(method)
    middle = safe_part(entity_id)
    name = f"{head}_{middle}_{tail}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(entity_id.encode()).hexdigest()[:8]
    room = max(MAX_NAME - len(head) - len(tail) - len(digest) - 2, 1)
    return f"{head}_{middle[:room]}{digest}_{tail}"[:MAX_NAME]


def template_name(spec: ProviderSpec, method: str) -> str:
    """The shape of a provider's tool names in diagrams: ``customer_<id>_recent_orders``."""
    return f"{safe_part(spec.prefix)}_<{spec.id_attribute}>_{safe_part(method)}"


def providers_in(value: Any) -> list[tuple[Any, ProviderSpec]]:
    """The provider objects in a result value: the value itself or items of a list/tuple."""
    items = value if isinstance(value, list | tuple) else (value,)
    found = []
    for item in items:
        spec = provider_spec(type(item))
        if spec is not None:
            found.append((item, spec))
    return found


@attrs.frozen
class NoId:
    """Why a provider object has no id (its tools are not added).

    >>> NoId("Box.key is None").reason
    'Box.key is None'
    """

    reason: str


def entity_id(obj: Any, spec: ProviderSpec) -> str | NoId:
    """The id of a provider object as text: its ``id_attribute``, called first when it
    is a method; :class:`NoId` (logged) when there is none.

    >>> @tool_provider(id_attribute="key")
    ... class Box:
    ...     def key(self) -> str:
    ...         return "b1"
    ...     @llm_tool("Open the box.")
    ...     def open(self) -> str:
    ...         return "open"
    >>> entity_id(Box(), provider_spec(Box))
    'b1'
    """
    return object_id(obj, spec.id_attribute)


def object_id(
    obj: Any, attribute: str, consequence: str | None = "its tools were not added"
) -> str | NoId:
    """``obj``'s id: its ``attribute`` as text, called first when it is a method;
    :class:`NoId` when there is none (logged with ``consequence``, unless None).

    >>> class Repo:
    ...     id = "r1"
    >>> object_id(Repo(), "id"), object_id(Repo(), "name")
    ('r1', NoId(reason='Repo.name is None'))
    """
    label = type(obj).__name__
    try:
        value = getattr(obj, attribute, None)
        if callable(value):
            value = value()
    except Exception as exc:
        missing = NoId(f"{label}.{attribute} failed: {type(exc).__name__}: {exc}")
    else:
        if value is None:
            missing = NoId(f"{label}.{attribute} is None")
        else:
            return str(value)
    if consequence is not None:
        logger.warning("%s; %s", missing.reason, consequence)
    return missing


def provider_tools(obj: Any, spec: ProviderSpec, identifier: str) -> list[BaseTool]:
    """The tools of one provider object, bound to it (see :func:`lenient_tool` for a
    method whose annotations cannot be resolved)."""
    tools: list[BaseTool] = []
    label = type(obj).__name__
    for attribute, method in marked_methods(type(obj)):
        name = provider_tool_name(spec.prefix, identifier, method.name or attribute)
        metadata = ToolMetadata(return_direct=method.return_direct, category=method.category)
        tool = lenient_tool(getattr(obj, attribute), name, method.description, metadata)
        tools.append(tool.with_note(f"For {label} {identifier}"))
    return tools


def lenient_tool(
    fn: Callable[..., Any],
    name: str | None = None,
    description: str | None = None,
    metadata: ToolMetadata | None = None,
) -> BaseTool:
    """``Tool.from_function(fn, ...)``; when annotations of ``fn`` cannot be resolved
    (an import under ``TYPE_CHECKING``), the parameters whose annotation cannot be read
    take strings instead, and a warning says so. A tool found in a result at run time
    then works, and the call that returned its object keeps its answer.

    >>> class Box:
    ...     @llm_tool("Open the box.")
    ...     def open(self, force: "Unknown", times: "int" = 1) -> str:
    ...         return f"opened {times}x with {force}"
    >>> tool = lenient_tool(Box().open, "box_open")
    >>> tool.input_schema["properties"]
    {'force': {'type': 'string'}, 'times': {'type': 'integer', 'default': 1}}
    >>> tool.call({"force": "hard"}).text
    'opened 1x with hard'
    """
    try:
        return Tool.from_function(fn, name=name, description=description, metadata=metadata)
    except DefinitionError as error:
        if not isinstance(error.__cause__, NameError | AttributeError | SyntaxError | TypeError):
            raise
        problem = error
    spec = getattr(fn, "__llm_tool__", None)
    tool_name = str(name or getattr(spec, "name", None) or getattr(fn, "__name__", "tool"))
    if description is None:
        description = getattr(spec, "description", None)
    properties: dict[str, Any] = {}
    required: list[str] = []
    unread: list[str] = []
    scope = vars(sys.modules.get(getattr(fn, "__module__", "") or "", sys))
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        prop = _parameter_schema(parameter, scope)
        if prop is None:
            unread.append(parameter.name)
            prop = {"type": "string"}
        if parameter.default is parameter.empty:
            required.append(parameter.name)
        else:
            shown, value = json_default(parameter.default)
            if shown:
                prop = {**prop, "default": value}
        properties[parameter.name] = prop
    logger.warning(
        "%s: the annotations of %s cannot be resolved (%s); the model sends them as strings",
        tool_name,
        ", ".join(unread) or "its return value",
        problem.__cause__,
    )

    def call(**arguments: Any) -> Any:
        return fn(**arguments)

    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    text = str(description or getattr(fn, "__doc__", None) or tool_name)
    return Tool.create(tool_name, text, call, schema=schema, metadata=metadata)


def _parameter_schema(parameter: inspect.Parameter, scope: dict[str, Any]) -> Any:
    """The schema of one parameter from its own annotation, or None if it cannot be read."""
    annotation = parameter.annotation
    if annotation is parameter.empty:
        return {}
    try:
        for _ in range(3):  # a quoted annotation under `from __future__ import annotations`
            if isinstance(annotation, str):
                annotation = eval(annotation, dict(scope))  # as get_type_hints does, one by one
        return type_schema(annotation)
    except Exception:
        return None
