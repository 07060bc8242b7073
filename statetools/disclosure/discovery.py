"""Entity discovery: ``@tool_provider`` objects in tool results become tools.

Each provider object found in a result (the value itself, or an item of a returned
list or tuple) adds its ``@llm_tool`` methods as ``{prefix}_{id}_{method}``. Names are
made safe for every provider (``[a-zA-Z0-9_-]``, at most 64 characters).
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import attrs

from statetools.tools.classes import ProviderSpec, provider_spec
from statetools.tools.decorators import marked_methods
from statetools.tools.tool import BaseTool, Tool, ToolMetadata

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


def object_id(obj: Any, attribute: str) -> str | NoId:
    """``obj``'s id: its ``attribute`` as text, called first when it is a method;
    :class:`NoId` (logged) when there is none.

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
    logger.warning("%s; its tools were not added", missing.reason)
    return missing


def provider_tools(obj: Any, spec: ProviderSpec, identifier: str) -> list[BaseTool]:
    """The tools of one provider object, bound to it."""
    tools: list[BaseTool] = []
    label = type(obj).__name__
    for attribute, method in marked_methods(type(obj)):
        name = provider_tool_name(spec.prefix, identifier, method.name or attribute)
        tool = Tool.from_function(
            getattr(obj, attribute),
            name=name,
            description=method.description,
            metadata=ToolMetadata(return_direct=method.return_direct, category=method.category),
        )
        tools.append(tool.with_note(f"For {label} {identifier}"))
    return tools
