"""A repository-hosting catalogue of 106 tools, shaped like real ones (written here).

Twenty resources each get the usual verbs, plus a few tools that do one specific
thing, so that a search has to tell near-identical tools apart.
"""

from __future__ import annotations

from typing import Any

import statetools as st

RESOURCES = {
    "issue": "an issue in a repository",
    "pull_request": "a pull request between two branches",
    "branch": "a branch of a repository",
    "commit": "a commit with its changed files",
    "release": "a published release with its assets",
    "tag": "a git tag pointing at a commit",
    "label": "a label used to sort issues",
    "milestone": "a milestone that groups issues by due date",
    "workflow_run": "a run of a CI workflow",
    "gist": "a gist, a small shared snippet of code",
    "repository": "a code repository owned by a user or an organization",
    "file": "a file's contents at a path and ref",
    "comment": "a comment on an issue or pull request",
    "review": "a review of a pull request, with its verdict",
    "notification": "a notification in the user's inbox",
    "team": "a team of an organization",
    "member": "a member of an organization",
    "secret": "an encrypted secret used by workflows",
    "webhook": "a webhook that posts events to a URL",
    "discussion": "a discussion thread in a repository",
}
VERBS = {
    "create": "Create {what}.",
    "get": "Get the details of {what}.",
    "list": "List the {plural} of a repository, newest first, one page at a time.",
    "update": "Update the fields of {what}.",
    "delete": "Delete {what}. This cannot be undone.",
}
SPECIFIC = {
    "merge_pull_request": ("Merge a pull request into its base branch.", ["merge_method"]),
    "rerun_failed_jobs": ("Re-run only the failed jobs of a workflow run.", ["run_id"]),
    "star_repository": ("Star a repository for the authenticated user.", ["owner", "repo"]),
    "fork_repository": ("Fork a repository to your account or an organization.", ["org"]),
    "search_code": ("Search code across all repositories with a query.", ["query"]),
    "request_copilot_review": ("Ask Copilot to review a pull request.", ["pull_number"]),
}


def _handler(name: str) -> Any:
    return lambda **arguments: f"{name} done"


def _tool(name: str, description: str, parameters: list[str]) -> st.Tool:
    schema = st.InputSchema.of(*(st.Parameter.string(p, p.replace("_", " ")) for p in parameters))
    return st.Tool.create(name, description, _handler(name), schema=schema)


def catalogue() -> list[st.Tool]:
    """Every tool: the verbs of each resource in order, then the specific ones."""
    tools = []
    for resource, what in RESOURCES.items():
        for verb, sentence in VERBS.items():
            name = f"{verb}_{resource}s" if verb == "list" else f"{verb}_{resource}"
            parameters = ["owner", "repo"] + (
                [] if verb in ("create", "list") else [f"{resource}_id"]
            )
            plural = resource.replace("_", " ") + "s"
            tools.append(_tool(name, sentence.format(what=what, plural=plural), parameters))
    for name, (description, parameters) in SPECIFIC.items():
        tools.append(_tool(name, description, parameters))
    return tools
