"""What crosses Temporal's boundary: the inputs and results of the session workflow
and its activities, as plain dataclasses of JSON values (Temporal's default data
converter reads and writes them).

No ``from __future__ import annotations`` here: the converter resolves each
dataclass's type hints whenever it reads a payload, and string annotations would be
evaluated again every time (three times slower for a session's input)."""

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SessionSettings:
    """How a session runs: the loop's settings and the workflow's limits.

    ``max_iterations``: model calls allowed per user message; ``tool_timeout``: seconds
    a tool call may take (a tool's own ``timeout`` wins), past which the model is told
    it timed out; ``model_timeout`` / ``model_attempts``: each model call's timeout and
    tries (Temporal retries it); ``tool_attempts``: tries of a tool call whose worker
    died; ``heartbeat_timeout``: seconds without a heartbeat from a running call
    before Temporal counts its worker as lost and runs the call again elsewhere;
    ``turns_per_run``: model calls before the workflow continues as new;
    ``system_prompt``: the session's system prompt (by default the design's own);
    ``end_on_final_state``: a call that brings a state machine to a final state ends
    the turn, its result's text being the answer (``ToolLoop(end_on_final_state=True)``).

    >>> SessionSettings(tool_timeout=5.0).max_iterations
    20
    """

    max_iterations: int = 20
    tool_timeout: float | None = None
    model_timeout: float = 120.0
    model_attempts: int = 3
    tool_attempts: int = 3
    heartbeat_timeout: float = 10.0
    turns_per_run: int = 200
    system_prompt: str | None = None
    visibility: str = "hidden"
    end_on_final_state: bool = False


@dataclass
class SessionInput:
    """The argument of the session workflow; continue-as-new carries the session in it.

    ``design`` is a reference the workers know (a YAML path or ``module:attribute``);
    ``prompt`` is the first user message; with ``wait_for_messages`` the session stays
    open for more messages until it is ended; ``output_type`` names the type final
    answers are read as (``module:Type``; see ``statetools.temporal.designs``).

    >>> SessionInput("playbooks/research.yaml", "Find tides").prompt
    'Find tides'
    """

    design: str
    prompt: str | None = None
    settings: SessionSettings = field(default_factory=SessionSettings)
    wait_for_messages: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)
    state: str | None = None
    pending: list[str] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    iterations_this_message: int = 0
    usage: list[int] = field(default_factory=lambda: [0, 0, 0])
    ended: bool = False
    runs: int = 1
    trace: list[dict[str, Any]] = field(default_factory=list)
    unfolds: list[dict[str, Any]] = field(default_factory=list)
    output_type: str | None = None


@dataclass
class SessionResult:
    """What a finished session returns: its last answer, every answer, the whole
    history (``statetools.messages.messages_from_json`` reads it), the disclosure
    state (``DisclosureState.from_json``), model calls made, workflow runs used, usage
    and the trace (``statetools.Trace.from_json``; one run per user message).

    >>> SessionResult("done", ["done"], [], "{}", 1, 1).output
    'done'
    """

    output: Any
    answers: list[Any]
    messages: list[dict[str, Any]]
    state: str
    iterations: int
    runs: int
    usage: list[int] = field(default_factory=lambda: [0, 0, 0])
    trace: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ModelCall:
    """The input of the model activity: the history and the visible tools.

    >>> ModelCall("playbooks/research.yaml", [{"role": "user", "content": "Hi"}], []).tools
    []
    """

    design: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


@dataclass
class ModelAnswer:
    """The output of the model activity: the assistant message and its usage.

    >>> ModelAnswer({"role": "assistant", "content": "Hi."}, "end_turn", [9, 2, 0]).stop_reason
    'end_turn'
    """

    message: dict[str, Any]
    stop_reason: str
    usage: list[int]


@dataclass
class ToolRun:
    """The input of the tool activity: the call, and the disclosure state it runs in
    (the activity resolves the tool from it, as the workflow did).

    >>> ToolRun("playbooks/research.yaml", "s1", {"role": "assistant"}, "{}", 30.0).session
    's1'
    """

    design: str
    session: str
    call: dict[str, Any]
    state: str
    tool_timeout: float | None


@dataclass
class ToolOutcome:
    """The output of the tool activity: what the model sees, the result's value when
    it is JSON (artifacts that are not stay behind, as their text), its kind and how
    long it ran; for a facade, what it opened (see ``statetools.temporal.unfolds``).

    >>> ToolOutcome("found 3 notes", is_error=False).kind
    'text'
    """

    content: str
    is_error: bool
    has_value: bool = False
    value: Any = None
    kind: str = "text"
    duration: float = 0.0
    unfolded: dict[str, Any] | None = None


@dataclass
class OutputCheck:
    """The input of the output activity: a final answer and the output type's reference.

    >>> OutputCheck("myapp.models:Report", '{"title": "Tides"}').output_type
    'myapp.models:Report'
    """

    output_type: str
    text: str


@dataclass
class OutputReading:
    """The output of the output activity: the answer's value as JSON when it could be
    read; otherwise what to tell the model and the error that ends the session if it
    was told already.

    >>> OutputReading(ok=True, value={"title": "Tides"}).correction
    ''
    """

    ok: bool
    value: Any = None
    correction: str = ""
    error: str = ""


@dataclass
class ScriptStep:
    """The input of the script activity: one step of a code-mode script in the sandbox.

    ``code`` starts the script; else ``snapshot`` (base64 of the paused sandbox) is
    resumed with ``answer`` (``{"value": ...}``, ``{"error": [kind, text]}`` or
    ``{"stop": text}``). ``names`` are the script's tool functions now, ``limits`` its
    limits (``seconds``, ``memory``, ``calls``, ``depth``, ``output``); ``printed`` /
    ``dropped`` what it printed so far, ``used`` the sandbox seconds it took so far.

    >>> ScriptStep("run_code", {"seconds": 5.0}, ["ping"], code="ping()").snapshot is None
    True
    """

    tool: str
    limits: dict[str, Any]
    names: list[str]
    code: str | None = None
    snapshot: str | None = None
    answer: dict[str, Any] | None = None
    printed: str = ""
    dropped: int = 0
    used: float = 0.0


@dataclass
class ScriptPaused:
    """The output of the script activity: the tool function the script called (with
    its arguments as JSON) and the paused sandbox; or, once it ended, ``result`` (the
    text the model reads and whether it is an error); and what it printed and used.

    >>> ScriptPaused(result={"content": "pong", "is_error": False}).function is None
    True
    """

    function: str | None = None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    snapshot: str | None = None
    result: dict[str, Any] | None = None
    printed: str = ""
    dropped: int = 0
    used: float = 0.0
