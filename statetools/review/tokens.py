"""Token counts of tool definitions, offline, with the o200k_base encoding.

What is counted is the JSON text an SDK puts on the wire for the ``tools`` of a
request (compact separators, non-ASCII kept as is, keys in the order the adapters
write them):

* ``"openai"``: each tool as a Chat Completions function tool,
  ``{"type":"function","function":{"name":...,"description":...,"parameters":{...}}}``;
* ``"anthropic"``: each tool as a Messages API tool,
  ``{"name":...,"description":...,"input_schema":{...}}``.

A set of tools is counted as the JSON array of those entries, as it is sent. The
providers turn the array into their own prompt format before the model reads it, so
these numbers measure the definitions, not the exact prompt: good for comparing
designs, an approximation of what is billed. Anthropic's tokenizer is not published;
its numbers here use o200k_base too.

The encoding ships inside the ``bpe-openai`` package (the same data file as
tiktoken's ``o200k_base``): nothing is downloaded, ever.

>>> count_text("hello world")
2
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal, Protocol

from statetools.errors import StatetoolsError
from statetools.models.anthropic_wire import to_anthropic_tools
from statetools.models.base import ToolDefinition
from statetools.models.openai_chat import to_openai_tools

Provider = Literal["openai", "anthropic"]
"""Whose serialization of tool definitions is counted."""

PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
ENCODING = "o200k_base"
_CHUNK = 200_000
"""Characters encoded at once; longer texts are cut at tool boundaries."""


class Definition(Protocol):
    """What is counted of a tool: a :class:`~statetools.BaseTool`, or the
    ``ToolDefinition`` of a model request."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, Any]: ...


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@lru_cache(maxsize=1)
def _encoding() -> _Encoding:
    with warnings.catch_warnings():  # it reads its data with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai  # type: ignore[import-untyped]

        encoding: _Encoding = bpe_openai.get_encoding(ENCODING)
    return encoding


@lru_cache(maxsize=4096)
def count_text(text: str) -> int:
    """The number of o200k_base tokens in ``text`` (special tokens count as text).

    >>> count_text('{"name":"search"}')
    5
    """
    if len(text) <= _CHUNK:
        return len(_encoding().encode_ordinary(text))
    return sum(count_text(text[i : i + _CHUNK]) for i in range(0, len(text), _CHUNK))


def _provider(provider: Provider) -> Provider:
    if provider not in PROVIDERS:
        raise StatetoolsError(
            f"unknown provider {provider!r} for token counts",
            hint=f"use one of: {', '.join(PROVIDERS)}",
        )
    return provider


def wire_entries(
    tools: Iterable[Definition], provider: Provider = "openai"
) -> list[dict[str, Any]]:
    """The ``tools`` entries of a request for ``provider``, as the adapters build them.

    >>> from statetools.tools.tool import Tool
    >>> ping = Tool.create("ping", "Ping.", lambda: "pong")
    >>> wire_entries([ping], "anthropic")[0]["name"]
    'ping'
    """
    definitions = [ToolDefinition(t.name, t.description, t.input_schema) for t in tools]
    if _provider(provider) == "openai":
        return to_openai_tools(definitions)
    return to_anthropic_tools(definitions)


def wire_json(value: Any) -> str:
    """``value`` as the SDKs encode request bodies: compact, non-ASCII kept.

    >>> wire_json({"a": [1, "é"]})
    '{"a":[1,"é"]}'
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_text(tool: Definition, provider: Provider = "openai") -> str:
    """The exact JSON text counted for one tool.

    >>> from statetools.tools.tool import Tool
    >>> tool_text(Tool.create("ping", "Ping.", lambda: "pong"))
    '{"type":"function","function":{"name":"ping","description":"Ping.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}}}'
    """
    return wire_json(wire_entries([tool], provider)[0])


def tool_tokens(tool: Definition, provider: Provider = "openai") -> int:
    """Tokens of one tool's definition (its entry of the ``tools`` array).

    >>> from statetools.tools.tool import Tool
    >>> tool_tokens(Tool.create("ping", "Ping.", lambda: "pong"))
    34
    """
    return count_text(tool_text(tool, provider))


def entry_texts(tools: Iterable[Definition], provider: Provider = "openai") -> list[str]:
    """The JSON text of each tool's entry in the ``tools`` array."""
    return [wire_json(entry) for entry in wire_entries(tools, provider)]


def array_tokens(texts: Sequence[str]) -> int:
    """Tokens of a JSON array of entries given as text (0 for none)."""
    if not texts:
        return 0
    text = f"[{','.join(texts)}]"
    if len(text) <= _CHUNK:
        return count_text(text)
    return _count_in_pieces(texts)


def tools_tokens(tools: Sequence[Definition], provider: Provider = "openai") -> int:
    """Tokens of the ``tools`` array holding ``tools`` (0 for no tools).

    Boundaries between entries may merge into shared tokens, so this can be a little
    less than the sum of :func:`tool_tokens` (in the example below, it is not).

    >>> def add(a: int, b: int) -> int:
    ...     "Add two numbers."
    ...     return a + b
    >>> def negate(a: int) -> int:
    ...     "Negate a number."
    ...     return -a
    >>> import statetools as st
    >>> tools = [st.Tool.from_function(add), st.Tool.from_function(negate)]
    >>> tools_tokens(tools), tool_tokens(tools[0]) + tool_tokens(tools[1]), tools_tokens([])
    (97, 97, 0)
    """
    return array_tokens(entry_texts(tools, provider))


def _count_in_pieces(entries: Sequence[str]) -> int:
    """Count a long array in pieces cut between entries (off by a token per cut)."""
    total = 0
    piece: list[str] = []
    size = 0
    for entry in entries:
        if piece and size + len(entry) > _CHUNK:
            total += count_text(",".join(piece))
            piece, size = [], 0
        piece.append(entry)
        size += len(entry) + 1
    return total + count_text(",".join(piece)) + 1
