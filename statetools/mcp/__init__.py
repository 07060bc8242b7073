"""MCP both ways: MCP servers' tools in a run, and a design served as an MCP server.

Needs the ``mcp`` extra (``pip install 'statetools[mcp]'``); ``import statetools`` does
not import it, ``st.mcp`` does on first use.

Client: :class:`MCPServer` (``.stdio``, ``.http``, ``.in_process``) lists a server's
tools as statetools tools or wraps them in one facade. Server:
:func:`disclosure_server` serves a design over MCP, one scheduler per client session.

>>> MCPServer.stdio("mcp-server-time", name="time").facade().name
'time'
"""

from statetools.mcp.connection import MCPServerError
from statetools.mcp.facade import Grouping, MCPFacade
from statetools.mcp.gateway import SESSION_HEADER, disclosure_server
from statetools.mcp.remote_tool import MCPTool
from statetools.mcp.server import MCPServer
from statetools.mcp.skill_serving import publish_skills
from statetools.mcp.wire import Listing

__all__ = [
    "Grouping",
    "SESSION_HEADER",
    "Listing",
    "MCPFacade",
    "MCPServer",
    "MCPServerError",
    "MCPTool",
    "disclosure_server",
    "publish_skills",
]
