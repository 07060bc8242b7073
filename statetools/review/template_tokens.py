"""Token counts as a local model reads them: its own chat template and tokenizer.

o200k_base counts (:mod:`statetools.review.tokens`) measure the JSON of the tool
definitions. A local model reads something else: its chat template writes the tools
into the prompt in its own words and format (Qwen2.5's template, for one, adds an
instruction block and JSON with spaces), and its own tokenizer counts that. The 16
tau-bench retail tools are 2,432 o200k tokens but 3,049 in Qwen2.5's template.

:class:`TemplateTokens` asks a running llama.cpp ``llama-server`` (started with
``--jinja``, so it renders the model's template, tools included) to do both: ``POST
/apply-template`` renders a request's messages and tools into the prompt text, ``POST
/tokenize`` counts that text with the model's tokenizer. The tools of a request cost
the tokens of the prompt rendered with them less those of the same prompt without
them. Nothing is downloaded and nothing else is needed: the server holds the model
file (a GGUF) and the standard library does the HTTP.

    llama-server -m model.gguf --jinja --port 8080
    statetools tokens design.yaml --vs-flat --base-url http://127.0.0.1:8080/v1
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from statetools.errors import StatetoolsError
from statetools.review.tokens import Definition, wire_entries

__all__ = ["PROBE", "TemplateTokens", "TokenServerError"]

PROBE = "Hello."
"""The user message of the requests rendered to count tools (its tokens cancel out)::

    TemplateTokens(url).messages()[-1] == {"role": "user", "content": PROBE}
