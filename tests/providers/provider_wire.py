"""A scripted HTTP server on 127.0.0.1 for wire tests of the provider adapters.

The real SDK clients talk to it through ``base_url``. Each request gets the next
scripted reply; every request body is recorded as the SDK really sent it.
"""

from __future__ import annotations

import enum
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import statetools as st

PROVIDER_ENVIRONMENT = (
    "OPENAI_API_KEY",
    "OPENAI_ADMIN_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
)
"""Settings the openai and anthropic clients read from the environment."""


@dataclass(frozen=True)
class Reply:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    events: list[tuple[str | None, Any]] | None = None
    """Server-sent events ``(event name or None, data)`` instead of a JSON body."""


@dataclass(frozen=True)
class RawBody:
    """A reply body sent exactly as written (JSON that ``json.dumps`` cannot produce)."""

    text: str


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients connect at once in the sharing tests


class WireServer:
    """Answers POSTs with scripted JSON replies, in order, and records the requests."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def bodies(self) -> list[Any]:
        """The JSON body of every request received, in order."""
        return [request.body for request in self.requests]

    def reply(
        self,
        body: Any,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        """Queue the reply to the next request."""
        self.replies.append(Reply(body, status, dict(headers or {}), delay))

    def stream(self, events: list[tuple[str | None, Any]]) -> None:
        """Queue a ``text/event-stream`` reply: one ``event:``/``data:`` record per item
        (a str data is sent as is, anything else as JSON)."""
        self.replies.append(Reply(None, events=list(events)))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self.replies:
                return self.replies.popleft()
        return Reply(
            {"error": {"message": "wire server: no scripted reply left", "type": "test"}},
            status=599,
            headers={"x-should-retry": "false"},
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                recorded = Recorded(
                    "POST",
                    self.path,
                    {key.lower(): value for key, value in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
                reply = server._next(recorded)
                if reply.delay and server.stopping.wait(reply.delay):
                    return
                body = reply.body
                payload = (
                    body.text.encode() if isinstance(body, RawBody) else json.dumps(body).encode()
                )
                kind = "application/json"
                if reply.events is not None:
                    payload, kind = sse(reply.events), "text/event-stream"
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", kind)
                    self.send_header("content-length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def sse(events: list[tuple[str | None, Any]]) -> bytes:
    """The bytes of a server-sent events stream."""
    records = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        records.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
    return "".join(records).encode()


# ---- replies in the providers' formats -------------------------------------------


def openai_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One Chat Completions tool call; ``arguments`` is the raw JSON text."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chat_completion(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    cached_tokens: int = 0,
) -> dict[str, Any]:
    """A Chat Completions response with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def openai_error(message: str, kind: str = "server_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def function_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One Responses API ``function_call`` output item; ``arguments`` is raw JSON text."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def output_message(value: str, *, refusal: bool = False) -> dict[str, Any]:
    """One Responses API assistant ``message`` output item with one text (or refusal)."""
    part = (
        {"type": "refusal", "refusal": value}
        if refusal
        else {"type": "output_text", "text": value, "annotations": []}
    )
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [part],
    }


def response(
    *items: dict[str, Any],
    status: str = "completed",
    incomplete: str | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
) -> dict[str, Any]:
    """A Responses API response with the given output items."""
    return {
        "id": "resp_test",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "gpt-test",
        "status": status,
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "instructions": None,
        "metadata": {},
        "output": list(items),
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached_tokens},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def tool_use(block_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    """One Messages API ``tool_use`` block."""
    return {"type": "tool_use", "id": block_id, "name": name, "input": tool_input}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def anthropic_message(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int = 0,
    cache_write: int = 0,
) -> dict[str, Any]:
    """A Messages API response."""
    uses_tools = any(block["type"] == "tool_use" for block in blocks)
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(blocks),
        "stop_reason": stop_reason or ("tool_use" if uses_tools else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": cache_write,
        },
    }


def anthropic_error(message: str, kind: str = "api_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


FAST_RETRY = {"retry-after-ms": "1"}
"""Headers that make the SDKs retry after 1 ms instead of their backoff."""


# ---- tools of the runs ---------------------------------------------------------


def search(query: str) -> str:
    """Search the knowledge base."""
    return f"3 hits for {query}"


def open_ticket(title: str) -> str:
    """Open a support ticket."""
    return f"opened T-1: {title}"


SEARCH = st.Tool.from_function(search)
OPEN_TICKET = st.Tool.from_function(open_ticket)

SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}},
    "required": ["query"],
    "additionalProperties": False,
}
TITLE_SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}},
    "required": ["title"],
    "additionalProperties": False,
}


class UnlockTicketAfterSearch:
    """Injects open_ticket once search has been called."""

    def evaluate(self, context: st.InjectionContext) -> st.Injection | None:
        if context.call.name == "search" and not context.result.is_error:
            return st.Injection(add=[OPEN_TICKET])
        return None


class Order(enum.Enum):
    DRAFT = "draft"
    CONFIRMED = "confirmed"


@st.llm_tool("Confirm the order.")
def confirm() -> str:
    return "confirmed"


@st.llm_tool("Ship the order.")
def ship(carrier: str) -> str:
    return f"shipped with {carrier}"


@st.llm_tool("Reset a user's password.")
def reset_password(user: str) -> str:
    return f"reset for {user}"


def desk_design() -> list[object]:
    """A playbook unlock, a state machine and a facade: every kind of change."""
    support = (
        st.PlaybookTool("support", "Support desk.")
        .with_tool(SEARCH)
        .with_tool(OPEN_TICKET)
        .unlocked_by(SEARCH)
    )
    order = (
        st.StateMachineTool("order", "One order.", Order)
        .with_initial_state(Order.DRAFT)
        .in_state(Order.DRAFT)
        .with_tool(confirm)
        .transitions_to(Order.CONFIRMED)
        .in_state(Order.CONFIRMED)
        .with_tool(ship)
    )
    admin = st.UnfoldingTool.of("admin", "Open the admin tools.", [reset_password])
    return [support, order, admin]


DESK_VISIBLE = [
    ["search", "confirm", "admin"],
    ["search", "confirm", "admin", "open_ticket"],
    ["search", "admin", "open_ticket", "ship"],
    ["search", "open_ticket", "ship", "reset_password"],
]
"""The visible tools of the four requests of the desk run, in the default order."""
SHIP_REFUSED = "Tool 'ship' is not available in state DRAFT (it is available in: CONFIRMED)."
