"""The guides in docs/ run as written: each page's python blocks, top to bottom; what a
page says it prints is printed; the commands shown run and print what is shown; links
resolve; and the pages name every command, option, event and loop option there is."""

from __future__ import annotations

import argparse
import inspect
import io
import re
import runpy
import shlex
import sys
import tomllib
import types
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

import statetools as st
from statetools.cli import _parser, main
from statetools.engine import events

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [
    "loop.md",
    "engine.md",
    "playbooks.md",
    "state-machines.md",
    "search.md",
    "mcp.md",
    "durable.md",
    "sections.md",
    "skills.md",
    "code-mode.md",
]
# Pages whose python blocks another test runs (and that test's file names the page).
RUN_ELSEWHERE = {
    "tools.md": "tests/tools/test_tools_docs.py",
    "unfolding.md": "tests/unfolding/test_docs.py",
    "chaining.md": "tests/unfolding/test_docs.py",
    "wrappers.md": "tests/unfolding/test_docs.py",
    "yaml.md": "tests/spec/test_docs.py",
    "providers.md": "tests/providers/test_docs_examples.py",
    "review.md": "tests/review/test_review_docs.py",
    "integrations.md": "tests/integrations/test_docs_integrations.py",
    "testing.md": "tests/testing/test_user_project.py",
    "eval.md": "tests/evaluation/test_eval_docs.py",
}
ALL_PAGES = sorted(path.name for path in DOCS.glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def _read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", [*PAGES, "../README.md"])
def test_page_runs(
    page: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _read(page)
    blocks = python_blocks(text)
    assert blocks, f"{page} has no python examples"
    module = types.ModuleType(f"docs_{Path(page).stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number, block in enumerate(blocks, start=1):
        code = compile(block, f"docs/{page} block {number}", "exec")
        exec(code, module.__dict__)
    printed = capsys.readouterr().out
    for shown in re.findall(r"prints\n\n```text\n(.*?)```", text, flags=re.DOTALL):
        assert shown in printed


def test_every_page_with_python_examples_is_run_by_a_test() -> None:
    for page in ALL_PAGES:
        if not python_blocks(_read(page)) or page in PAGES:
            continue
        assert page in RUN_ELSEWHERE, f"no test runs the examples of docs/{page}"
        assert page in (ROOT / RUN_ELSEWHERE[page]).read_text(encoding="utf-8")


def test_the_readme_links_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [page for page in ALL_PAGES if f"](docs/{page})" not in readme] == []


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _outside_code(text: str) -> str:
    return FENCE.sub("", text)


@pytest.mark.parametrize("page", [*ALL_PAGES, "../README.md"])
def test_relative_links_resolve(page: str) -> None:
    source = DOCS / page
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _outside_code(_read(page))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        destination = (source.parent / path) if path else source
        if not destination.exists():
            broken.append(target)
        elif anchor and destination.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", _outside_code(destination.read_text()), re.M)
            if anchor not in {_slug(heading) for heading in headings}:
                broken.append(target)
    assert broken == []


def _console_commands() -> Iterator[tuple[str, str, str]]:
    for page in ALL_PAGES:
        for kind, block in FENCE.findall(_read(page)):
            if kind == "console":
                for command in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
                    line, _, shown = command.partition("\n")
                    yield page, line, shown


@pytest.mark.parametrize(("page", "line", "shown"), list(_console_commands()))
def test_console_examples_print_what_they_show(
    page: str, line: str, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "playbooks").symlink_to(ROOT / "playbooks")
    monkeypatch.chdir(tmp_path)
    program, *argv = shlex.split(line)
    assert program == "statetools"
    out = io.StringIO()
    assert main(argv, out) == 0
    if shown.endswith("...\n"):
        assert out.getvalue().startswith(shown.removesuffix("...\n"))
    else:
        assert out.getvalue() == shown


def _command_lines() -> Iterator[tuple[str, str]]:
    """Every `statetools ...` command in a code block of the docs and the README."""
    sources = {page: _read(page) for page in ALL_PAGES}
    sources["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    for page, text in sources.items():
        for kind, block in FENCE.findall(text):
            if kind in {"", "bash", "sh", "console"}:
                joined = block.replace("\\\n", " ")
                for line in joined.splitlines():
                    line = line.removeprefix("$ ")
                    if line.startswith("statetools "):
                        yield page, line


@pytest.mark.parametrize(("page", "line"), list(_command_lines()))
def test_every_command_shown_is_one_the_cli_takes(page: str, line: str) -> None:
    program, *argv = shlex.split(line, comments=True)
    assert program == "statetools"
    _parser().parse_args(argv)  # exits with status 2 on an unknown command or option


def _subcommands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _subcommands(sub, (*prefix, name))


def test_the_cli_page_describes_every_command_and_option() -> None:
    text = _read("cli.md")
    missing = []
    for names, sub in _subcommands(_parser()):
        if f"## {' '.join(names)}" not in text:
            missing.append(" ".join(names))
        for action in sub._actions:
            missing += [
                f"{' '.join(names)} {option}"
                for option in action.option_strings
                if option.startswith("--")
                and option != "--help"
                and not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)
            ]
    assert missing == []


def test_the_loop_page_names_every_event_and_every_loop_option() -> None:
    text = _read("loop.md")
    names = [event.__name__ for event in typing.get_args(events.Event)]
    assert [name for name in names if f"`{name}`" not in text] == []
    options = inspect.signature(st.ToolLoop).parameters
    table = text.split("## Options", 1)[1].split("\n## ", 1)[0]
    assert [name for name in options if name != "model" and f"`{name}`" not in table] == []


def test_the_figures_of_the_readme_are_those_of_the_results() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    saves = readme.split("What it saves:", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"\d[\d,]*", saves) == ["117", "25,688", "844"]
    assert (
        "GitHub MCP server, toolset facades: 117 tools, 25,688 tokens flat; first request "
        "of the design (`github.yaml`) 844 tokens." in results
    )


def test_the_figures_of_the_search_page_are_those_of_the_results() -> None:
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    section = _read("search.md").split("## What it saves", 1)[1]
    figures = re.findall(r"\d+,\d{3}|\d+\.\d+x?", section)
    assert figures == ["6,302", "6,539", "1.59x", "0.0529", "0.0532"]
    assert [figure for figure in figures if figure not in results] == []


def test_the_figures_of_the_layered_cache_paragraph_are_those_of_the_results() -> None:
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    section = _read("search.md").split("### Layered detail and the prompt cache", 1)[1]
    prose = FENCE.sub("", section.split("\n## ", 1)[0])
    figures = re.findall(r"\d+,\d{3}|\d+\.\d+|\b\d{3}\b", prose)
    assert len(figures) == 15
    assert [figure for figure in figures if figure not in results] == []


def test_the_versions_the_bridges_are_tested_with_are_the_lowest_the_project_takes() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"].values()
    lowest = dict(
        re.findall(r"^([\w-]+)>=([\d.]+)", "\n".join(r for group in extras for r in group), re.M)
    )
    table = _read("integrations.md").split("| tested with |", 1)[1].split("\n\n", 1)[0]
    tested = re.findall(r"([a-z][\w-]+) (\d+\.\d+)", table)
    assert len(tested) == 6
    assert [(name, version) for name, version in tested if lowest[name] != version] == []


def _yaml_examples() -> Iterator[tuple[str, int, str]]:
    for page in ALL_PAGES:
        blocks = [block for kind, block in FENCE.findall(_read(page)) if kind == "yaml"]
        for number, block in enumerate(blocks, start=1):
            yield page, number, block


# What a YAML example may name without defining it: tools, files and the example app.
OUTSIDE_THE_EXAMPLE = ("unknown tool ", "cannot read ", "cannot import 'myapp.")


@pytest.mark.parametrize(("page", "number", "block"), list(_yaml_examples()))
def test_every_yaml_example_uses_only_keys_and_values_the_loader_takes(
    page: str, number: int, block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        st.load_design(block)
    except st.SpecError as error:
        problems = [problem.message for problem in error.problems]
        assert [p for p in problems if not p.startswith(OUTSIDE_THE_EXAMPLE)] == []


def test_the_quickstart_example_prints_its_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(ROOT / "examples" / "quickstart.py"), run_name="__main__")
    answer = "It is 18 °C (64.4 °F) in Paris; there is no station in Atlantis."
    assert capsys.readouterr().out == (
        "system: You answer weather questions with the tools.\n"
        "user: How warm is it in Paris and Atlantis, in Fahrenheit?\n"
        "assistant -> temperature({'city': 'Paris'})\n"
        "assistant -> temperature({'city': 'Atlantis'})\n"
        "tool temperature: 18\n"
        "tool temperature (error): Tool 'temperature' failed: no weather station in Atlantis\n"
        "assistant -> to_fahrenheit({'celsius': 18})\n"
        "tool to_fahrenheit: 64.4\n"
        f"assistant: {answer}\n"
        "\n"
        f"3 model calls; output: {answer!r}\n"
    )
