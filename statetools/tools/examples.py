"""Example arguments generated from a JSON schema: deterministic, and valid against it.

Values written into the schema come first (``examples``, ``default``, ``const``,
``enum``), each used only when it is valid; then a value built from the type, its
bounds and formats, and the parameter's name (``email`` gets an address, ``url`` a
link, ``date`` a date). ``Param(..., example=...)``, pydantic's
``Field(examples=[...])`` and attrs/dataclass field ``metadata={"example": ...}`` all
write ``examples`` into the schema.

>>> example_arguments({"type": "object", "properties": {
...     "email": {"type": "string"}, "count": {"type": "integer", "minimum": 3}},
...     "required": ["email"]})
{'email': 'user@example.com', 'count': 3}
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from statetools.errors import DefinitionError

__all__ = ["example_arguments", "example_value"]

_MAX_DEPTH = 12
_FORMATS = {
    "date": "2024-01-31",
    "date-time": "2024-01-31T09:30:00Z",
    "time": "09:30:00",
    "email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "ipv4": "192.0.2.1",
    "hostname": "example.com",
}
_BY_NAME = (  # (word in the parameter's name, example); first match wins
    ("email", "user@example.com"),
    ("url", "https://example.com"),
    ("uri", "https://example.com"),
    ("date", "2024-01-31"),
    ("time", "09:30:00"),
    ("path", "docs/readme.md"),
    ("file", "readme.md"),
    ("owner", "octocat"),
    ("repo", "hello-world"),
    ("branch", "main"),
    ("query", "open bugs"),
    ("name", "Ada Lovelace"),
    ("title", "Fix the login page"),
    ("message", "Looks good to me"),
    ("body", "Looks good to me"),
    ("id", "12345"),
)


def _valid(schema: Mapping[str, Any], root: Mapping[str, Any], value: Any) -> bool:
    validator = _validator(json.dumps(root, sort_keys=True))
    if schema is not root:
        validator = validator.evolve(schema=schema)  # $refs still resolve against root
    return bool(validator.is_valid(value))


@functools.lru_cache(maxsize=256)
def _validator(root_text: str) -> Any:
    import jsonschema  # on first use

    root = json.loads(root_text)
    cls = jsonschema.validators.validator_for(root, default=jsonschema.Draft202012Validator)
    return cls(root)


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#"):
        return schema
    target: Any = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if part:
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {})
    rest = {k: v for k, v in schema.items() if k != "$ref"}
    return {**target, **rest}


def _string(schema: Mapping[str, Any], name: str) -> str:
    low = name.lower()
    fmt = schema.get("format")
    text = _FORMATS.get(fmt) if isinstance(fmt, str) else None
    if text is None:
        text = next((example for word, example in _BY_NAME if word in low), None)
    if text is None:
        text = f"example {name.replace('_', ' ')}".strip() if name else "example"
    lowest = int(schema.get("minLength", 0))
    highest = schema.get("maxLength")
    if len(text) < lowest:
        text = text + "x" * (lowest - len(text))
    if isinstance(highest, int) and len(text) > highest:
        text = text[:highest]
    return text


def _number(schema: Mapping[str, Any], integer: bool) -> int | float:
    low = schema.get("minimum")
    high = schema.get("maximum")
    above = schema.get("exclusiveMinimum")
    below = schema.get("exclusiveMaximum")
    value: float = 1 if integer else 1.5
    if low is not None:
        value = max(value, low)
    if above is not None and value <= above:
        value = above + 1 if integer else above + 0.5
    if high is not None:
        value = min(value, high)
    if below is not None and value >= below:
        value = below - 1 if integer else below - 0.5
    step = schema.get("multipleOf")
    if step:
        value = (value // step + (1 if value % step else 0)) * step
    if integer:
        return int(value)
    return float(value)


def _pick_type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        chosen = [k for k in kind if k != "null"] or kind
        return str(chosen[0]) if chosen else None
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return None


def _given(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[Any]:
    """Values the schema writes itself, in the order they are tried."""
    values: list[Any] = []
    if "const" in schema:
        values.append(schema["const"])
    examples = schema.get("examples")
    if isinstance(examples, list):
        values.extend(examples)
    if "example" in schema:  # OpenAPI's singular keyword
        values.append(schema["example"])
    if "default" in schema:
        values.append(schema["default"])
    enum = schema.get("enum")
    if isinstance(enum, list):
        values.extend(enum)
    return values


def example_value(
    schema: Mapping[str, Any], name: str = "", root: Mapping[str, Any] | None = None, depth: int = 0
) -> Any:
    """An example value for ``schema`` (``name``: the parameter's name, which picks
    realistic strings; ``root``: the document that ``$ref``s point into).

    >>> example_value({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2})
    ['a', 'a']
    """
    root = schema if root is None else root
    schema = _resolve(schema, root)
    for value in _given(schema, root):
        if _valid(schema, root, value):
            return value
    if depth > _MAX_DEPTH:
        return None
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or ():
            merged = {**{k: v for k, v in schema.items() if k != key}, **_resolve(branch, root)}
            value = example_value(merged, name, root, depth + 1)
            if _valid(schema, root, value):
                return value
    if schema.get("allOf"):
        merged = dict(schema)
        for part in merged.pop("allOf"):
            part = _resolve(part, root)
            properties = {**merged.get("properties", {}), **part.get("properties", {})}
            required = [*merged.get("required", []), *part.get("required", [])]
            merged = {**merged, **part, "properties": properties, "required": required}
        return example_value(merged, name, root, depth + 1)
    match _pick_type(schema):
        case "string":
            return _string(schema, name)
        case "integer":
            return _number(schema, integer=True)
        case "number":
            return _number(schema, integer=False)
        case "boolean":
            return True
        case "null":
            return None
        case "array":
            return _array(schema, name, root, depth)
        case "object":
            return _object(schema, root, depth)
    return _string(schema, name)


def _array(schema: Mapping[str, Any], name: str, root: Mapping[str, Any], depth: int) -> list[Any]:
    prefix = [example_value(item, name, root, depth + 1) for item in schema.get("prefixItems", [])]
    items = schema.get("items")
    item_schema = items if isinstance(items, Mapping) else {}
    count = max(int(schema.get("minItems", 1)), len(prefix))
    if isinstance(schema.get("maxItems"), int):
        count = min(count, int(schema["maxItems"]))
    singular = name[:-1] if name.endswith("s") else name
    values = list(prefix)
    while len(values) < count:
        value = example_value(item_schema, singular, root, depth + 1)
        if schema.get("uniqueItems") and value in values:
            value = _variant(value, len(values))
        values.append(value)
    return values[:count]


def _variant(value: Any, index: int) -> Any:
    if isinstance(value, str):
        return f"{value} {index + 1}"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + index
    return value


def _object(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    limit = schema.get("maxProperties")
    names = list(properties)
    if isinstance(limit, int) and len(names) > limit:
        names = [n for n in names if n in required] or names[:limit]
    result = {
        key: example_value(properties.get(key, {}), key, root, depth + 1)
        for key in [*names, *(r for r in required if r not in properties)]
    }
    extra = schema.get("additionalProperties")
    wanted = int(schema.get("minProperties", 0))
    while len(result) < wanted:
        extra_schema = extra if isinstance(extra, Mapping) else {}
        result[f"key{len(result) + 1}"] = example_value(extra_schema, "value", root, depth + 1)
    return result


def example_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Example arguments for a tool's input ``schema``: a dict that is valid against it,
    the same on every call.

    Every property is filled (optional ones too, so the example shows the whole
    structure); when that is not valid (say ``maxProperties``), only the required
    ones. A schema no example can satisfy raises :class:`~statetools.DefinitionError`.

    >>> example_arguments({"type": "object", "properties": {
    ...     "state": {"type": "string", "enum": ["open", "closed"], "default": "closed"},
    ...     "labels": {"type": "array", "items": {"type": "string"}, "examples": [["bug"]]}}})
    {'state': 'closed', 'labels': ['bug']}
    """
    value = example_value(schema)
    if isinstance(value, dict) and _valid(schema, schema, value):
        return value
    required = {k: v for k, v in (value or {}).items() if k in (schema.get("required") or ())}
    if isinstance(value, dict) and _valid(schema, schema, required):
        return required
    raise DefinitionError(
        "no example arguments satisfy this schema",
        path=json.dumps(schema, sort_keys=True)[:120],
        hint="add examples to the schema (Param(..., example=...) or 'examples': [...])",
    )
