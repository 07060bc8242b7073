"""Evaluation with real models: does a design help, against every tool shown at once?

``st.evaluate(tasks, model, designs={...})`` runs every task of a task file under every
condition (flat, and each design) and returns an :class:`EvalReport`; the command is
``statetools eval TASKS --model MODEL --design NAME=FILE``. See docs/eval.md.

>>> from statetools.models import ScriptedModel
>>> suite = load_tasks("tools: [{name: ping, description: Ping}]\\ntasks: [{id: a, prompt: Hi}]")
>>> evaluate(suite, ScriptedModel(["Hello."])).summary("flat").successes
1
"""

from statetools.evaluation.canned import AnyOfValues, CannedResults, CannedTool
from statetools.evaluation.records import ConditionSummary, Journal, RunRecord, wilson_interval
from statetools.evaluation.report import EvalReport
from statetools.evaluation.task_runs import (
    FLAT,
    EvalCondition,
    Progress,
    evaluate,
    evaluate_async,
    make_condition,
    run_task,
)
from statetools.evaluation.tasks import ExpectedCall, Task, TaskSuite, load_tasks

__all__ = [
    "FLAT",
    "AnyOfValues",
    "CannedResults",
    "CannedTool",
    "EvalCondition",
    "ConditionSummary",
    "EvalReport",
    "ExpectedCall",
    "Journal",
    "Progress",
    "RunRecord",
    "Task",
    "TaskSuite",
    "evaluate",
    "evaluate_async",
    "load_tasks",
    "make_condition",
    "run_task",
    "wilson_interval",
]
