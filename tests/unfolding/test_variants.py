"""By-category and selectable facades, and facades across a resumed run."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import statetools as st
from statetools.models import ScriptedModel


def tool(name: str) -> st.Tool:
    return st.Tool.create(name, f"The {name} tool.", lambda: f"{name} done")


def files(**options: Any) -> st.UnfoldingTool:
    return st.UnfoldingTool.by_category(
        "files",
        "Open the file tools.",
        {"read": [tool("read_file")], "write": [tool("write_file")], None: [tool("stat")]},
        usage_notes="Paths are relative to the project.",
        **options,
    )


def tool_texts(result: st.LoopResult) -> list[tuple[str, bool]]:
    return [(m.content, m.is_error) for m in result.messages if isinstance(m, st.ToolMessage)]


def test_by_category_asks_for_a_valid_category_then_opens_it() -> None:
    model = ScriptedModel(
        [
            ("files", {}),
            ("files", {"category": "delete"}),
            ("files", {"category": "read"}),
            ("write_file", {}),
            ("files", {"category": "write"}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("go", tools=[files()])

    assert model.requests[0].tools[0].input_schema == {
        "type": "object",
        "properties": {
            "category": {
                "type": "string",
                "description": "Which tools to open",
                "enum": ["read", "write"],
            }
        },
        "required": ["category"],
        "additionalProperties": False,
    }
    assert [r.tool_names for r in model.requests] == [
        ["files"],
        ["files"],
        ["files"],
        ["files", "read_file", "stat"],
        ["files", "read_file", "stat"],
        ["read_file", "stat", "write_file"],
    ]
    notes = "\n\nPaths are relative to the project."
    assert tool_texts(result) == [
        ("Tool 'files' needs a category. Choose one of: read, write.", True),
        ("Tool 'files' has no category 'delete'. Choose one of: read, write.", True),
        (f"Tools now available: read_file, stat.{notes}", False),
        ("Tool 'write_file' is locked. Call first: files with category \"write\".", True),
        (f"Tools now available: write_file, stat.{notes}", False),
    ]
    assert result.state.unfolds == (
        ("files", '{"category": "read"}'),
        ("files", '{"category": "write"}'),
    )


def test_by_category_with_another_parameter_name_and_a_direct_call() -> None:
    facade = files(category_parameter="area")
    assert list(facade.input_schema["properties"]) == ["area"]
    model = ScriptedModel([("files", {"write_file": {}}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[facade])
    assert tool_texts(result) == [("write_file done\n[now available: write_file, stat]", False)]
    assert result.state.unfolds == (("files", '{"area": "write"}'),)


def test_an_exclusive_by_category_facade_keeps_only_the_chosen_tools() -> None:
    model = ScriptedModel([("files", {"category": "read"}), "ok"])
    st.ToolLoop(model).run("go", tools=[files(exclusive=True), tool("search")])
    assert model.requests[1].tool_names == ["read_file", "stat"]


class Cart:
    """A shopping cart shared by the tools one unfold builds."""

    def __init__(self, customer: str) -> None:
        self.customer = customer
        self.items: list[str] = []


CARTS: list[Cart] = []


def select_shop(arguments: dict[str, Any]) -> list[Any]:
    cart = Cart(arguments["customer"])
    CARTS.append(cart)

    def add_to_cart(sku: str) -> str:
        """Put an item into the cart."""
        cart.items.append(sku)
        return f"{len(cart.items)} items in the cart of {cart.customer}"

    def view_cart() -> str:
        """Show the cart."""
        return f"{cart.customer}: {', '.join(cart.items) or 'empty'}"

    return ["catalogue", st.Tool.from_function(add_to_cart), st.Tool.from_function(view_cart)]


def shop() -> st.UnfoldingTool:
    return st.UnfoldingTool.selectable(
        "shop",
        "Open the shop for a customer.",
        [tool("catalogue"), tool("returns")],
        st.InputSchema.of(st.Parameter.string("customer", "Who is shopping")),
        select_shop,
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    CARTS.clear()


def test_a_selectable_facade_builds_tools_that_share_one_cart() -> None:
    model = ScriptedModel(
        [
            ("add_to_cart", {"sku": "pen"}),
            ("shop", {}),
            ("shop", {"customer": "ann"}),
            ("add_to_cart", {"sku": "pen"}),
            ("add_to_cart", {"sku": "ink"}),
            ("shop", {"customer": "bob"}),
            ("view_cart", {}),
            "ok",
        ]
    )
    result = st.ToolLoop(model).run("go", tools=[shop()])

    assert [r.tool_names for r in model.requests] == [
        ["shop"],
        ["shop"],
        ["shop"],
        ["catalogue", "add_to_cart", "view_cart"],
        ["catalogue", "add_to_cart", "view_cart"],
        ["catalogue", "add_to_cart", "view_cart"],
        ["catalogue", "add_to_cart", "view_cart"],
        ["catalogue", "add_to_cart", "view_cart"],
    ]
    assert tool_texts(result) == [
        ("Tool 'add_to_cart' does not exist. Available tools: shop.", True),
        (
            "Invalid arguments for tool 'shop': missing required argument 'customer'. "
            "Call it again with corrected arguments.",
            True,
        ),
        ("Tools now available: catalogue, add_to_cart, view_cart.", False),
        ("1 items in the cart of ann", False),
        ("2 items in the cart of ann", False),
        ("Tools now available: catalogue, add_to_cart, view_cart.", False),
        ("ann: pen, ink", False),
    ]
    assert len(CARTS) == 1  # the selector ran once: the second call only listed


def test_a_selectable_facade_can_call_a_built_tool_directly() -> None:
    model = ScriptedModel([("shop", {"customer": "cy", "add_to_cart": {"sku": "cup"}}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[shop()])
    assert tool_texts(result) == [
        ("1 items in the cart of cy\n[now available: catalogue, add_to_cart, view_cart]", False)
    ]


def test_a_selector_that_chooses_nothing_or_fails() -> None:
    empty = st.UnfoldingTool.selectable(
        "shop", "Open the shop.", [], st.InputSchema.empty(), lambda args: []
    )
    broken = st.UnfoldingTool.selectable(
        "shop", "Open the shop.", [], st.InputSchema.empty(), lambda args: 1 / 0
    )
    assert empty.call().text == "Tool 'shop' has no tools for these arguments."
    assert broken.call().text == "Tool 'shop' failed: division by zero"


def test_with_tools_keeps_the_selector_and_the_schema() -> None:
    facade = shop().with_tools(tool("wishlist"))
    assert facade.selector is select_shop
    assert facade.input_schema == shop().input_schema
    assert [t.name for t in facade.inner] == ["catalogue", "returns", "wishlist"]
    by_category = files().with_tools(
        st.Tool.create("delete", "Delete.", lambda: "", metadata={"category": "admin"}),
        tool("touch"),
    )
    assert by_category.categories == (
        ("read", ("read_file", "stat", "touch")),
        ("write", ("write_file", "stat", "touch")),
        ("admin", ("delete", "touch")),
    )
    assert by_category.input_schema["properties"]["category"]["enum"] == [
        "read",
        "write",
        "admin",
    ]


STEPS: list[Any] = [
    ("files", {"category": "read"}),
    ("shop", {"customer": "ann"}),
    ("add_to_cart", {"sku": "pen"}),
    ("read_file", {}),
    ("files", {"category": "write"}),
    ("view_cart", {}),
    "Done.",
]


def make_loop(model: ScriptedModel) -> st.ToolLoop:
    ticks = itertools.count()
    return st.ToolLoop(model, clock=lambda: float(next(ticks)), id_factory=lambda: "run")


@pytest.mark.parametrize("stop_after", range(1, len(STEPS)))
def test_unfolded_facades_survive_a_resume(stop_after: int) -> None:
    whole = ScriptedModel(STEPS)
    full = make_loop(whole).run("go", tools=[files(), shop()])

    with pytest.raises(st.ScriptExhaustedError) as caught:
        make_loop(ScriptedModel(STEPS[:stop_after])).run("go", tools=[files(), shop()])
    first = caught.value.result
    assert first is not None
    restored = st.DisclosureState.from_json(first.state.to_json())
    assert restored == first.state

    rest = ScriptedModel(STEPS[stop_after:])
    second = make_loop(rest).run(list(first.messages), tools=[files(), shop()], state=restored)
    assert [r.tool_names for r in rest.requests] == [
        r.tool_names for r in whole.requests[stop_after:]
    ]
    assert second.state == full.state
    # The selector runs again on resume and builds an empty cart, so only the text of
    # view_cart differs when the cart was filled before the interruption.
    assert [m for m in second.messages if not _cart_view(m)] == [
        m for m in full.messages if not _cart_view(m)
    ]


def _cart_view(message: Any) -> bool:
    return isinstance(message, st.ToolMessage) and message.name == "view_cart"


def test_selector_mistakes_and_name_clashes_are_reported() -> None:
    from statetools.engine.events import InjectionSkipped

    wrong = st.UnfoldingTool.selectable(
        "shop", "Open the shop.", [], st.InputSchema.empty(), lambda args: ["nothing"]
    )
    model = ScriptedModel([("shop", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[wrong])
    assert tool_texts(result) == [
        (
            "Tool 'shop' failed: facade 'shop': the selector chose 'nothing', which is not an "
            "inner tool Hint: return tools, or names of tools given in inner",
            True,
        )
    ]

    clash = st.UnfoldingTool.selectable(
        "shop",
        "Open the shop.",
        [],
        st.InputSchema.empty(),
        lambda args: [tool("search"), tool("x")],
    )
    model = ScriptedModel([("shop", {}), "ok"])
    result = st.ToolLoop(model).run("go", tools=[tool("search"), clash])
    assert model.requests[1].tool_names == ["search", "x"]
    assert result.trace.of_type(InjectionSkipped) == [
        InjectionSkipped(1, "search", "a tool with this name is already visible")
    ]
