"""Dependency bounds: each runtime dependency and extra is bounded both ways, and a
failed run names the packages that changed since the last green set."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DEV_ONLY = {"dev"}  # the contributors' tools: newest wanted, never a user's install


def _bounds(text: str) -> tuple[Version | None, Version | None]:
    lower = upper = None
    for spec in Requirement(text).specifier:
        if spec.operator == ">=":
            lower = Version(spec.version)
        elif spec.operator == "<":
            upper = Version(spec.version)
    return lower, upper


def _user_facing() -> list[str]:
    extras = PROJECT["optional-dependencies"]
    return [
        *PROJECT["dependencies"],
        *(r for k, rs in extras.items() if k not in DEV_ONLY for r in rs),
    ]


@pytest.mark.parametrize("text", _user_facing())
def test_every_dependency_has_a_lower_bound_and_an_upper_bound_below_the_next_major(
    text: str,
) -> None:
    lower, upper = _bounds(text)

    assert lower is not None, f"{text}: no lower bound"
    assert upper is not None, f"{text}: no upper bound"
    # below the next major version after the one tested (1.0 for a 0.x package); `make test`
    # installs every extra, so each is tested at its newest allowed version
    name = Requirement(text).name
    assert _installed(name), f"{name} is not installed: add its extra to EXTRAS in the Makefile"
    # the newest version tested: installed here, or recorded by the last green `make test`
    # (a venv with the lower bounds installed, `make test-lowest`, has only the oldest)
    recorded = _tested().get(canonicalize_name(name))
    newest = max(Version(metadata.version(name)), Version(recorded or "0"))
    assert upper <= Version(str(newest.major + 1)), f"{text}: upper bound past the next major"


def test_the_installed_versions_are_within_the_bounds() -> None:
    outside = [
        f"{text} (installed {metadata.version(Requirement(text).name)})"
        for text in _user_facing()
        if Requirement(text).marker is None
        and _installed(Requirement(text).name)
        and metadata.version(Requirement(text).name) not in Requirement(text).specifier
    ]
    assert outside == []


def _tested() -> dict[str, str]:
    """The versions of the last green `make test` (.ci/tested-versions.txt), by name."""
    lines = (ROOT / ".ci" / "tested-versions.txt").read_text(encoding="utf-8").splitlines()
    pins = (line.partition("==") for line in lines if line and not line.startswith("#"))
    return {canonicalize_name(name): version for name, _, version in pins}


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def _deps_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_deps", ROOT / ".ci" / "deps.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_failure_names_the_packages_that_changed_since_the_last_green_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    deps = _deps_script()
    tested = tmp_path / "tested-versions.txt"
    pins = sorted(f"{name}=={version}" for name, version in deps.installed().values())
    pins = [("PyYAML==0.1" if pin.lower().startswith("pyyaml==") else pin) for pin in pins]
    tested.write_text("# comment\n" + "\n".join([*pins, "gone-package==1.0"]) + "\n")
    monkeypatch.setattr(deps, "TESTED", tested)

    deps.main(["blame"])

    now = metadata.version("PyYAML")
    assert capsys.readouterr().err == (
        "\nThe checks failed.\n"
        "These installed versions differ from the last set that passed "
        "(.ci/tested-versions.txt); a new release among them is the likely cause:\n"
        f"  gone-package 1.0 -> absent\n  PyYAML 0.1 -> {now}\n"
        "Try the old version of each (pip install NAME==OLD) to find it, then fix the code "
        "or bound the dependency below the release in pyproject.toml.\n"
    )


def test_the_lowest_pins_are_the_lower_bounds_of_the_base_dependencies() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "deps.py"), "lowest"],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [f"{Requirement(t).name}=={_bounds(t)[0]}" for t in PROJECT["dependencies"]]
    assert done.stdout.split() == expected
