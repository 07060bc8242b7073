"""The git_commit playbook: mcp-server-git behind a read-before-write state machine."""

from __future__ import annotations

from pathlib import Path

import statetools as st
from statetools.models import ScriptedModel
from tests.mcp.upstream import git, make_repo

FILE = Path(__file__).resolve().parents[2] / "playbooks" / "git_commit.yaml"
READ = ["git_diff_unstaged", "git_status", "git_log", "git_show"]


def test_loading_uses_the_saved_listing_and_starts_no_server() -> None:
    design = st.load_design(FILE)
    [_machine] = design.definitions
    server = design.mcp_servers["git"]
    assert server.listing is not None
    assert server.listing.saved
    assert server._link is None
    assert [t.name for t in st.Scheduler.for_items(design.tools).visible()] == READ
    assert st.check(st.disclosure_graph(*design.tools)).findings == ()


def test_a_commit_only_after_reading_the_diffs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.txt").write_text("first\nsecond\n")
    at = {"repo_path": str(repo)}
    model = ScriptedModel(
        [
            ("git_add", {**at, "files": ["notes.txt"]}),
            ("git_diff_unstaged", {**at, "context_lines": 0}),
            ("git_add", {**at, "files": ["notes.txt"]}),
            ("git_commit", {**at, "message": "Second line"}),
            ("git_diff_staged", {**at, "context_lines": 0}),
            ("git_commit", {**at, "message": "Second line"}),
            "Committed.",
        ]
    )
    design = st.load_design(FILE)
    result = st.ToolLoop(model, end_on_final_state=False).run("commit", tools=design.tools)

    diff = (
        "diff --git a/notes.txt b/notes.txt\nindex 9c59e24..66a52ee 100644\n"
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,0 +2 @@ first\n+second\n"
    )
    head = git(repo, "rev-parse", "HEAD")
    texts = [(m.name, m.content, m.is_error) for m in result.messages if m.role == "tool"]
    assert texts == [
        (
            "git_add",
            "Tool 'git_add' is not available in state READING (it is available in: REVIEWED).",
            True,
        ),
        (
            "git_diff_unstaged",
            f"Unstaged changes:\n{diff}[now available: git_add; state is now REVIEWED]",
            False,
        ),
        (
            "git_add",
            "Files staged successfully\n[now available: git_diff_staged, git_reset; "
            "state is now STAGED]",
            False,
        ),
        (
            "git_commit",
            "Tool 'git_commit' is not available in state STAGED (it is available in: CHECKED).",
            True,
        ),
        (
            "git_diff_staged",
            f"Staged changes:\n{diff}[now available: git_commit; state is now CHECKED]",
            False,
        ),
        (
            "git_commit",
            f"Changes committed successfully with hash {head}\n[state is now DONE (final)]",
            False,
        ),
    ]
    assert git(repo, "log", "--format=%s") == "Second line\nAdd notes"
    assert design.mcp_servers["git"]._link is None
