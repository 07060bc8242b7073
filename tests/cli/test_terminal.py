"""The CLI on a terminal (rich: colour, wrapping, tables) and off one (exact plain text),
and a quiet exit when the reader goes away."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from statetools.cli import main
from statetools.cli.transcript import _cut

ROOT = Path(__file__).resolve().parents[2]
RESEARCH = str(ROOT / "playbooks" / "research.yaml")
DESK = str(ROOT / "playbooks" / "support_desk.yaml")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LEGEND = "(< a call's result, x an error, + tools added, - tools hidden, > a state entered)"


class Terminal(io.StringIO):
    """What a terminal looks like to the CLI."""

    def isatty(self) -> bool:
        return True


def on_terminal(monkeypatch: pytest.MonkeyPatch, *argv: str, width: int = 60) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    out = Terminal()
    assert main(list(argv), out) in (0, 1)
    return out.getvalue()


def plain(*argv: str) -> str:
    out = io.StringIO()
    main(list(argv), out)
    return out.getvalue()


def test_the_plain_transcript_explains_its_markers_and_shows_the_answer_once() -> None:
    text = plain("run", RESEARCH)

    assert text.splitlines()[:2] == ["user: Why are some tides higher than others?", LEGEND]
    assert text.endswith(
        "  model calls: report\n"
        "    < report: # Why tides differ\n"
        "      \n"
        "      The moon drives the tides. When sun and moon line up the pulls add up (spring "
        "tides); at quarter moons they partly cancel (neap tides).\n"
        "      \n"
        "      Sources: n1, n2, n3\n"
        "finished (return_direct) after 6 model calls\n"
    )
    assert "\x1b[" not in text


def test_plain_text_cuts_long_lines_at_a_word_boundary() -> None:
    line = "alpha beta gamma delta epsilon"

    assert _cut(line, 20) == "alpha beta gamma..."
    assert _cut(line, 40) == line
    assert _cut("x" * 30, 20) == "x" * 17 + "..."


def test_on_a_terminal_the_transcript_is_coloured_and_wrapped_to_the_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = on_terminal(monkeypatch, "run", RESEARCH, width=60)
    lines = [line.rstrip() for line in ANSI.sub("", text).splitlines()]

    assert "\x1b[1;36mturn 1\x1b[0m" in text  # turns in bold cyan
    assert "\x1b[31mx analyze: Tool 'analyze' is locked." in text  # errors in red
    assert max(len(line) for line in lines) <= 60
    assert lines[lines.index("    < report: # Why tides differ") :][:5] == [
        "    < report: # Why tides differ",
        "",
        "      The moon drives the tides. When sun and moon line up",
        "    the pulls add up (spring tides); at quarter moons they",
        "    partly cancel (neap tides).",
    ]
    assert "...".join(lines).count("Sources: n1, n2, n3") == 1
    assert lines[-1] == "finished (return_direct) after 6 model calls"


def test_check_on_a_terminal_is_a_table(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    design = tmp_path / "bad.yaml"
    design.write_text(
        "kind: playbook\nname: p\ndescription: d\n"
        "tools: [{tool: tests.providers.provider_wire:SEARCH, unlocked_by: lookup}]\n"
    )

    monkeypatch.chdir(tmp_path)
    lines = ANSI.sub("", on_terminal(monkeypatch, "check", "bad.yaml", width=100)).splitlines()

    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in re.split("[┃│]", line)[1:-1]]

    assert cells(lines[1]) == ["where", "code", "severity", "rule", "message"]
    assert cells(lines[3])[:4] == ["bad.yaml:4", "ST001", "error", "unknown-reference"]
    assert cells(lines[4])[0] == "playbook:p/tool:search"
    assert lines[-1] == "3 errors, 0 warnings"


def test_explore_and_tokens_on_a_terminal_are_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    explored = ANSI.sub("", on_terminal(monkeypatch, "explore", RESEARCH, width=80))
    tokens = ANSI.sub("", on_terminal(monkeypatch, "tokens", DESK, "--vs-flat", width=80))

    assert "visible sets" in explored
    assert "│     1 │     2 │    112 │ search                     │" in explored
    assert "│ report    │     3 │     48 │ search, analyze, summarize │" in explored
    assert "│ first visible set                     │     3 │" in tokens
    assert tokens.endswith("first request saves 80.1% of the flat tool tokens\n")


class ClosesAfter(io.StringIO):
    """A reader that goes away after a few writes (as `| head` does)."""

    def __init__(self, writes: int) -> None:
        super().__init__()
        self.left = writes

    def write(self, text: str) -> int:
        if self.left <= 0:
            raise BrokenPipeError(32, "Broken pipe")
        self.left -= 1
        return super().write(text)


@pytest.mark.parametrize("writes", [0, 1, 3, 10])
def test_a_reader_that_goes_away_ends_the_command_quietly(
    writes: int, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["run", RESEARCH], ClosesAfter(writes))

    assert (status, capsys.readouterr().err) == (0, "")


def test_run_piped_into_head_exits_quietly() -> None:
    done = subprocess.run(
        [
            "bash",
            "-c",
            f'"{sys.executable}" -m statetools.cli run "{DESK}" | head -n 1; '
            'echo "status ${PIPESTATUS[0]}"',
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )

    assert done.stdout.splitlines()[-1] == "status 0"
    assert done.stderr == ""
