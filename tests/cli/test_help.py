"""Every command's --help stands on its own: each option says what it is, and no text
points to files of the source tree (an installed statetools has no docs/ folder)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from statetools.cli import _parser


def _commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield " ".join((*prefix, name)), sub
                yield from _commands(sub, (*prefix, name))


COMMANDS = dict(_commands(_parser()))


def test_the_commands() -> None:
    assert list(COMMANDS) == [
        "check",
        "explore",
        "tokens",
        "render",
        "run",
        "serve",
        "mcp",
        "mcp list",
        "sessions",
        "worker",
        "eval",
        "examples",
    ]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_has_help_and_no_help_points_into_the_source_tree(name: str) -> None:
    sub = COMMANDS[name]
    without = [
        action.option_strings or action.dest
        for action in sub._actions
        if not action.help and not isinstance(action, argparse._SubParsersAction)
    ]
    assert without == []
    assert "docs/" not in sub.format_help()


def test_serve_says_where_http_listens() -> None:
    text = " ".join(COMMANDS["serve"].format_help().split())
    assert "--transport {stdio,http} stdio (default), or streamable HTTP at " in text
    assert "http://HOST:PORT/mcp" in text
