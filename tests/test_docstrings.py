"""Every public name has a docstring with a short example (DESIGN.md §4).

Public names are those in the ``__all__`` of the packages a user imports. The rule:

- a class or function has its own docstring (``__doc__`` set on the object itself,
  not inherited);
- any other value (a type alias, a constant) has an attribute docstring: the string
  literal on the line right after its assignment, in the module that defines it;
- the docstring shows an example: a ``>>>`` line, a paragraph ending in ``::``
  followed by an indented block, or a fenced code block.

The source rule further down extends this past ``__all__``: the public methods of
the classes in those ``__all__`` show an example; in the submodules of the packages
users import, every public function, class and method shows an example (but for the
framework hooks listed there); everywhere in statetools, every public function and
class has a docstring.

The ``>>>`` examples of classes and functions run as doctests (tests/test_doctests.py
and the packages' own docs tests); doctest does not see attribute docstrings, so the
examples of those run here.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

PACKAGES = [
    "statetools",
    "statetools.engine",
    "statetools.models",
    "statetools.mcp",
    "statetools.sections",
    "statetools.testing",
    "statetools.review",
    "statetools.spec",
    "statetools.durable",
    "statetools.evaluation",
    "statetools.temporal",
    "statetools.integrations.langchain",
    "statetools.integrations.openai_agents",
    "statetools.integrations.otel",
    "statetools.integrations.pydantic_ai",
]

EXAMPLE = re.compile(
    r"^\s*>>> "  # a doctest line
    r"|::\n\s*\n( {4,}|\t)\S"  # a literal block after "::"
    r"|^\s*```",  # a fenced block
    re.MULTILINE,
)


def has_example(doc: str | None) -> bool:
    """Whether a docstring shows an example by the rule above."""
    return doc is not None and EXAMPLE.search(doc) is not None


def defining_module(module: ModuleType, name: str, seen: int = 0) -> ModuleType:
    """The module that assigns ``name``, following ``from X import name`` re-exports."""
    assert seen < 10, f"re-export chain too long for {name}"
    tree = ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and any((alias.asname or alias.name) == name for alias in node.names)
        ):
            return defining_module(importlib.import_module(node.module), name, seen + 1)
    return module


def attribute_docstring(module: ModuleType, name: str) -> str | None:
    """The string literal right after ``name = ...`` in the module that defines it."""
    source = defining_module(module, name)
    body = ast.parse(Path(inspect.getfile(source)).read_text(encoding="utf-8")).body
    for index, node in enumerate(body):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            following = body[index + 1] if index + 1 < len(body) else None
            if (
                isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                return inspect.cleandoc(following.value.value)
            return None
    return None


def docstring(module: ModuleType, name: str) -> str | None:
    """The docstring the rule checks for one public name of a module."""
    value = getattr(module, name)
    if inspect.isclass(value):
        own = value.__dict__.get("__doc__")
        return own if isinstance(own, str) else None
    if carries_its_docstring(value):
        return value.__doc__
    return attribute_docstring(module, name)


def carries_its_docstring(value: object) -> bool:
    """Classes, functions and modules carry ``__doc__``; other values do not."""
    return (
        inspect.isclass(value)
        or inspect.isfunction(value)
        or inspect.isbuiltin(value)
        or inspect.ismethod(value)
        or hasattr(value, "__wrapped__")  # functools.lru_cache and other wrappers
        or isinstance(value, ModuleType)
    )


def public_names() -> list[tuple[str, str]]:
    found = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        found.extend((package, name) for name in module.__all__)
    return found


def test_the_rule_tells_examples_from_prose() -> None:
    assert has_example("Add.\n\n>>> add(1, 2)\n3\n")
    assert has_example("Add::\n\n    add(1, 2)\n")
    assert has_example("Add:\n\n```python\nadd(1, 2)\n```\n")
    assert not has_example("Add two numbers: a and b.")
    assert not has_example("Add::\nnot indented")
    assert not has_example(None)


def test_attribute_docstrings_are_found_through_re_exports() -> None:
    module = importlib.import_module("statetools")
    assert defining_module(module, "Message").__name__ == "statetools.messages"
    doc = attribute_docstring(module, "Message")
    assert doc is not None
    assert doc.startswith("Any message of a conversation; ``message.role`` tells which.\n")
    assert attribute_docstring(sys.modules[__name__], "EXAMPLE") is None  # comments only
    assert attribute_docstring(module, "no_such_name") is None


def run_examples(module: ModuleType, name: str, doc: str) -> None:
    """Run the ``>>>`` lines of an attribute docstring in its module's namespace."""
    import statetools as st

    source = defining_module(module, name)
    globs: dict[str, Any] = {**vars(source), **{n: getattr(st, n) for n in st.__all__}}
    globs["st"] = st
    test = doctest.DocTestParser().get_doctest(
        doc, globs, f"{source.__name__}.{name}", inspect.getfile(source), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize(("package", "name"), public_names())
def test_public_name_has_a_docstring_with_an_example(package: str, name: str) -> None:
    module = importlib.import_module(package)
    doc = docstring(module, name)
    assert doc, f"{package}.{name} has no docstring"
    assert has_example(doc), f"{package}.{name}: its docstring shows no example"
    if not carries_its_docstring(getattr(module, name)):
        run_examples(module, name, doc)


# The submodules of the packages users import (``from statetools.models.scripted import
# ...``, ``statetools.mcp.gateway``, ``statetools.integrations.langchain``, ...): each public
# function, class and method defined there shows an example (methods named below are
# left out). Across every module of statetools, each public function and class has a
# docstring. Read from the source (no optional integration is imported); ``@overload``
# signatures and modules named with a leading underscore are left out.

ROOT = Path(__file__).resolve().parents[1] / "statetools"
SUBMODULE_PACKAGES = (
    "models",
    "mcp",
    "integrations",
    "temporal",
    "testing",
    "sections",
    "durable",
)

# Overrides of a framework's hooks: the framework calls them with its own run objects
# (langchain's Runtime and ModelRequest, pydantic-ai's RunContext), never user code;
# the bridge tests run them inside real agents. Their docstrings say what they do.
FRAMEWORK_HOOKS = {
    "statetools.integrations.langchain.StatetoolsMiddleware": (
        "name before_agent abefore_agent wrap_model_call awrap_model_call wrap_tool_call "
        "awrap_tool_call"
    ),
    "statetools.integrations.pydantic_ai.StatetoolsCapability": (
        "for_run after_run before_model_request get_wrapper_toolset"
    ),
    "statetools.integrations.pydantic_ai.StatetoolsToolset": "id for_run get_tools call_tool",
}

# Methods still owed an example: their files (statetools/models/base.py and the bridges)
# were being changed elsewhere when methods came under the rule, and graph.py and
# unfolding.py are at the ~400-line limit (their examples wait for a split). Take a name
# off this list when its method gets its example; add none.
NOT_YET = {
    "statetools.engine.graph.DisclosureGraph": ("add_chaining add_machine add_playbook add_tool"),
    "statetools.definitions.unfolding.UnfoldingTool": (
        "acall category_of inner_tool is_searchable is_selectable member_tools open select"
    ),
    "statetools.integrations.bridge.Converted": "get",
    "statetools.integrations.langchain.StatetoolsMiddleware": "run_for",
    "statetools.integrations.openai_agents.StatetoolsTools": "run_of",
    "statetools.integrations.pydantic_ai.StatetoolsCapability": "run",
    "statetools.integrations.pydantic_ai.StatetoolsToolset": "added bound owns",
    "statetools.models.base.Model": "capabilities complete",
    "statetools.models.base.ModelRequest": "tool_names",
    "statetools.models.base.StreamSink": "call_started text",
    "statetools.models.base.StreamingModel": "stream",
    "statetools.models.base.ToolCatalogue": "names",
}

EXCLUDED = {
    f"{owner}.{method}"
    for listing in (FRAMEWORK_HOOKS, NOT_YET)
    for owner, methods in listing.items()
    for method in methods.split()
}

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _is_overload_or_setter(node: Definition) -> bool:
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "overload":
            return True
        if isinstance(decorator, ast.Attribute) and decorator.attr in ("overload", "setter"):
            return True
    return False


def public_definitions(source: str) -> list[tuple[str, Definition, bool]]:
    """``(qualified name, node, is_method)`` for every public top-level function and
    class of ``source`` and every public method of those classes (the test below shows
    what it finds)."""
    found: list[tuple[str, Definition, bool]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, Definition) or node.name.startswith("_"):
            continue
        if _is_overload_or_setter(node):
            continue
        found.append((node.name, node, False))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if (
                    isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not member.name.startswith("_")
                    and not _is_overload_or_setter(member)
                ):
                    found.append((f"{node.name}.{member.name}", member, True))
    return found


def _modules(folder: Path) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.append((".".join(parts), path))
    return found


def _missing(packages: tuple[str, ...] | None, *, example: bool, methods: bool) -> list[str]:
    folders = [ROOT] if packages is None else [ROOT / p for p in packages]
    missing = []
    for folder in folders:
        for module, path in _modules(folder):
            private = any(part.startswith("_") for part in module.split("."))
            for name, node, is_method in public_definitions(path.read_text(encoding="utf-8")):
                if is_method and not methods:
                    continue
                doc = ast.get_docstring(node)
                if not doc:
                    missing.append(f"{module}.{name}: no docstring")
                elif (
                    example
                    and not private
                    and not has_example(doc)
                    and f"{module}.{name}" not in EXCLUDED
                ):
                    missing.append(f"{module}.{name}: no example")
    return missing


def test_the_source_rule_finds_what_lacks_a_docstring_or_an_example(tmp_path: Path) -> None:
    source = (
        "from typing import overload\n"
        "def bare(): pass\n"
        "def told():\n    'Adds.'\n"
        "def shown():\n    '''Adds.\n\n    >>> shown()\n    '''\n"
        "@overload\ndef over(): ...\n"
        "class Kind:\n    '''A kind.\n\n    ```python\n    Kind()\n    ```\n    '''\n"
        "    def method(self): pass\n"
        "    @property\n    def value(self):\n        'The value.'\n"
        "    @value.setter\n    def value(self, v): pass\n"
    )
    names = [name for name, _, _ in public_definitions(source)]
    assert names == ["bare", "told", "shown", "Kind", "Kind.method", "Kind.value"]
    documented = {
        name: (ast.get_docstring(node) is not None, has_example(ast.get_docstring(node)))
        for name, node, _ in public_definitions(source)
    }
    assert documented == {
        "bare": (False, False),
        "told": (True, False),
        "shown": (True, True),
        "Kind": (True, True),
        "Kind.method": (False, False),
        "Kind.value": (True, False),
    }


def test_public_names_of_the_submodules_users_import_show_an_example() -> None:
    assert _missing(SUBMODULE_PACKAGES, example=True, methods=True) == []


def methods_of_public_classes() -> dict[str, bool]:
    """``module.Class.method`` -> whether its docstring shows an example, for each
    public method of the statetools classes in the ``__all__`` of PACKAGES."""
    found = {}
    for package, name in public_names():
        value = getattr(importlib.import_module(package), name)
        if not inspect.isclass(value) or not value.__module__.startswith("statetools."):
            continue
        source = Path(inspect.getfile(value)).read_text(encoding="utf-8")
        for qualified, node, is_method in public_definitions(source):
            if is_method and qualified.startswith(f"{value.__name__}."):
                found[f"{value.__module__}.{qualified}"] = has_example(ast.get_docstring(node))
    return found


def test_public_methods_of_public_classes_show_an_example() -> None:
    missing = [
        f"{name}: no example"
        for name, shown in methods_of_public_classes().items()
        if not shown and name not in EXCLUDED
    ]
    assert sorted(missing) == []


def test_the_methods_left_out_exist_and_still_lack_an_example() -> None:
    """The lists above name real methods, and a method owed an example leaves
    ``NOT_YET`` once it shows one (so the list only shrinks)."""
    found = methods_of_public_classes()
    for folder in SUBMODULE_PACKAGES:
        for module, path in _modules(ROOT / folder):
            for name, node, is_method in public_definitions(path.read_text(encoding="utf-8")):
                if is_method:
                    found[f"{module}.{name}"] = has_example(ast.get_docstring(node))
    assert sorted(EXCLUDED - found.keys()) == []
    owed = {f"{owner}.{m}" for owner, methods in NOT_YET.items() for m in methods.split()}
    assert sorted(name for name in owed if found[name]) == []


def test_every_public_function_and_class_has_a_docstring() -> None:
    assert _missing(None, example=False, methods=False) == []
