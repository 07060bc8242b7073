"""The tool loop, its messages, events and injection strategies."""
