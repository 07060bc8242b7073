"""Definitions as data: YAML, JSON or dicts <-> playbooks and state machines.

``load_playbook`` and ``load_design`` read a file (or text, or a dict) into the same
immutable definitions the Python builders make; ``dump_playbook`` writes them back.
Every problem in a file is reported at once, with its path and line. The format is
described in ``docs/yaml.md``.
"""

from statetools.spec.design import Design, ToolRegistry, load_design, load_playbook
from statetools.spec.dump import dump_playbook, to_data
from statetools.spec.problems import SpecProblem
from statetools.spec.references import SchemaOnlyTool, load_tools_file

__all__ = [
    "Design",
    "SchemaOnlyTool",
    "SpecProblem",
    "ToolRegistry",
    "dump_playbook",
    "load_design",
    "load_playbook",
    "load_tools_file",
    "to_data",
]
