"""What stdio MCP servers write on stderr stays out of the review commands' output,
unless --verbose asks for it or the server fails (issue 30)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from statetools.cli import main

SCRIPT = Path(__file__).with_name("banner_server.py")


def design(tmp_path: Path, *args: str) -> Path:
    path = tmp_path / "notes.yaml"
    listed = ", ".join([f"'{SCRIPT}'", *args])
    path.write_text(
        f"mcp_servers:\n  notes: {{command: '{sys.executable}', args: [{listed}]}}\n"
        "definitions:\n  - {kind: facade, mcp: notes}\n"
    )
    return path


@pytest.mark.parametrize("command", ["check", "tokens", "explore"])
def test_a_servers_banner_stays_out_of_review_output(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([command, str(design(tmp_path))]) == 0
    out, err = capfd.readouterr()
    assert "BANNER" not in out + err
    assert out


def test_verbose_shows_the_banner(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["tokens", "--verbose", str(design(tmp_path))]) == 0
    out, err = capfd.readouterr()
    assert err == "BANNER: notes server 1.0 starting\n"
    assert "BANNER" not in out


def test_a_failing_server_shows_what_it_wrote(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(design(tmp_path, "fail"))]) == 2
    out, err = capfd.readouterr()
    assert out == ""
    assert err.startswith("statetools check: error: ")
    assert (
        "it wrote on stderr:\n    BANNER: notes server 1.0 starting\n"
        "    fatal: NOTES_TOKEN is not set Hint: check the command or url; run it by hand "
        "to see its own error\n"
    ) in err
