"""Example playbooks with their Python tool modules (used by the demo and the tests)."""
