"""A Chat Completions server on 127.0.0.1 that plays a deterministic policy.

The policy knows, for each task's prompt, the calls that solve it. At every request it
takes the first of those calls not yet made and: calls it if the tool is among the
request's tools; otherwise calls a facade among the request's tools that holds it
(``facades``, as the test says); otherwise searches for it with a search tool among
the request's tools (one that takes ``query``), once per tool; otherwise gives up with
a text answer. When every call is made it answers "Done.".

Usage is reported by a formula the tests can add up: prompt tokens = 100 + 10 per tool
+ 5 per message, completion tokens = 7, cached tokens = 50 from the second message on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Plan = Sequence[tuple[str, Mapping[str, Any]]]

GIVE_UP = "I cannot find a tool for this."


def usage(tools: int, messages: int) -> dict[str, Any]:
    """The usage the server reports for a request with ``tools`` tools and ``messages``
    messages."""
    prompt = 100 + 10 * tools + 5 * messages
    return {
        "prompt_tokens": prompt,
        "completion_tokens": 7,
        "total_tokens": prompt + 7,
        "prompt_tokens_details": {"cached_tokens": 50 if messages > 1 else 0},
    }


class PolicyServer:
    """The server; ``requests`` holds every request body it answered, in order."""

    def __init__(
        self,
        plans: Mapping[str, Plan],
        facades: Mapping[str, Sequence[str]] | None = None,
        *,
        delay: float = 0.0,
    ) -> None:
        self.plans = {prompt: list(plan) for prompt, plan in plans.items()}
        self.facades = {name: list(inner) for name, inner in (facades or {}).items()}
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> PolicyServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def tool_names(self) -> list[list[str]]:
        """The names of the tools of every request, in order."""
        return [[t["function"]["name"] for t in body.get("tools") or ()] for body in self.requests]

    # -- the policy ----------------------------------------------------------------

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        tools = {t["function"]["name"]: t["function"] for t in body.get("tools") or ()}
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        made = [
            (call["function"]["name"], json.loads(call["function"]["arguments"]))
            for message in messages
            if message["role"] == "assistant"
            for call in message.get("tool_calls") or ()
        ]
        step = self.next_call(prompt, made)
        if step is None:
            return self._reply(body, text="Done.")
        name, arguments = step
        if name in tools:
            return self._reply(body, call=(name, dict(arguments)))
        for facade, inner in self.facades.items():
            if facade in tools and name in inner and (facade, {}) not in made:
                return self._reply(body, call=(facade, {}))
        query = {"query": name.replace("_", " ")}
        for tool, definition in tools.items():
            properties = (definition.get("parameters") or {}).get("properties") or {}
            if "query" in properties and (tool, query) not in made:
                return self._reply(body, call=(tool, query))
        return self._reply(body, text=GIVE_UP)

    def next_call(
        self, prompt: str, made: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> tuple[str, Mapping[str, Any]] | None:
        """The first call of the prompt's plan not made yet (in order), or None."""
        plan = self.plans[prompt]
        done = 0
        for name, arguments in made:
            if done < len(plan) and (name, dict(arguments)) == (plan[done][0], dict(plan[done][1])):
                done += 1
        return None if done == len(plan) else plan[done]

    def _reply(
        self,
        body: Mapping[str, Any],
        *,
        text: str | None = None,
        call: tuple[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        number = len(self.requests)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if call is not None:
            message["tool_calls"] = [
                {
                    "id": f"call_{number}",
                    "type": "function",
                    "function": {"name": call[0], "arguments": json.dumps(call[1])},
                }
            ]
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "policy"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if call else "stop",
                }
            ],
            "usage": usage(len(body.get("tools") or ()), len(body["messages"])),
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length))
                if server.delay and server._stop.wait(server.delay):
                    return
                with server._lock:
                    reply = server.answer(body)
                    server.requests.append(body)
                payload = json.dumps(reply).encode()
                try:
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
