"""Sections of a prompt read on demand with their tools, and Agent Skills folders.

>>> sections = Sections(Section("a", "A", "Body.", summary="About A."))
>>> sections.keys()
['a']
"""

from statetools.sections.section import Section
from statetools.sections.sections import ReadSectionTool, Sections
from statetools.sections.skills import load_skills

__all__ = ["ReadSectionTool", "Section", "Sections", "load_skills"]
