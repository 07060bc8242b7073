"""A real model, flat against the repo's designs: ``statetools eval`` on shared tasks.

Not a test: it needs a running OpenAI-compatible server (llama.cpp's ``llama-server``
with Qwen2.5-Coder-1.5B-Instruct Q4_K_M in benchmarks/RESULTS.md) and the shared
catalogues (read by path at run time; nothing of them is committed). It writes a task
file built from the catalogue's tasks into ``build/real/`` and runs it flat and with
each design, resumably (run it again after an interruption and it continues).

tau-bench retail: every eleventh test task (0, 11, 22, ...; then 5, 16, ...) among those
whose ground truth starts by identifying the customer. The user message is the task's
instruction (a customer described in the second person); success is the task's first
``--calls`` ground-truth calls, in order, with their arguments (names in any
capitalisation, order ids with or without ``#``). The canned results are built from the
ground truth: the user id for the customer's own email or name and zip code (anything
else is "user not found"), the order's status (pending when the
ground truth changes it, delivered when it returns or exchanges) and its item ids.

BFCL multi-turn: the first user turn of tasks that involve only the file system and
math classes; success is that turn's ground-truth calls by name, in order. Flat shows
the tools of those two classes.

    python benchmarks/convert.py      # the BFCL tools file the bfcl designs read
    python benchmarks/real_model.py --base-url http://127.0.0.1:8080/v1 \\
        --model openai-chat:qwen2.5-coder-1.5b --suite tau_retail --tasks 10
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from statetools.evaluation import EvalReport, Progress, TaskSuite, evaluate, load_tasks

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_section

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "catalogues"
BUILD = ROOT / "build" / "real"
DESIGNS = ROOT / "benchmarks" / "designs"

RETAIL_SYSTEM = (
    "You are the help desk agent of an online shop. The user message describes a "
    "customer (in the second person) and what they want. Act for the customer with the "
    "tools: identify the customer first, then look up what you need. Call one tool at a "
    "time."
)
BFCL_SYSTEM = "You are an assistant with tools. Do what the user asks by calling the tools."
BFCL_CLASSES = {"GorillaFileSystem", "MathAPI"}
LOOKUPS = {"find_user_id_by_email", "find_user_id_by_name_zip"}


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _name_variants(value: Any) -> Any:
    if isinstance(value, str):
        return {"any_of": sorted({value, value.lower(), value.capitalize()})}
    return value


def _retail_expectation(call: Mapping[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for key, value in dict(call.get("kwargs") or {}).items():
        if key in ("first_name", "last_name"):
            arguments[key] = _name_variants(value)
        elif key == "order_id" and isinstance(value, str):
            arguments[key] = {"any_of": [value, value.lstrip("#")]}
        elif key == "email" and isinstance(value, str):
            arguments[key] = {"any_of": sorted({value, value.lower()})}
        else:
            arguments[key] = value
    return {"name": call["name"], "arguments": arguments}


def _retail_results(task: Mapping[str, Any]) -> dict[str, Any]:
    actions = task["actions"]
    user = str(task.get("user_id") or "unknown_user")
    orders = sorted({a["kwargs"]["order_id"] for a in actions if "order_id" in a["kwargs"]})
    changes = {a["name"] for a in actions}
    status = (
        "pending"
        if changes
        & {
            "cancel_pending_order",
            "modify_pending_order_items",
            "modify_pending_order_address",
            "modify_pending_order_payment",
        }
        else "delivered"
    )
    items = sorted({str(i) for a in actions for i in a["kwargs"].get("item_ids") or ()})
    lookups = [a for a in actions if a["name"] in LOOKUPS]
    return {
        # the user id for the customer's own details only, as the shop would answer
        **{
            name: {
                "cases": [
                    {"when": _retail_expectation(a)["arguments"], "result": user}
                    for a in lookups
                    if a["name"] == name
                ],
                "otherwise": {"error": "Error: user not found"},
            }
            for name in sorted(LOOKUPS)
        },
        "get_user_details": {"user_id": user, "orders": orders},
        "get_order_details": {
            "cases": [
                {
                    "when": {"order_id": {"any_of": [order, order.lstrip("#")]}},
                    "result": {
                        "order_id": order,
                        "user_id": user,
                        "status": status,
                        "item_ids": items,
                    },
                }
                for order in orders
            ],
            "otherwise": {"error": "Error: order not found"},
        },
    }


def tau_retail(count: int, calls: int) -> dict[str, Any]:
    """A task file for ``count`` tau-bench retail test tasks (spread over the set)."""
    data = _read(SHARED / "tau_bench" / "retail_tasks_test.json")
    tasks = data["tasks"]
    step = max(1, len(tasks) // count)
    chosen = []
    for offset in (0, step // 2):  # every step-th task, then those halfway between
        for index in range(offset, len(tasks), step):
            actions = tasks[index]["actions"]
            # only tasks whose ground truth starts by identifying the customer (others
            # start with a change whose item ids only the ground truth knows)
            if actions and actions[0]["name"] in LOOKUPS and len(chosen) < count:
                chosen.append(tasks[index])
    return {
        "tools_from": str(SHARED / "tau_bench" / "retail_tools.openai.json"),
        "system_prompt": RETAIL_SYSTEM,
        "max_iterations": calls + 2,
        "tasks": [
            {
                "id": f"retail-{task.get('task_index', i)}",
                "prompt": task["instruction"],
                "expect": [_retail_expectation(c) for c in task["actions"][:calls]],
                "results": _retail_results(task),
            }
            for i, task in enumerate(chosen)
        ],
    }


def bfcl(count: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A task file for ``count`` BFCL tasks on the file system and math classes, and
    the flat catalogue (those classes' tools) as OpenAI tools."""
    by_class = _read(SHARED / "bfcl" / "bfcl_multi_turn_tools_by_class.json")["classes"]
    tasks = _read(SHARED / "bfcl" / "bfcl_tasks_multi_turn_base.json")["tasks"]
    chosen = [
        t for t in tasks if set(t["involved_classes"]) <= BFCL_CLASSES and t["ground_truth"][0]
    ][:count]
    tools = []
    for name in sorted(BFCL_CLASSES):
        entries = by_class[name]["tools"]
        tools += [e if "function" in e else {"type": "function", "function": e} for e in entries]
    suite = {
        "system_prompt": BFCL_SYSTEM,
        "max_iterations": 6,
        "tasks": [
            {
                "id": task["id"],
                "prompt": task["question_turns"][0][-1]["content"],
                "expect": [{"name": call["name"]} for call in task["ground_truth"][0]],
            }
            for task in chosen
        ],
    }
    return suite, tools


