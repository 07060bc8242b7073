"""What users write: playbooks, state machines and their moves, facades (plain, by
category, selectable, searchable), layered tool detail, chaining and discovery rules,
agentic tools, unlock conditions and the items that stand where a tool goes.
:mod:`statetools.engine` compiles and runs them."""