"""

_START = "start it with `llama-server -m MODEL.gguf --jinja --port 8080` and pass its URL"


class TokenServerError(StatetoolsError):
    """The server that should count tokens cannot: unreachable, not a llama.cpp
    ``llama-server``, or it refused the request. ``path`` is the URL asked.

    >>> error = TokenServerError("no answer", path="http://127.0.0.1:9/tokenize")
    >>> error.path
    'http://127.0.0.1:9/tokenize'
    """


class TemplateTokens:
    """Counts tokens with a llama.cpp server's model: its chat template renders each
    request (tools included), its tokenizer counts the prompt. ``base_url`` is the
    server's address, with or without the ``/v1`` that Chat Completions clients use.
    Counts are cached per set of tools, so counting many states asks once per set.

    >>> counter = TemplateTokens("http://127.0.0.1:8080/v1")
    >>> counter.base_url
    'http://127.0.0.1:8080'
    >>> counter.tools_tokens([])
    0
    """

    def __init__(
        self, base_url: str, *, system_prompt: str | None = None, timeout: float = 60.0
    ) -> None:
        url = base_url.rstrip("/")
        self.base_url = url[: -len("/v1")] if url.endswith("/v1") else url
        self.system_prompt = system_prompt
        self.timeout = timeout
        self._cache: dict[tuple[str, ...], int] = {}

    # -- the two endpoints ------------------------------------------------------------

    def _post(self, endpoint: str, body: Mapping[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/{endpoint}"
        request = urllib.request.Request(
            url,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise _refused(url, exc) from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise TokenServerError(
                f"cannot reach the server that counts tokens ({reason})", path=url, hint=_START
            ) from exc
        except json.JSONDecodeError as exc:
            raise TokenServerError(
                "the server's answer is not JSON",
                path=url,
                hint="pass the URL of a llama.cpp llama-server",
            ) from exc
        if not isinstance(answer, dict):
            raise TokenServerError(
                f"unexpected answer {answer!r}",
                path=url,
                hint="pass the URL of a llama.cpp llama-server",
            )
        return answer

    def render(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Any] = ()) -> str:
        """The prompt text the model's chat template makes of ``messages`` and
        ``tools`` (Chat Completions shapes), ending where the model's answer starts.

        >>> TemplateTokens("http://127.0.0.1:8080").render(
        ...     [{"role": "user", "content": "Hi"}])  # doctest: +SKIP
        '<|im_start|>system...<|im_start|>assistant...'
        """
        body: dict[str, Any] = {"messages": list(messages)}
        if tools:
            body["tools"] = list(tools)
        answer = self._post("apply-template", body)
        prompt = answer.get("prompt")
        if not isinstance(prompt, str):
            raise TokenServerError(
                "the answer has no 'prompt' text",
                path=f"{self.base_url}/apply-template",
                hint="use a llama-server recent enough to have /apply-template",
            )
        return prompt

    def count(self, text: str) -> int:
        """Tokens of ``text`` in the model's tokenizer (its special tokens, such as
        ``<|im_start|>``, count as one each; no start-of-text token is added).

        >>> TemplateTokens("http://127.0.0.1:8080").count("Hi there<|im_start|>")  # doctest: +SKIP
        3
        """
        answer = self._post(
            "tokenize", {"content": text, "add_special": False, "parse_special": True}
        )
        tokens = answer.get("tokens")
        if not isinstance(tokens, list):
            raise TokenServerError(
                "the answer has no 'tokens' list",
                path=f"{self.base_url}/tokenize",
                hint="pass the URL of a llama.cpp llama-server",
            )
        return len(tokens)

    # -- what statetools counts ---------------------------------------------------------

    def messages(self) -> list[dict[str, str]]:
        """The messages of a counted request: the system prompt (if any) and
        :data:`PROBE`.

        >>> TemplateTokens("http://127.0.0.1:8080", system_prompt="Be brief.").messages()
        [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hello.'}]
        """
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return [*system, {"role": "user", "content": PROBE}]

    def prompt_tokens(self, tools: Sequence[Definition]) -> int:
        """Tokens of the whole prompt of a first request showing ``tools``.

        >>> TemplateTokens("http://127.0.0.1:8080").prompt_tokens([])  # doctest: +SKIP
        30
        """
        return self.count(self.render(self.messages(), wire_entries(tools, "openai")))

    def tools_tokens(self, tools: Sequence[Definition]) -> int:
        """What showing ``tools`` adds to a request's prompt, in the model's tokens: the
        prompt with them less the prompt without them (0 for no tools).

        >>> from statetools.tools.tool import Tool
        >>> ping = Tool.create("ping", "Ping the host.", lambda: "pong")
        >>> TemplateTokens("http://127.0.0.1:8080").tools_tokens([ping])  # doctest: +SKIP
        126
        """
        if not tools:
            return 0
        key = tuple(_entry_key(entry) for entry in wire_entries(tools, "openai"))
        if key not in self._cache:
            if () not in self._cache:
                self._cache[()] = self.prompt_tokens([])
            self._cache[key] = self.prompt_tokens(tools) - self._cache[()]
        return self._cache[key]

    def model_name(self) -> str:
        """The file name of the server's model (``GET /props``), or ``"server"``.

        >>> TemplateTokens("http://127.0.0.1:8080").model_name()  # doctest: +SKIP
        'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'
        """
        return _model_name(self.base_url, self.timeout)


@lru_cache(maxsize=16)
def _model_name(base_url: str, timeout: float) -> str:
    try:
        with urllib.request.urlopen(f"{base_url}/props", timeout=timeout) as response:
            props = json.loads(response.read())
    except (OSError, ValueError):
        return "server"
    path = props.get("model_path") or props.get("model_alias") if isinstance(props, dict) else None
    return str(path).replace("\\", "/").rsplit("/", 1)[-1] if path else "server"


def _entry_key(entry: Mapping[str, Any]) -> str:
    return json.dumps(entry, sort_keys=True)


def _refused(url: str, exc: urllib.error.HTTPError) -> TokenServerError:
    try:
        detail = json.loads(exc.read()).get("error", {}).get("message", "")
    except (OSError, ValueError, AttributeError):
        detail = ""
    said = f": {detail}" if detail else ""
    if exc.code == 404:
        return TokenServerError(
            f"the server has no {url.rsplit('/', 1)[-1]} endpoint (HTTP 404{said})",
            path=url,
            hint="counting with a model's template needs llama.cpp's llama-server "
            "(started with --jinja); other servers count with o200k only",
        )
    return TokenServerError(
        f"the server refused the request (HTTP {exc.code}{said})",
        path=url,
        hint="start llama-server with --jinja so it renders the model's chat template",
    )
