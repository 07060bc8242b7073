"""Turn the shared tool catalogues into the neutral files ``benchmarks/tokens.py`` reads.

Run: ``python benchmarks/convert.py`` (writes into ``build/bench/``, which git ignores:
the catalogues are others' data and are read by path, never copied into the project).

Neutral files:

- tools: an OpenAI-format tools file, ``[{"type": "function", "function": {...}}]``;
- tasks: ``[{"id": ..., "turns": [[{"name": ..., "arguments": {...}}, ...], ...]}]``,
  optionally with ``baseline_tools``, the tools the original benchmark itself shows for
  the task; a call may say ``"fails": true`` when the benchmark's environment answered
  it with an error (the replay's tool then fails too).

Catalogues (under ``../shared/catalogues``, or ``--shared``):

- ``bfcl``: BFCL multi-turn base, 200 tasks, each user turn with its ground-truth calls;
  the tools of every API class a task involves (the memory classes, which no base task
  uses and whose tool names clash, are left out);
- ``tau_retail``, ``tau_airline``: tau-bench test tasks, one turn holding the task's
  ground-truth actions (the tools file is the shared one, used as is); a user-id look-up
  directly followed by another one is marked as failing;
- ``github``: the GitHub MCP server's 117 tools, one task per tool calling just that tool
  with placeholder values for its required arguments.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay import placeholder

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "catalogues"
BUILD = ROOT / "build" / "bench"


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _calls(items: list[Mapping[str, Any]], arguments: str) -> list[dict[str, Any]]:
    return [{"name": c["name"], "arguments": dict(c.get(arguments) or {})} for c in items]


def bfcl(shared: Path, out: Path) -> tuple[Path, Path]:
    """BFCL multi-turn base: tools of the classes the tasks involve, and the tasks."""
    classes = _read(shared / "bfcl" / "bfcl_multi_turn_tools_by_class.json")["classes"]
    tasks = _read(shared / "bfcl" / "bfcl_tasks_multi_turn_base.json")["tasks"]
    involved = {name for task in tasks for name in task["involved_classes"]}
    used = [name for name in classes if name in involved]
    tools = [tool for name in used for tool in classes[name]["tools"]]
    neutral = []
    for task in tasks:
        excluded = set(task.get("excluded_function") or ())
        shown = [
            tool["function"]["name"]
            for name in task["involved_classes"]
            for tool in classes[name]["tools"]
            if tool["function"]["name"] not in excluded
        ]
        neutral.append(
            {
                "id": task["id"],
                "turns": [_calls(turn, "arguments") for turn in task["ground_truth"]],
                "baseline_tools": shown,
            }
        )
    return _write(out / "bfcl_tools.json", tools), _write(out / "bfcl_tasks.json", neutral)


IDENTIFY = {"find_user_id_by_email", "find_user_id_by_name_zip"}
"""tau-bench retail's look-ups of a customer's user id."""


def _mark_failed_lookups(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mark the user-id look-ups that tau-bench's environment answered with an error:
    a look-up followed directly by another one (a customer is identified once; the
    ground truth tries again only after "user not found")."""
    for call, following in itertools.pairwise(calls):
        if call["name"] in IDENTIFY and following["name"] in IDENTIFY:
            call["fails"] = True
    return calls


def tau(shared: Path, out: Path, domain: str) -> tuple[Path, Path]:
    """tau-bench test tasks of ``domain``: one turn with the ground-truth actions."""
    data = _read(shared / "tau_bench" / f"{domain}_tasks_test.json")
    neutral = [
        {
            "id": f"{domain}_{task.get('task_index', index)}",
            "turns": [_mark_failed_lookups(_calls(task["actions"], "kwargs"))],
        }
        for index, task in enumerate(data["tasks"])
    ]
    tools = shared / "tau_bench" / f"{domain}_tools.openai.json"
    return tools, _write(out / f"tau_{domain}_tasks.json", neutral)


def github(shared: Path, out: Path) -> tuple[Path, Path]:
    """GitHub MCP: one task per tool, calling it with placeholder required arguments."""
    tools = shared / "github_mcp" / "github_mcp_tools.openai.json"
    neutral = [
        {
            "id": item["function"]["name"],
            "turns": [
                [
                    {
                        "name": item["function"]["name"],
                        "arguments": placeholder(item["function"].get("parameters") or {}),
                    }
                ]
            ],
        }
        for item in _read(tools)
    ]
    return tools, _write(out / "github_tasks.json", neutral)


def convert_all(shared: Path = SHARED, out: Path = BUILD) -> dict[str, tuple[Path, Path]]:
    """Every catalogue: name -> (tools file, tasks file)."""
    return {
        "bfcl": bfcl(shared, out),
        "tau_retail": tau(shared, out, "retail"),
        "tau_airline": tau(shared, out, "airline"),
        "github": github(shared, out),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared catalogues")
    parser.add_argument("--out", type=Path, default=BUILD, help="where to write")
    args = parser.parse_args()
    for name, (tools, tasks) in convert_all(args.shared, args.out).items():
        print(f"{name}: --tools {tools} --tasks {tasks}")


if __name__ == "__main__":
    main()
