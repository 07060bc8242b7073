"""What the ``statetools`` command prints: plain text, or colour and tables on a terminal.

On a terminal, :class:`Output` draws with ``rich``: colours, tables, lines wrapped to
the terminal's width (``COLUMNS`` if set), and progress on stderr. Anywhere else (a
pipe, a file, a test's ``StringIO``) it writes plain text, the same on every run.
``rich`` is imported only for a terminal.

>>> import io
>>> output = Output.of(io.StringIO())
>>> output.line("turn 1", "turn")
>>> output.table(("tool", "turns"), [("search", "0")])
>>> print(output.out.getvalue(), end="")
turn 1
tool    turns
------  -----
search  0
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from statetools.errors import StatetoolsError

if TYPE_CHECKING:
    from rich.console import Console


class UsageError(StatetoolsError):
    """A mistake on the command line: the command prints it and exits with status 2.

    >>> print(UsageError("no such file: x.yaml", hint="give the path of a design file"))
    no such file: x.yaml Hint: give the path of a design file
    """


STYLES = {
    "user": "bold",
    "turn": "bold cyan",
    "visible": "dim",
    "model": "",
    "calls": "yellow",
    "answered": "green",
    "failed": "red",
    "change": "magenta",
    "legend": "dim italic",
    "answer": "bold green",
    "note": "dim",
    "error": "bold red",
    "warning": "yellow",
}
"""The colour of each kind of line (rich style names)."""


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


class Output:
    """Plain lines and tables, or their rich forms on a terminal (``console`` set)."""

    def __init__(self, out: TextIO, console: Console | None = None) -> None:
        self.out = out
        self.console = console

    @classmethod
    def of(cls, out: TextIO, *, terminal: bool | None = None) -> Output:
        """Rich output when ``out`` is a terminal (or ``terminal=True``), else plain."""
        if not (is_terminal(out) if terminal is None else terminal):
            return cls(out)
        from rich.console import Console

        width = shutil.get_terminal_size().columns
        console = Console(file=out, force_terminal=True, width=width, highlight=False, emoji=False)
        return cls(out, console)

    @property
    def rich(self) -> bool:
        """Whether this output draws with rich."""
        return self.console is not None

    def line(self, text: str, kind: str = "") -> None:
        """One line (wrapped to the width on a terminal, in the colour of ``kind``)."""
        if self.console is None:
            self.out.write(text + "\n")
            return
        from rich.padding import Padding
        from rich.text import Text

        indent = len(text) - len(text.lstrip(" "))
        body = Text(text[indent:], style=STYLES.get(kind, ""))
        padded = Padding(body, (0, 0, 0, indent), expand=False) if indent else body
        self.console.print(padded, overflow="fold")

    def write(self, text: str, kind: str = "") -> None:
        """Text without a line break (streamed model text)."""
        if self.console is None:
            self.out.write(text)
        else:
            from rich.text import Text

            self.console.print(Text(text, style=STYLES.get(kind, "")), end="")
        self.out.flush()

    def flush(self) -> None:
        """Flush the stream."""
        self.out.flush()

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[str]],
        *,
        title: str | None = None,
        right: Sequence[str] = (),
    ) -> None:
        """A table: aligned columns in plain text, a rich table on a terminal.
        ``right`` names the columns aligned right (numbers) on a terminal."""
        if self.console is None:
            if title:
                self.out.write(title + "\n")
            self.out.write(plain_table(headers, rows) + "\n")
            return
        from rich.table import Table

        table = Table(title=title, title_justify="left", header_style="bold")
        for header in headers:
            if header in right:
                table.add_column(header, justify="right", overflow="fold")
            else:
                table.add_column(header, overflow="fold")
        for row in rows:
            table.add_row(*row)
        self.console.print(table)

    @contextlib.contextmanager
    def progress(self, description: str) -> Iterator[Any]:
        """A progress display on stderr while the block runs (only on a terminal);
        yields a function ``update(text)`` that says how far the work is."""
        import sys

        if not is_terminal(sys.stderr):
            yield lambda text: None
            return
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TextColumn("[dim]{task.fields[status]}"),
            TimeElapsedColumn(),
            console=Console(file=sys.stderr),
            transient=True,
        )
        with progress:
            task = progress.add_task(description, total=None, status="")
            yield lambda text: progress.update(task, status=text)


def plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a rule under the headers.

    >>> print(plain_table(("a", "bb"), [("xyz", "1")]))
    a    bb
    ---  --
    xyz  1
    """
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=False)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)])


def model_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options for the model's adapter from ``--base-url``, ``--api-key`` and
    ``--api-key-env`` (a local server that needs no key gets a placeholder one).

    >>> model_options(argparse.Namespace(base_url="http://127.0.0.1:8080/v1",
    ...                                  api_key=None, api_key_env=None))
    {'base_url': 'http://127.0.0.1:8080/v1', 'api_key': 'none'}
    """
    options: dict[str, Any] = {}
    if getattr(args, "base_url", None):
        options["base_url"] = args.base_url
    key = getattr(args, "api_key", None)
    variable = getattr(args, "api_key_env", None)
    if variable:
        key = os.environ.get(variable)
        if not key:
            raise UsageError(
                f"the environment variable {variable} is not set",
                hint=f"export {variable}=... or pass another --api-key-env",
            )
    if key:
        options["api_key"] = key
    elif "base_url" in options:
        options["api_key"] = "none"  # local servers take any key; the SDK wants one
    return options


def add_model_options(sub: argparse.ArgumentParser, *, model_required: bool = False) -> None:
    """``--base-url``, ``--api-key`` and ``--api-key-env`` (see :func:`model_options`);
    with ``model_required``, ``--model`` too (a command that cannot run without one).

    >>> sub = argparse.ArgumentParser()
    >>> add_model_options(sub, model_required=True)
    >>> sub.parse_args(["--model", "openai-chat:m", "--base-url", "http://127.0.0.1:8080/v1"]).base_url
    'http://127.0.0.1:8080/v1'
    """
    if model_required:
        sub.add_argument(
            "--model",
            required=True,
            metavar="MODEL",
            help="openai:NAME, openai-chat:NAME (also local servers with --base-url), "
            "anthropic:NAME or scripted:PATH",
        )
    sub.add_argument(
        "--base-url",
        metavar="URL",
        help="the provider's URL, or a local OpenAI-compatible server's "
        "(llama-server, vLLM, Ollama: http://127.0.0.1:8080/v1) with openai-chat:NAME",
    )
    sub.add_argument(
        "--api-key",
        metavar="KEY",
        help="the provider's API key (default: OPENAI_API_KEY or ANTHROPIC_API_KEY)",
    )
    sub.add_argument("--api-key-env", metavar="VAR", help="read the API key from this variable")
