"""The dependency versions the checks ran with, against the bounds and the last green set.

Run with the venv's Python (the Makefile does):

    deps.py lowest            the base dependencies pinned at their lower bounds (pip args)
    deps.py lowest --check    fail unless every base dependency is at its lower bound
    deps.py freeze            every installed distribution but statetools, as name==version
    deps.py changed           say which installed versions differ from the last green set
    deps.py blame             after a failure: name the packages that changed since then

The last green set is .ci/tested-versions.txt, written by `make tested-versions` after
`make test` passed. A fresh venv resolves the newest versions pyproject.toml allows, so
a new release that breaks statetools shows up in `blame` by name.
"""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
TESTED = ROOT / ".ci" / "tested-versions.txt"


def base_requirements() -> list[Requirement]:
    """The base (non-optional) dependencies of pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in project["dependencies"]]


def lower_bound(requirement: Requirement) -> str:
    """The version after ``>=`` in ``requirement``; every base dependency must state one."""
    for spec in requirement.specifier:
        if spec.operator == ">=":
            return spec.version
    raise SystemExit(f"pyproject.toml: {requirement} states no lower bound (>=)")


def installed() -> dict[str, tuple[str, str]]:
    """Every installed distribution but statetools: canonical name -> (name, version)."""
    found: dict[str, tuple[str, str]] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and canonicalize_name(name) != "statetools":
            found[canonicalize_name(name)] = (name, dist.version)
    return found


def tested() -> dict[str, tuple[str, str]]:
    """The last green set: canonical name -> (name, version); empty when never recorded."""
    if not TESTED.exists():
        return {}
    pins: dict[str, tuple[str, str]] = {}
    for line in TESTED.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = (name, version)
    return pins


def differences() -> list[str]:
    """'name old -> new' for each distribution whose version differs from the last green set."""
    now, then = installed(), tested()
    lines = []
    for key in sorted(now.keys() | then.keys()):
        name, new = now.get(key, (then.get(key, ("", ""))[0], "absent"))
        old = then.get(key, ("", "absent"))[1]
        if old != new:
            lines.append(f"{name} {old} -> {new}")
    return lines


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "lowest":
        pins = {canonicalize_name(r.name): (r.name, lower_bound(r)) for r in base_requirements()}
        if "--check" not in argv:
            print(" ".join(f"{name}=={version}" for name, version in pins.values()))
            return 0
        now = installed()
        wrong = [
            f"{name} {now.get(key, ('', 'absent'))[1]} (lower bound {version})"
            for key, (name, version) in pins.items()
            if now.get(key, ("", ""))[1] != version
        ]
        if wrong:
            print("not at their lower bounds: " + ", ".join(wrong), file=sys.stderr)
            return 1
        print(f"{len(pins)} runtime dependencies at their lower bounds")
        return 0
    if command == "freeze":
        print("# The versions `make test` last passed with (`make tested-versions` writes this).")
        for name, version in sorted(installed().values(), key=lambda nv: nv[0].lower()):
            print(f"{name}=={version}")
        return 0
    if command == "changed":
        changed = differences()
        if not TESTED.exists():
            print("dependencies: no tested set recorded yet (.ci/tested-versions.txt)")
        elif changed:
            print(
                f"dependencies: {len(changed)} differ from the last tested set: "
                + ", ".join(changed)
            )
        else:
            print("dependencies: the same versions as the last tested set")
        return 0
    if command == "blame":
        changed = differences()
        print("\nThe checks failed.", file=sys.stderr)
        if changed:
            print(
                "These installed versions differ from the last set that passed "
                "(.ci/tested-versions.txt); a new release among them is the likely cause:\n  "
                + "\n  ".join(changed)
                + "\nTry the old version of each (pip install NAME==OLD) to find it, then fix "
                "the code or bound the dependency below the release in pyproject.toml.",
                file=sys.stderr,
            )
        else:
            print("The dependencies are those of the last set that passed.", file=sys.stderr)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
