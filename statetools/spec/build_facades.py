"""Hooks that build facades from their forms.

A facade written in YAML is built with the ``UnfoldingTool`` builders (``of``,
``by_category``, ``searchable``), or over an MCP server's tools with ``mcp:``. Each
problem is reported at the path of the key that caused it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statetools.definitions.unfolding import UnfoldingTool
from statetools.errors import StatetoolsError
from statetools.spec.build import kind_of
from statetools.spec.forms import FacadeForm
from statetools.spec.nesting import NESTABLE, held_definitions
from statetools.spec.problems import Invalid, Several
from statetools.spec.resolve import current
from statetools.spec.values import fields_of


def _mcp_facade(form: FacadeForm) -> UnfoldingTool:
    """A facade over the tools of an ``mcp_servers:`` entry."""
    _no_definitions(form, "it opens its MCP server's tools", "name it in another facade")
    servers = current().mcp_servers
    server = servers.get(str(form.mcp))
    if server is None:
        raise Invalid(
            f"no MCP server '{form.mcp}'",
            hint=f"servers under mcp_servers: {', '.join(servers) or 'none'}",
            at=("mcp",),
        )
    if form.by not in (None, "annotations"):
        raise Invalid(f"unknown by {form.by!r}", hint="use 'by: annotations'", at=("by",))
    if form.by is not None and form.categories is not None:
        raise Invalid("give 'by' or 'categories', not both", at=("by",))
    by: Any = form.by if form.categories is None else form.categories
    search: dict[str, Any] = {}
    if form.search is not None:
        search = {"search": True, "max_results": form.search.max_results}
    try:
        facade: UnfoldingTool = server.facade(
            form.description,
            by=by,
            name=form.name,
            tools=_names(form) or None,
            usage_notes=form.usage_notes,
            exclusive=form.exclusive,
            **search,
        )
    except StatetoolsError as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc
    return facade


def build_facade(form: FacadeForm) -> UnfoldingTool:
    """The facade a form describes: ``UnfoldingTool.of`` without categories; with them,
    the by-category facade ``UnfoldingTool.by_category`` makes; with ``mcp``, a facade
    over an MCP server's tools."""
    if form.mcp is not None:
        return _mcp_facade(form)
    if form.by is not None:
        raise Invalid("'by' needs 'mcp'", hint="by: annotations groups an MCP server's tools")
    options: dict[str, Any] = {"usage_notes": form.usage_notes, "exclusive": form.exclusive}
    if form.search is None:
        _no_definitions(
            form,
            "only a search facade holds in-loop playbooks and machines",
            "add 'search: {}' to the facade, or give the definition 'agent: {model: ...}' "
            "to run it as an agentic tool",
        )
    try:
        if form.search is not None:
            return _search_facade(form)
        if form.categories is None:
            if form.category_parameter is not None:
                raise Invalid(
                    "category_parameter needs categories",
                    hint="add 'categories: {name: [tools]}' or remove category_parameter",
                    at=("category_parameter",),
                )
            return UnfoldingTool.of(form.name, form.description, form.tools, **options)
        names = _names(form)
        problems = [
            Invalid(
                f"'{name}' is not a tool of this facade",
                hint="categories list names of tools under the facade's 'tools'",
                at=("categories", category, index),
            )
            for category, members in form.categories.items()
            for index, name in enumerate(members)
            if name not in names
        ]
        if problems:
            raise Several(problems)
        listed = {name for members in form.categories.values() for name in members}
        everywhere = {name for name in names if name not in listed}
        pairs = [
            (category, [n for n in names if n in members or n in everywhere])
            for category, members in form.categories.items()
        ]
        return UnfoldingTool(
            name=form.name,
            description=form.description,
            inner=form.tools,
            category_parameter=form.category_parameter or "category",
            categories=pairs,
            **options,
        )
    except StatetoolsError as exc:
        raise Invalid(exc.message, hint=exc.hint) from exc


def _names(form: FacadeForm) -> list[str]:
    """The names of a facade's items (tools, playbooks and machines)."""
    return [str(getattr(item, "name", "")) for item in form.tools]


def _no_definitions(form: FacadeForm, reason: str, hint: str) -> None:
    """Refuse the in-loop playbooks and machines among ``form``'s tools (all of them in
    an MCP facade), each at its item: ``reason`` says why, ``hint`` what to do."""
    problems = [
        Invalid(
            f"{kind_of(type(item))} '{item.name}' cannot go in this facade: {reason}",
            hint=hint,
            at=("tools", index),
        )
        for index, item in held_definitions(form.tools)
        if item.agent.model is None or form.mcp is not None
    ]
    if problems:
        raise Several(problems)


def _beside_design(path: str | None) -> str | None:
    """A path the design gives, relative to the design's folder."""
    if path is None:
        return None
    return str(current().base_dir / path)


def _search_facade(form: FacadeForm) -> UnfoldingTool:
    """A search facade: categories and exclusive do not go with ``search``."""
    for key, value in (("categories", form.categories), ("exclusive", form.exclusive or None)):
        if value is not None:
            raise Invalid(
                f"a search facade cannot have {key}",
                hint="the model searches a search facade; remove " + key + " or search",
                at=(key,),
            )
    assert form.search is not None
    asked = form.search.example_requests
    return UnfoldingTool.searchable(
        form.name,
        form.description,
        form.tools,
        max_results=form.search.max_results,
        usage_notes=form.usage_notes,
        ranker=form.search.ranker,
        keywords=dict(form.search.keywords),
        vectors=_beside_design(form.search.vectors),
        example_requests=_beside_design(asked) if isinstance(asked, str) else dict(asked),
    )


def structure_facade(value: Any, _: Any) -> UnfoldingTool:
    """A facade from its mapping (``kind: facade`` is allowed inline, and ignored)."""
    facades = current().nesting.facades
    if isinstance(value, Mapping) and "kind" in value:
        kind = value["kind"]
        if kind != "facade":
            hint = "define playbooks and machines under 'definitions:'"
            if kind in ("sections", "skills"):
                hint = f"define {kind} under 'definitions:' (kind: {kind})"
            elif kind in NESTABLE and facades and facades[-1]:  # in a facade's tools
                hint = f"define the {kind} under 'definitions:' and write its name here"
            raise Invalid(
                f"only a facade can be written inline where a tool goes, not {kind!r}",
                hint=hint,
                at=("kind",),
            )
        value = {key: item for key, item in value.items() if key != "kind"}
    if isinstance(value, Mapping) and isinstance(value.get("mcp"), str):
        server = value["mcp"]
        value = {
            "name": server,
            "description": f"Open the tools of the {server} MCP server",
            **value,
        }
    name = value.get("name") if isinstance(value, Mapping) else None
    facades.append(name if isinstance(name, str) else "?")
    try:
        form = fields_of(FacadeForm)(value, FacadeForm)
    finally:
        facades.pop()
    return build_facade(form)
