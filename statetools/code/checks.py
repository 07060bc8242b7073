"""What a script may not do, refused before it runs, with a message that says why.

The sandbox itself (Monty) has no file system, network or processes; these checks make
the common attempts fail early and clearly: an import of a module outside
:data:`ALLOWED_MODULES`, the builtins that reach outside the script or run other code
(``open``, ``__import__``, ``eval``, ...), and dunder attributes. A script that Python's
own parser cannot read is left to the sandbox, which reports the syntax error.
"""

from __future__ import annotations

import ast

__all__ = ["ALLOWED_MODULES", "FORBIDDEN_NAMES", "refusal"]

ALLOWED_MODULES = (
    "base64",
    "binascii",
    "bisect",
    "collections",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "random",
    "re",
    "tomllib",
    "typing",
)
"""The modules a script may import (all pure computation)."""

FORBIDDEN_NAMES = (
    "__import__",
    "breakpoint",
    "compile",
    "eval",
    "exec",
    "globals",
    "input",
    "locals",
    "open",
    "vars",
)
"""Builtins a script may not use: they reach files, the console or other code."""


def refusal(code: str, tool: str) -> str | None:
    """Why ``code`` may not run in ``tool`` (the first reason found), or None.

    >>> refusal("import os", "run_code")
    "run_code: 'import os' is not allowed (line 1): scripts have no file system, network or processes. Modules a script may import: base64, binascii, bisect, collections, copy, csv, dataclasses, datetime, decimal, functools, hashlib, itertools, json, math, random, re, tomllib, typing."
    >>> refusal("import json", "run_code") is None
    True
    """  # noqa: E501
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None  # the sandbox reports it
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.partition(".")[0] not in ALLOWED_MODULES:
                    return _module(tool, f"import {alias.name}", line)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.partition(".")[0] not in ALLOWED_MODULES:
                return _module(tool, f"from {'.' * node.level}{module} import ...", line)
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            return (
                f"{tool}: '{node.id}' is not available (line {line}): scripts have no file "
                "system, network or processes, and run no other code."
            )
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            return f"{tool}: the attribute '{node.attr}' is not available (line {line})."
    return None


def _module(tool: str, statement: str, line: int) -> str:
    return (
        f"{tool}: '{statement}' is not allowed (line {line}): scripts have no file system, "
        f"network or processes. Modules a script may import: {', '.join(ALLOWED_MODULES)}."
    )
