"""Shared fixtures of the statetools test suite."""
