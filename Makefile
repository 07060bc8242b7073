# Every target sets up what it needs: a virtual environment in .venv with the
# project and its extras, and the Debian packages the project uses (graphviz).
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed

ST := $(VENV)/bin/statetools
PLAYBOOKS := $(wildcard playbooks/*.yaml)

.PHONY: demo test diagrams quickstart bench system-deps setup clean

# The offline demo: the support desk playbook on its scripted model, with a live
# transcript, then the diagram of the path it took.
demo: setup
	@mkdir -p build
	$(ST) run playbooks/support_desk.yaml --save-trace build/support_desk.trace.json
	$(ST) render playbooks/support_desk.yaml --trace build/support_desk.trace.json \
		-o diagrams/support_desk.trace.svg

quickstart: setup
	$(PY) examples/quickstart.py

# Every diagram in diagrams/: each playbook's design (DOT, SVG) and its demo's path.
diagrams: setup
	@mkdir -p build diagrams
	@for file in $(PLAYBOOKS); do \
		name=$$(basename $$file .yaml); \
		$(ST) render $$file -o diagrams/$$name.dot && \
		$(ST) render $$file -o diagrams/$$name.svg && \
		$(ST) run $$file --save-trace build/$$name.trace.json > /dev/null && \
		$(ST) render $$file --trace build/$$name.trace.json -o diagrams/$$name.trace.svg \
		|| exit 1; \
	done

# Every table of benchmarks/RESULTS.md, regenerated from scratch, offline. The token
# benchmark reads the shared catalogues by path (../shared/catalogues) and writes
# their neutral files into build/bench/.
bench: setup
	rm -f benchmarks/RESULTS.md
	$(PY) benchmarks/tokens.py --write
	$(PY) benchmarks/examples_check.py --write
	$(PY) benchmarks/overhead.py --write
	$(PY) benchmarks/native_overhead.py --write
	$(PY) benchmarks/scheduler.py --write
	$(PY) benchmarks/loading.py --write
	$(PY) benchmarks/concurrency.py --write
	$(PY) benchmarks/mcp_listing.py --write
	$(PY) benchmarks/bridges.py --write
	$(PY) benchmarks/temporal_sessions.py --write
	$(PY) benchmarks/skills_review.py --write

test: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict statetools
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pytest

setup: system-deps $(STAMP)

system-deps:
	@command -v dot >/dev/null 2>&1 || { \
		echo "installing Debian package graphviz"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends graphviz; }

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,openai,anthropic,mcp,pydantic-ai,langchain,openai-agents,otel,temporal]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
