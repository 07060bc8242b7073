# Every target sets up what it needs: a virtual environment in .venv with the
# project and its extras, and the Debian packages the project uses (graphviz).
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck system-deps setup clean

demo: setup
	$(PY) examples/quickstart.py

test: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict statetools
	$(VENV)/bin/pytest

setup: system-deps $(STAMP)

system-deps:
	@command -v dot >/dev/null 2>&1 || { \
		echo "installing Debian package graphviz"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends graphviz; }

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,openai,anthropic]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
