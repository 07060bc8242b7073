"""The oracle replay behind ``benchmarks/tokens.py``: ground-truth tool calls, replayed
through a statetools design, with the tool-definition tokens of every model request.

For each task the replay plays a scripted model that knows the task's ground-truth
calls. Whenever the next needed tool is visible it calls it (with the ground-truth
arguments); when it is not, it first makes the fewest disclosure calls that reveal it:
unfold a facade, call a prerequisite, take a transition. The fewest calls are found at
replay time by a breadth-first search from the run's current disclosure state, run on
copies of the real :class:`~statetools.Scheduler` (so the search sees exactly what the
loop will do, including the state reached by earlier turns); a placeholder value fills
each required argument of a disclosure call. Every tool returns the same short text,
except a ground-truth call marked ``fails`` (the benchmark's environment refused it),
which fails here too and so changes nothing.

The replay checks itself: at every request the tools the loop sent must be the ones
the oracle expects, no call may be blocked or fail (but those marked ``fails``), and at
the end every ground-truth call must have run, in order. A task where any of this does
not hold is a failure with its reason, never skipped.

Counted per task, for statetools and for two references on the same requests:

- *flat*: every tool of the catalogue in every request (no disclosure, no extra
  requests);
- *lower bound*: only the tools the task uses, each from the request that first calls
  it on, in the order of first use.

Tokens are o200k_base tokens of the ``tools`` array as the OpenAI adapter builds it
(compact JSON, as the SDK sends it). The billed-cost estimate assumes provider prompt
caching: the first request writes the tools to the cache (1.25x), a later request reads
the part of its tools array that equals the previous request's up to the first changed
tool (0.1x) and writes the rest (1.25x).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

import statetools as st
from statetools.engine.events import Event, StateEntered, ToolAnswered, ToolCalled
from statetools.engine.scheduler import Blocked
from statetools.models import ModelRequest, ScriptedModel
from statetools.models.base import ToolDefinition
from statetools.models.openai_chat import OpenAIChatModel, to_openai_tools
from statetools.review.tokens import array_tokens, count_text, wire_json
from statetools.tools.calling import Arguments, Context
from statetools.tools.descriptions import words

RESULT_TEXT = "ok"
"""What every replayed tool returns."""
FAILED_TEXT = "not found"
"""What a replayed tool returns for a ground-truth call marked ``fails``."""
FAILING = "replay_failing_calls"
"""Context key: the (name, arguments) keys of the calls that fail in this turn."""
MAX_SEARCH_STATES = 2_000
"""Disclosure states the search visits before a tool counts as unreachable."""
CACHE_READ = 0.1
CACHE_WRITE = 1.25
MAX_DISCLOSURE_DEPTH = 6
"""Disclosure calls the search tries before a tool counts as unreachable."""


# -- neutral input files --------------------------------------------------------------


@attrs.frozen
class Call:
    """One ground-truth tool call. ``fails``: the benchmark's environment answered it
    with an error (the replay's tool does too, and the call changes nothing)."""

    name: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    fails: bool = False

    @property
    def key(self) -> tuple[str, str]:
        """The call as (name, canonical JSON of the arguments)."""
        return call_key(self.name, self.arguments)


def call_key(name: str, arguments: Mapping[str, Any]) -> tuple[str, str]:
    """(name, canonical JSON of the arguments) of a call."""
    return name, json.dumps(arguments, sort_keys=True, default=str)


@attrs.frozen
class Task:
    """A task: its id and, per user turn, the calls that answer it (in order).

    ``baseline`` optionally names the tools the original benchmark itself shows for this
    task (BFCL shows only the classes a task involves).
    """

    id: str
    turns: tuple[tuple[Call, ...], ...]
    baseline: tuple[str, ...] | None = None

    @property
    def calls(self) -> list[Call]:
        """Every call of the task, turn after turn."""
        return [call for turn in self.turns for call in turn]


def read_tools(path: str | Path) -> list[ToolDefinition]:
    """The tools of an OpenAI-format tools file (a list, or a mapping with ``tools``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data["tools"] if isinstance(data, Mapping) else data
    definitions = []
    for item in items:
        function = item.get("function", item)
        definitions.append(
            ToolDefinition(
                function["name"],
                function.get("description", ""),
                function.get("parameters") or {"type": "object", "properties": {}},
            )
        )
    return definitions


def parse_tasks(data: Sequence[Mapping[str, Any]]) -> list[Task]:
    """Tasks from ``[{"id": ..., "turns": [[{"name", "arguments"}, ...], ...]}]``."""
    tasks = []
    for item in data:
        turns = tuple(
            tuple(
                Call(c["name"], dict(c.get("arguments") or {}), bool(c.get("fails", False)))
                for c in turn
            )
            for turn in item["turns"]
        )
        baseline = item.get("baseline_tools")
        tasks.append(Task(str(item["id"]), turns, None if baseline is None else tuple(baseline)))
    return tasks


def read_tasks(path: str | Path) -> list[Task]:
    """The tasks of a neutral tasks file (see :func:`parse_tasks`)."""
    return parse_tasks(json.loads(Path(path).read_text(encoding="utf-8")))


# -- tools that answer -----------------------------------------------------------------


@attrs.frozen(kw_only=True)
class FixedResultTool(st.BaseTool):
    """A catalogue tool for the replay: its real definition, and a fixed short result."""

    text: str = RESULT_TEXT

    async def acall(self, arguments: Arguments = None, context: Context = None) -> st.ToolResult:
        """Return the fixed text, whatever the arguments; an error for a call that the
        run's context lists under :data:`FAILING`."""
        failing = (context or {}).get(FAILING) or ()
        if isinstance(arguments, Mapping) and call_key(self.name, arguments) in failing:
            return st.ToolResult.error(FAILED_TEXT)
        return st.ToolResult.text(self.text)


def answering(tools: Iterable[st.BaseTool]) -> dict[str, st.BaseTool]:
    """A registry giving each (schema-only) tool a handler with the fixed result."""
    return {
        tool.name: FixedResultTool(
            name=tool.name, description=tool.description, input_schema=tool.input_schema
        )
        for tool in tools
    }


def load_replay_design(path: str | Path) -> st.Design:
    """A design file loaded with every schema-only tool answering :data:`RESULT_TEXT`."""
    bare = st.load_design(Path(path))
    return st.load_design(Path(path), tools=answering(bare.catalogue))


# -- placeholder arguments ------------------------------------------------------------


def placeholder(schema: Mapping[str, Any]) -> Any:
    """A small value that fits ``schema`` (required properties only)."""
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return placeholder(schema[key][0])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties") or {}
        return {
            name: placeholder(properties.get(name) or {}) for name in schema.get("required") or []
        }
    if kind == "array":
        items = schema.get("items") or {}
        return [placeholder(items) for _ in range(int(schema.get("minItems") or 0))]
    return {"integer": 1, "number": 1, "boolean": True, "null": None}.get(kind, "x")


SEARCH_BY = ("query", "names")
"""How the oracle searches a search facade for a tool, in order: ``query`` (the words of
the tool's name, as a model would type them; the facade opens its best matches) and
``names`` (the exact name; it opens only that tool). ``turn`` first asks for the exact
names of every tool the rest of the turn calls that is not shown yet, in one search."""


def candidate_arguments(
    tool: st.BaseTool,
    target: str | None = None,
    search_by: Sequence[str] = SEARCH_BY,
    wanted: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The argument sets a disclosure search tries for ``tool``: one per category of a
    by-category facade; for a search facade, searches for ``target`` (``search_by``,
    see :data:`SEARCH_BY`; ``wanted``: the tools the turn still needs); else one
    placeholder set."""
    if isinstance(tool, st.UnfoldingTool) and tool.search is not None:
        index = tool.search_index
        if target is None or index.tool(target) is None:
            return []
        batch = [n for n in dict.fromkeys([target, *wanted]) if index.tool(n) is not None]
        by = {
            "turn": {"names": batch},
            "query": {"query": " ".join(words(target))},
            "names": {"names": [target]},
        }
        return [by[way] for way in search_by]
    if isinstance(tool, st.UnfoldingTool) and tool.category_parameter is not None:
        return [{tool.category_parameter: category} for category, _ in tool.categories]
    value = placeholder(tool.input_schema)
    return [value if isinstance(value, dict) else {}]


# -- disclosure search -----------------------------------------------------------------


def _names(scheduler: st.Scheduler) -> tuple[str, ...]:
    return tuple(tool.name for tool in scheduler.visible())


async def simulate(
    scheduler: st.Scheduler,
    name: str,
    arguments: Mapping[str, Any],
    context: Mapping[str, Any] | None = None,
) -> bool | None:
    """Run one call on ``scheduler`` as the loop would: True if it succeeded, False if
    it ran and failed (recorded, as the loop does), None if it was refused."""
    resolved = scheduler.resolve(name)
    if resolved is None or isinstance(resolved, Blocked):
        return None
    result = await resolved.acall(dict(arguments), context)
    scheduler.record(st.ToolCall("search", name, dict(arguments)), result)
    return not result.is_error


def _key(graph: st.DisclosureGraph, scheduler: st.Scheduler) -> tuple[Any, ...]:
    """What decides what a state can reveal later (call counts only where they matter)."""
    state = scheduler.snapshot()
    counts = tuple(
        sorted(
            (name, min(count, 3))
            for name, count in state.call_counts.items()
            if graph.dependents_of_call(name)
        )
    )
    return (
        _names(scheduler),
        tuple(sorted(state.machine_states.items())),
        tuple(sorted(state.unfolds)),
        counts,
    )


async def disclosure_path(
    graph: st.DisclosureGraph,
    state: st.DisclosureState,
    target: str,
    *,
    max_depth: int = MAX_DISCLOSURE_DEPTH,
    max_states: int = MAX_SEARCH_STATES,
    search_by: Sequence[str] = SEARCH_BY,
    wanted: Sequence[str] = (),
) -> list[tuple[str, dict[str, Any]]] | None:
    """The fewest calls from ``state`` after which ``target`` is visible, breadth first
    (visible order breaks ties); [] if it is visible already, None if no path of at most
    ``max_depth`` calls was found among ``max_states`` states."""
    start = st.Scheduler(graph, state)
    if target in _names(start):
        return []
    seen = {_key(graph, start)}
    frontier: list[tuple[st.DisclosureState, list[tuple[str, dict[str, Any]]]]] = [(state, [])]
    for _ in range(max_depth):
        following = []
        for snapshot, path in frontier:
            for tool in st.Scheduler(graph, snapshot).visible():
                for arguments in candidate_arguments(tool, target, search_by, wanted):
                    trial = st.Scheduler(graph, snapshot)
                    if not await simulate(trial, tool.name, arguments):
                        continue
                    if len(seen) >= max_states:
                        return None
                    key = _key(graph, trial)
                    if key in seen:
                        continue
                    seen.add(key)
                    steps = [*path, (tool.name, arguments)]
                    if target in key[0]:
                        return steps
                    following.append((trial.snapshot(), steps))
        frontier = following
    return None


# -- the oracle model --------------------------------------------------------------------


class Oracle:
    """The scripted model's brain for one user turn: ground-truth calls, preceded by
    the fewest disclosure calls each needs. It keeps a shadow scheduler to plan, and
    stops the turn (with a failure) as soon as the run differs from its plan."""

    def __init__(
        self,
        graph: st.DisclosureGraph,
        calls: Sequence[Call],
        state: st.DisclosureState | None,
        search_by: Sequence[str] = SEARCH_BY,
    ) -> None:
        self.graph = graph
        self.search_by = tuple(search_by)
        self.pending: deque[Call] = deque(calls)
        self.plan: deque[tuple[str, dict[str, Any]]] = deque()
        self.shadow = st.Scheduler(graph, state)
        self.context = {FAILING: frozenset(call.key for call in calls if call.fails)}
        """The run's context: which calls the tools answer with an error."""
        self.disclosures = 0
        self.failure: str | None = None
        self.expect_error = False
        self.kinds: list[str] = []
        """What the response to each request was: call, disclosure, answer or stop."""

    def _stop(self, reason: str) -> str:
        self.failure = self.failure or reason
        return f"stopped: {self.failure}"

    async def step(self, request: ModelRequest) -> Any:
        """The next response: a call, or a text answer when the turn is done (or failed)."""
        response = await self._respond(request)
        if isinstance(response, str):
            self.kinds.append("stop" if self.failure else "answer")
        return response

    async def _respond(self, request: ModelRequest) -> Any:
        answered = [m for m in request.messages[-1:] if isinstance(m, st.ToolMessage)]
        if answered and answered[0].is_error != self.expect_error:
            return self._stop(f"'{answered[0].name}' answered: {answered[0].content}")
        if self.failure is not None:
            return self._stop(self.failure)
        expected = list(_names(self.shadow))
        if request.tool_names != expected:
            return self._stop(f"the loop sent {request.tool_names}, the plan expected {expected}")
        if not self.plan:
            if not self.pending:
                return "done"
            target = self.pending[0]
            if target.name not in expected:
                shown = set(expected)
                path = await disclosure_path(
                    self.graph,
                    self.shadow.snapshot(),
                    target.name,
                    search_by=self.search_by,
                    wanted=[c.name for c in self.pending if c.name not in shown],
                )
                if path is None:
                    return self._stop(f"no disclosure path reaches '{target.name}'")
                self.plan.extend(path)
        self.expect_error = False
        if self.plan:
            name, arguments = self.plan.popleft()
            self.disclosures += 1
            kind = "disclosure"
        else:
            call = self.pending.popleft()
            name, arguments = call.name, dict(call.arguments)
            self.expect_error = call.fails
            kind = "call"
        outcome = await simulate(self.shadow, name, arguments, self.context)
        if outcome is None or outcome == self.expect_error:
            return self._stop(f"'{name}' does not run as planned in the shadow scheduler")
        self.kinds.append(kind)
        return (name, arguments)


ModeMeasures = Callable[
    [Sequence[ModelRequest], Sequence[Sequence[str]], st.DisclosureGraph], Mapping[str, "Measure"]
]
"""Measures a task's requests per disclosure mode (``modes.measure_modes``)."""


# -- one task ------------------------------------------------------------------------------


def tools_entries(request: ModelRequest, adapter: OpenAIChatModel) -> list[str]:
    """The JSON text of each entry of the request's ``tools``, as the adapter sends them."""
    return [wire_json(entry) for entry in adapter.request_body(request).get("tools", [])]


def definition_entries(tools: Sequence[ToolDefinition]) -> list[str]:
    """The JSON text of each tool's entry, as the OpenAI adapter writes it."""
    return [wire_json(entry) for entry in to_openai_tools(tools)]


def _shared(entries: Sequence[str], previous: Sequence[str]) -> int:
    """How many leading entries two tools arrays share."""
    same = 0
    for a, b in zip(entries, previous, strict=False):
        if a != b:
            break
        same += 1
    return same


def billed(requests: Sequence[Sequence[str]]) -> float:
    """Estimated billed tool tokens with prompt caching (in uncached-token units): each
    request reads from the cache the tools its previous request also sent, up to the
    first changed entry (0.1x), and writes the rest (1.25x)."""
    total = 0.0
    previous: Sequence[str] | None = None
    for entries in requests:
        tokens = array_tokens(entries)
        cached = 0
        if previous is not None and entries:
            if list(entries) == list(previous):
                cached = tokens
            else:
                same = _shared(entries, previous)
                if same:
                    cached = min(tokens, count_text("[" + ",".join(entries[:same])))
        total += CACHE_READ * cached + CACHE_WRITE * (tokens - cached)
        previous = entries
    return total


def prefix_breaks(requests: Sequence[Sequence[str]]) -> int:
    """Requests whose tools differ from the previous request's before its end (so the
    cached prefix ends early); appending tools breaks nothing."""
    return sum(
        1 for before, after in itertools.pairwise(requests) if _shared(after, before) < len(before)
    )


def facades_kept(requests: Sequence[Sequence[str]], facades: set[str]) -> list[list[str]]:
    """The same requests as if unfolded facades stayed in place: a facade entry that
    leaves the array is kept where it was; every other change is as sent."""
    kept: list[list[str]] = []
    for entries in requests:
        if not kept:
            kept.append(list(entries))
            continue
        current = set(entries)
        staying = [e for e in kept[-1] if e in current or _entry_name(e) in facades]
        known = set(staying)
        kept.append(staying + [e for e in entries if e not in known])
    return kept


def _entry_name(entry: str) -> str:
    return str(json.loads(entry)["function"]["name"])


@attrs.frozen
class Measure:
    """Tool-definition tokens of one task under one way of sending tools."""

    requests: int
    tokens: int
    cost: float
    breaks: int


@attrs.frozen
class TaskResult:
    """What the replay of one task measured (``failure`` is None when it succeeded)."""

    id: str
    statetools: Measure
    flat: Measure
    lower: Measure
    baseline: Measure | None
    kept: Measure
    """statetools, had unfolded facades stayed in place (see :func:`facades_kept`)."""
    disclosures: int
    disclosure_tokens: int
    """Tool tokens of the requests answered with a disclosure call."""
    facades_opened: int
    states_entered: int
    failure: str | None
    modes: Mapping[str, Measure] = attrs.field(factory=dict)
    """The same requests measured per disclosure mode (see ``modes.py``), if asked."""

    @property
    def extra_requests(self) -> int:
        """Requests statetools needed beyond the flat replay's."""
        return self.statetools.requests - self.flat.requests


def reference_requests(task: Task, tools: Sequence[ToolDefinition] | None) -> list[list[str]]:
    """The tools entries of each request of a replay without disclosure: ``tools`` in
    every request, or (None) the lower bound: each tool used from its first call on."""
    entries = definition_entries(tools) if tools is not None else None
    requests: list[list[str]] = []
    used: dict[str, None] = {}
    for turn in task.turns:
        for call in [*turn, None]:
            if entries is not None:
                requests.append(entries)
                continue
            if call is not None:
                used[call.name] = None
            requests.append(list(used))
    return requests


def measure(requests: Sequence[Sequence[str]]) -> Measure:
    """Requests, summed tokens and billed cost of a replay's tools entries."""
    return Measure(
        len(requests),
        sum(array_tokens(e) for e in requests),
        billed(requests),
        prefix_breaks(requests),
    )


class Replay:
    """Replays tasks through one design against one catalogue."""

    def __init__(
        self,
        design: st.Design,
        catalogue: Sequence[ToolDefinition],
        *,
        listeners: Sequence[Callable[[Event], None]] = (),
        modes: ModeMeasures | None = None,
        search_by: Sequence[str] = SEARCH_BY,
        wrap: Callable[[ScriptedModel, st.DisclosureGraph], Any] | None = None,
    ) -> None:
        self.design = design
        self.wrap = wrap
        """Plays the oracle through another model (``search_mode.wrap``), if given."""
        self.graph = st.disclosure_graph(*design.tools)
        self.catalogue = list(catalogue)
        self.by_name = {tool.name: tool for tool in self.catalogue}
        self.texts = {
            t.name: text
            for t, text in zip(self.catalogue, definition_entries(self.catalogue), strict=True)
        }
        self.adapter = OpenAIChatModel("gpt-4o", api_key="offline")
        self.listeners = tuple(listeners)
        self.modes = modes
        self.search_by = tuple(search_by)

    def _lower(self, task: Task) -> list[list[str]]:
        return [
            [self.texts.get(name) or wire_json({"unknown": name}) for name in names]
            for names in reference_requests(task, None)
        ]

    def oracle(
        self, task: Task, number: int, turn: Sequence[Call], state: st.DisclosureState | None
    ) -> Oracle:
        """The scripted model's brain for turn ``number`` (from 1) of ``task`` (a
        subclass may search differently, e.g. with the user's words: ``user_words.py``)."""
        return Oracle(self.graph, turn, state, self.search_by)

    def run(self, task: Task, sent: list[ModelRequest] | None = None) -> TaskResult:
        """Replay one task (never raises for a task that cannot be replayed); ``sent``
        gets every model request made."""
        return asyncio.run(self.arun(task, sent))

    async def arun(self, task: Task, sent: list[ModelRequest] | None = None) -> TaskResult:
        """Replay one task, asynchronously."""
        events: list[Event] = []
        requests: list[ModelRequest] = []
        failure: str | None = None
        disclosures = 0
        kinds: list[str] = []
        state: st.DisclosureState | None = None
        messages: list[st.Message] = []
        for number, turn in enumerate(task.turns, start=1):
            oracle = self.oracle(task, number, turn, state)
            budget = (len(turn) + 1) * (MAX_DISCLOSURE_DEPTH + 1)
            scripted = ScriptedModel([oracle.step] * budget)
            model = self.wrap(scripted, self.graph) if self.wrap is not None else scripted
            first = len(events)
            loop = st.ToolLoop(  # replays report what a design cannot do, turn by turn
                model,
                max_iterations=budget,
                listeners=(events.append, *self.listeners),
                check_design=False,
            )
            try:
                result = await loop.arun(
                    [*messages, st.UserMessage(f"turn {number}")],
                    tools=[self.graph],
                    state=state,
                    context=oracle.context,
                )
            except st.StatetoolsError as error:
                failure = f"turn {number}: {error}"
                requests.extend(model.requests)
                break
            requests.extend(model.requests)
            kinds.extend(oracle.kinds)
            disclosures += oracle.disclosures
            messages, state = list(result.messages), result.state
            problem = oracle.failure or check_calls(events[first:], turn)
            if problem is not None:
                failure = f"turn {number}: {problem}"
                break
        if sent is not None:
            sent.extend(requests)
        baseline = None
        if task.baseline is not None:
            shown = [self.by_name[name] for name in task.baseline if name in self.by_name]
            baseline = measure(reference_requests(task, shown))
        entries = [tools_entries(r, self.adapter) for r in requests]
        return TaskResult(
            id=task.id,
            statetools=measure(entries),
            flat=measure(reference_requests(task, self.catalogue)),
            lower=measure(self._lower(task)),
            baseline=baseline,
            kept=measure(facades_kept(entries, set(self.graph.facades))),
            disclosures=disclosures,
            disclosure_tokens=sum(
                array_tokens(e)
                for e, kind in zip(entries, kinds, strict=False)
                if kind == "disclosure"
            ),
            facades_opened=sum(
                1
                for e in events
                if isinstance(e, ToolCalled)
                and e.name in self.graph.facades
                and e.outcome != "error"
            ),
            states_entered=sum(1 for e in events if isinstance(e, StateEntered)),
            failure=failure,
            modes=self.modes(requests, entries, self.graph) if self.modes else {},
        )


def check_calls(events: Sequence[Event], turn: Sequence[Call]) -> str | None:
    """None if a turn's events show every ground-truth call run, in order, and no call
    failed or was blocked but those marked ``fails``; else what went wrong."""
    errors = [e for e in events if isinstance(e, ToolAnswered) and e.is_error]
    if [e.name for e in errors] != [c.name for c in turn if c.fails]:
        unexpected = errors[0] if errors else None
        if unexpected is not None:
            return f"'{unexpected.name}' failed: {unexpected.text}"
        return "a call marked as failing did not fail"
    ran = [(e.name, dict(e.arguments)) for e in events if isinstance(e, ToolCalled)]
    wanted = [(c.name, dict(c.arguments)) for c in turn]
    position = 0
    for call in ran:
        if position < len(wanted) and call == wanted[position]:
            position += 1
    if position < len(wanted):
        return f"ground-truth call '{wanted[position][0]}' did not run"
    return None
