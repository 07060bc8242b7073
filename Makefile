# Every target sets up what it needs: a virtual environment in .venv, and the Debian
# packages the project uses (graphviz). The demo, the quickstart and the diagrams need
# only the base package; the tests and the benchmarks install every extra.
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BASE_STAMP := $(VENV)/.installed-base
STAMP := $(VENV)/.installed
EXTRAS := dev,openai,anthropic,mcp,pydantic-ai,langchain,openai-agents,otel,temporal,embeddings,code
# The lowest version of every runtime dependency that pyproject.toml allows, tested by
# `make test-lowest` in a venv of its own.
LOWEST_VENV ?= .venv-lowest
# pip without compiling every module it installs to bytecode (a venv holds ~13,600; the
# tests import ~1,100): Python compiles each on its first import instead. Saves about
# half of a fresh venv's setup.
INSTALL := -m pip install -q --no-compile

ST := $(VENV)/bin/statetools
PLAYBOOKS := $(wildcard playbooks/*.yaml)

.PHONY: demo test checks test-lowest tested-versions diagrams quickstart bench system-deps \
	setup setup-base clean

# The offline demo: the support desk playbook on its scripted model, with a live
# transcript, then the diagram of the path it took.
demo: setup-base
	@mkdir -p build
	$(ST) run playbooks/support_desk.yaml --save-trace build/support_desk.trace.json
	$(ST) render playbooks/support_desk.yaml --trace build/support_desk.trace.json \
		-o diagrams/support_desk.trace.svg

quickstart: setup-base
	$(PY) examples/quickstart.py

# Every diagram in diagrams/: each playbook's design (DOT, SVG) and its demo's path.
diagrams: setup-base
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
	$(PY) benchmarks/layered_cache.py --write
	$(PY) benchmarks/retrieval.py --write $(if $(BFCL_DATA),--bfcl-data $(BFCL_DATA))
	$(PY) benchmarks/nothing_useful.py --write $(if $(BFCL_DATA),--bfcl-data $(BFCL_DATA))
	$(PY) benchmarks/graph_ranking.py --write $(if $(BFCL_DATA),--bfcl-data $(BFCL_DATA))
	$(PY) benchmarks/saved_vectors.py --write $(if $(BFCL_DATA),--bfcl-data $(BFCL_DATA))
	$(PY) benchmarks/examples_check.py --write
	$(PY) benchmarks/overhead.py --write
	$(PY) benchmarks/native_overhead.py --write
	$(PY) benchmarks/search_facade_requests.py --write
	$(PY) benchmarks/scheduler.py --write
	$(PY) benchmarks/loading.py --write
	$(PY) benchmarks/concurrency.py --write
	$(PY) benchmarks/mcp_listing.py --write
	$(PY) benchmarks/bridges.py --write
	$(PY) benchmarks/temporal_sessions.py --write
	$(PY) benchmarks/skills_review.py --write
	$(PY) benchmarks/import_time.py --write
	$(PY) benchmarks/compile.py --write
	$(PY) benchmarks/gateway_sessions.py --write
	$(PY) benchmarks/gateway_http.py --write
	$(PY) benchmarks/skill_file_race.py --write
	$(PY) benchmarks/session_saves.py --write
	$(PY) benchmarks/store_damage.py --write
	$(PY) benchmarks/real_model.py --write
	$(PY) benchmarks/local_prefix.py --write
	$(PY) benchmarks/template_tokens.py --write

# The checks, on the newest versions of every dependency that pyproject.toml allows
# (a fresh venv resolves them). When they fail, .ci/deps.py names the packages whose
# versions differ from the last set that passed (.ci/tested-versions.txt).
test: setup
	@$(PY) .ci/deps.py changed
	@$(MAKE) --no-print-directory checks || { $(PY) .ci/deps.py blame; exit 1; }

checks:
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict statetools
	$(VENV)/bin/lint-imports pyproject.toml import-cycles.ini
	$(VENV)/bin/pytest

# The tests again with every runtime dependency at the lower bound pyproject.toml states
# (the extras and the dev tools at their newest). .ci/run runs this next to `make test`,
# so nothing here writes where `make test` does: mypy's cache (the packaging tests run
# mypy) and pytest's own cache stay apart.
test-lowest: system-deps
	python3 -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python $(INSTALL) --upgrade pip
	$(LOWEST_VENV)/bin/python $(INSTALL) -e '.[$(EXTRAS)]'
	$(LOWEST_VENV)/bin/python $(INSTALL) $$($(LOWEST_VENV)/bin/python .ci/deps.py lowest)
	$(LOWEST_VENV)/bin/python .ci/deps.py lowest --check
	MYPY_CACHE_DIR=$(abspath $(LOWEST_VENV))/.mypy_cache $(LOWEST_VENV)/bin/pytest -q -p no:cacheprovider

# After a green `make test`: record the versions it passed with.
tested-versions: setup
	$(PY) .ci/deps.py freeze > .ci/tested-versions.txt

setup: system-deps $(STAMP)

setup-base: system-deps $(BASE_STAMP)

system-deps:
	@command -v dot >/dev/null 2>&1 || { \
		echo "installing Debian package graphviz"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends graphviz; }

$(PY):
	python3 -m venv $(VENV)
	$(PY) $(INSTALL) --upgrade pip

$(BASE_STAMP): pyproject.toml | $(PY)
	$(PY) $(INSTALL) -e .
	touch $(BASE_STAMP)

$(STAMP): pyproject.toml | $(PY)
	$(PY) $(INSTALL) -e '.[$(EXTRAS)]'
	touch $(STAMP) $(BASE_STAMP)

clean:
	rm -rf $(VENV) $(LOWEST_VENV) build .mypy_cache .ruff_cache .pytest_cache \
		.import_linter_cache
