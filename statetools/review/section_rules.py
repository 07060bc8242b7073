"""The rules of :func:`~statetools.check` about prompt sections (``read_section``):
ST015 unreachable-section-tool, ST016 empty-section-summary, ST017
duplicate-section-key.

They read the graph's outlines (``DisclosureGraph.outlines``); a finding's path names
the section after the facade that reads it: ``facade:read_section/section:billing``,
``facade:read_section/section:billing/tool:refund_order``, and for the second section
with a key ``facade:read_section/section:billing@2``.

>>> print(check([Sections(Section("a", "", "Body."))]).findings[0])  # doctest: +ELLIPSIS
facade:read_section/section:a: ST016 warning [empty-section-summary] Section 'a' is ...
"""

from __future__ import annotations

from collections.abc import Iterator

from statetools.disclosure.outline import OutlineSection
from statetools.review.findings import Finding
from statetools.review.model import DesignView
from statetools.review.rule_context import RuleContext


def section_path(design: DesignView, facade: str, path: str) -> str:
    """The finding path of a section: ``facade:read_section/section:billing``."""
    return f"{design.owner_path(facade)}/section:{path}"


def section_of(design: DesignView, tool: str) -> tuple[str, OutlineSection] | None:
    """(facade, section) of the first section ``tool`` is attached to and waits for,
    when a read is the only way it shows (every place of it is inside a
    section-reading facade); None otherwise."""
    places = design.graph.places_of(tool)
    outlines = design.graph.outlines
    if not places or any(entry.facade not in outlines for entry in places):
        return None
    for entry in places:
        for section in outlines[str(entry.facade)].sections:
            if section.gated and tool in section.tools:
                return str(entry.facade), section
    return None


def unreachable_section_tools(context: RuleContext) -> Iterator[Finding]:
    """ST015: a tool of a section that no read can ever show."""
    design, reach = context.design, context.reach
    dead = context.dead()
    for tool in dead:
        found = section_of(design, tool)
        if found is None:
            continue
        facade, section = found
        if facade in reach.tools:
            reason = dead[tool]
        else:
            reason = (
                f"it opens when '{facade}' reads the section, and '{facade}' can never "
                f"unlock: {dead[facade]}"
            )
        yield context.finding(
            "ST015",
            f"Tool '{tool}' of section '{section.path}' can never show: {reason}.",
            f"{section_path(design, facade, section.path)}/tool:{tool}",
        )


def empty_summaries(context: RuleContext) -> Iterator[Finding]:
    """ST016: a summary section with neither a summary nor a title to show."""
    design = context.design
    for facade, outline in design.graph.outlines.items():
        for section in outline.sections:
            if section.visibility != "summary":
                continue
            if (section.summary or "").strip() or section.title.strip():
                continue
            yield context.finding(
                "ST016",
                f"Section '{section.path}' is shown as a summary but has no summary and no "
                f"title: the prompt shows only the line telling the model to read it, not "
                "what it is about.",
                section_path(design, facade, section.path),
            )


def duplicate_keys(context: RuleContext) -> Iterator[Finding]:
    """ST017: two sections with one key among their siblings."""
    design = context.design
    for facade, outline in design.graph.outlines.items():
        for path, occurrence in outline.duplicates:
            yield context.finding(
                "ST017",
                f"More than one section of '{facade}' has the key '{path}': only the first "
                f"is read, so the {_ordinal(occurrence)} never shows, nor do its tools, and "
                "a run refuses the design.",
                f"{section_path(design, facade, path)}@{occurrence}",
            )


def _ordinal(number: int) -> str:
    words = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}
    return words.get(number, f"section number {number}")