def hybrid_search(example_requests: Path) -> Path:
    """``bfcl_search.yaml`` with the hybrid ranker and the example requests of
    ``example_requests`` (written by ``example_requests.py``; kept outside the
    repository, as the design copy in ``build/real/`` is)."""
    text = (DESIGNS / "bfcl_search.yaml").read_text(encoding="utf-8")
    search = f"search: {{max_results: 3, ranker: hybrid, example_requests: {example_requests}}}"
    text = text.replace("search: {max_results: 3}", search)
    text = text.replace(
        "tools_from: ../../build/bench/", f"tools_from: {ROOT / 'build' / 'bench'}/"
    )
    path = BUILD / "bfcl_search_hybrid.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _progress(step: Progress) -> None:
    record = step.record
    if record is None:
        print(f"{step.resumed} of {step.total} runs already done", file=sys.stderr, flush=True)
        return
    print(
        f"[{step.done}/{step.total}] {'ok  ' if record.success else 'FAIL'} {record.condition} "
        f"{record.task}: {record.requests} requests, {record.prompt_tokens} prompt tokens, "
        f"{record.wall:.0f} s {record.error or ''} {record.reason}",
        file=sys.stderr,
        flush=True,
    )


def expected_made(report: EvalReport, suite: TaskSuite) -> str:
    """A Markdown table: per task and condition, how many of the expected calls were
    made, in order (``2/2`` is a success; ``1/2`` got the first call right)."""
    made: dict[tuple[str, str], int] = {}
    for record in report.records:
        task = suite.task(record.task)
        count = 0
        for name, arguments in record.calls:
            if count < len(task.expect) and task.expect[count].matches(name, arguments):
                count += 1
        made[(record.condition, record.task)] = count
    lines = [
        "| task | " + " | ".join(report.conditions) + " |",
        "|---|" + "---:|" * len(report.conditions),
    ]
    for task in suite.tasks:
        cells = [f"{made[(c, task.id)]}/{len(task.expect)}" for c in report.conditions]
        lines.append(f"| {task.id} | " + " | ".join(cells) + " |")
    firsts = [sum(made[(c, t.id)] >= 1 for t in suite.tasks) for c in report.conditions]
    lines.append(
        "| first call right | " + " | ".join(f"{n}/{len(suite.tasks)}" for n in firsts) + " |"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="openai-chat:qwen2.5-coder-1.5b")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--suite", choices=("tau_retail", "bfcl"), default="tau_retail")
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--calls", type=int, default=2, help="ground-truth calls to expect")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--max-tokens", type=int, default=200, help="per response")
    parser.add_argument(
        "--label", help="names the files in build/real/ (default: the suite's name)"
    )
    parser.add_argument(
        "--example-requests",
        type=Path,
        help="BFCL: compare the search design as it is with the hybrid ranker and these "
        "example requests (a JSON file from example_requests.py) instead of the designs",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="only copy the committed results (real_model.md) into RESULTS.md",
    )
    args = parser.parse_args()
    if args.write:
        write_section("real-model", (Path(__file__).parent / "real_model.md").read_text())
        return
    label = args.label or args.suite
    BUILD.mkdir(parents=True, exist_ok=True)
    if args.suite == "tau_retail":
        suite = tau_retail(args.tasks, args.calls)
        designs = {
            "machine": DESIGNS / "tau_retail.yaml",
            "search": DESIGNS / "tau_retail_search.yaml",
        }
    else:
        suite, tools = bfcl(args.tasks)
        tools_file = BUILD / "bfcl_flat_tools.json"
        tools_file.write_text(json.dumps(tools, indent=1) + "\n", encoding="utf-8")
        suite["tools_from"] = str(tools_file)
        designs = {"facades": DESIGNS / "bfcl.yaml", "search": DESIGNS / "bfcl_search.yaml"}
        if args.example_requests is not None:
            designs = {
                "search": DESIGNS / "bfcl_search.yaml",
                "search hybrid": hybrid_search(args.example_requests),
            }
    task_file = BUILD / f"{label}_tasks.yaml"
    task_file.write_text(json.dumps(suite, indent=1) + "\n", encoding="utf-8")
    suite_loaded = load_tasks(task_file)
    report = evaluate(
        suite_loaded,
        args.model,
        {name: str(path) for name, path in designs.items()},
        concurrency=1,
        journal=BUILD / f"{label}.runs.jsonl",
        progress=_progress,
        model_options={
            "base_url": args.base_url,
            "api_key": "none",
            "temperature": 0,
            "timeout": args.timeout,
            "max_retries": 0,
            "max_tokens": args.max_tokens,
        },
    )
    (BUILD / f"{label}.json").write_text(report.dumps(), encoding="utf-8")
    (BUILD / f"{label}.svg").write_text(report.svg(), encoding="utf-8")
    print(report.markdown())
    print()
    print(expected_made(report, suite_loaded))


if __name__ == "__main__":
    main()
