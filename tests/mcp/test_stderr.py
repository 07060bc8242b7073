"""A stdio server starts where sys.stderr is no file (a notebook's, a captured one): the
SDK hands a subprocess the sys.stderr it saw when it was imported, which then fails
with `UnsupportedOperation: fileno`; statetools gives the server a real file instead."""

from __future__ import annotations

import asyncio
import io
import sys

import pytest
from mcp.client import stdio as sdk_stdio

import statetools as st
from statetools.mcp.transports import _server_stderr
from tests.mcp.upstream import TIME_SERVER


class NotebookStream(io.StringIO):
    """Like ipykernel's OutStream: text goes somewhere, but there is no descriptor."""

    def fileno(self) -> int:
        raise io.UnsupportedOperation("fileno")


def test_a_server_starts_when_stderr_has_no_file_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    notebook = NotebookStream()
    monkeypatch.setattr(sys, "stderr", notebook)
    # As if the SDK had been imported in the notebook: its default is that stream.
    monkeypatch.setattr(sdk_stdio.stdio_client.__wrapped__, "__defaults__", (notebook,))
    server = st.mcp.MCPServer.stdio(TIME_SERVER, name="time")

    async def listed() -> list[str]:
        async with server:
            return [tool.name for tool in await server.list_tools()]

    assert asyncio.run(listed()) == ["get_current_time", "convert_time"]


def test_the_server_gets_our_stderr_when_it_is_a_file_else_the_original_or_null(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open(__file__, encoding="utf-8") as a_file:
        monkeypatch.setattr(sys, "stderr", a_file)
        with _server_stderr() as stream:
            assert stream is a_file
    monkeypatch.setattr(sys, "stderr", NotebookStream())
    monkeypatch.setattr(sys, "__stderr__", NotebookStream())
    with _server_stderr() as stream:
        assert (stream.name, stream.closed) == ("/dev/null", False)
    assert stream.closed
