"""A stand-in for llama.cpp's ``llama-server`` on 127.0.0.1: the three endpoints that
``TemplateTokens`` uses, with the request and answer shapes the real server has
(recorded from llama-server of llama-cpp-python 0.3.36 with Qwen2.5-Coder-1.5B):

* ``POST /apply-template`` ``{"messages": [...], "tools": [...]}`` -> ``{"prompt": TEXT}``
  (no ``tools`` key, or an empty list, renders without the tools block);
* ``POST /tokenize`` ``{"content": TEXT, "add_special": false, "parse_special": true}``
  -> ``{"tokens": [ids]}`` (special tokens such as ``<|im_start|>`` are one id each);
* ``GET /props`` -> ``{..., "model_alias": PATH, "model_path": PATH}``;
* anything else: 404 ``{"error": {"message": "File Not Found", "type": "not_found_error",
  "code": 404}}``; ``messages`` that is not a list: 400 ``{"error": {"code": 400,
  "message": "Expected 'messages' to be an array", "type": "invalid_request_error"}}``.

Its template is a small one in Qwen2.5's manner (a default system message, the tools as
JSON with spaces inside ``<tools>``); its tokenizer splits words and punctuation, so a
test can count by hand.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SPECIAL = ("<|im_start|>", "<|im_end|>")
TOOLS_HEADER = "\n\n# Tools\n\nCall one of these functions:\n<tools>\n"
MODEL_PATH = "/models/tiny-chat-q4_k_m.gguf"


def render(messages: list[Mapping[str, Any]], tools: list[Any]) -> str:
    """The fake model's chat template."""
    if not messages or messages[0]["role"] != "system":
        messages = [{"role": "system", "content": "You are a tiny model."}, *messages]
    system = str(messages[0]["content"])
    if tools:
        system += TOOLS_HEADER + "\n".join(json.dumps(tool) for tool in tools) + "\n</tools>"
    turns = [("system", system)] + [(m["role"], str(m["content"])) for m in messages[1:]]
    text = "".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in turns)
    return text + "<|im_start|>assistant\n"


def tokenize(text: str) -> list[int]:
    """The fake model's tokenizer: a special token, a word or one other character each."""
    pieces = re.findall("|".join(map(re.escape, SPECIAL)) + r"|\w+|[^\w\s]", text)
    return [sum(map(ord, piece)) for piece in pieces]


class LlamaServer:
    """The server; ``requests`` holds ``(path, body)`` of every request, in order."""

    def __init__(self, *, endpoints: tuple[str, ...] = ("apply-template", "tokenize")) -> None:
        self.endpoints = endpoints
        self.requests: list[tuple[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> LlamaServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        endpoint = path.strip("/")
        if endpoint == "props" and body is None:
            return 200, {"total_slots": 1, "model_alias": MODEL_PATH, "model_path": MODEL_PATH}
        if endpoint not in self.endpoints or body is None:
            return 404, {
                "error": {"message": "File Not Found", "type": "not_found_error", "code": 404}
            }
        if endpoint == "tokenize":
            return 200, {"tokens": tokenize(body["content"])}
        if not isinstance(body.get("messages"), list):
            return 400, {
                "error": {
                    "code": 400,
                    "message": "Expected 'messages' to be an array",
                    "type": "invalid_request_error",
                }
            }
        return 200, {"prompt": render(body["messages"], body.get("tools") or [])}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self, body: Any) -> None:
                server.requests.append((self.path, body))
                status, answer = server.answer(self.path, body)
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self._reply(json.loads(self.rfile.read(length)))

            def do_GET(self) -> None:
                self._reply(None)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
