# One command each: every target creates .venv and installs privopt into it when needed.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
PYTEST  := $(BIN)/python -m pytest

.PHONY: setup demo test test-fast test-slow bench lint docs notebooks clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,docs,dist,ldp,bench]'
	touch $(STAMP)

setup: $(STAMP)

# Designs a mechanism on the Adult data when ../shared/data/adult exists, else on a built-in
# synthetic spec, and prints it beside the low-complexity mechanisms.
demo: $(STAMP)
	@if [ -f ../shared/data/adult/adult.data ]; then \
		$(BIN)/privopt design examples/adult_sex_race.toml; \
	else \
		$(BIN)/privopt design examples/synthetic.toml; \
	fi

# The default suite (< 10 minutes on 2 cores): everything not marked slow.
test: $(STAMP)
	$(PYTEST) -m "not slow"

# Exhaustive checks. CI runs them after the default suite; developers may skip them.
test-slow: $(STAMP)
	$(PYTEST) -m slow || test $$? -eq 5   # exit 5: no slow tests collected

bench: $(STAMP)
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff check privopt solvers tests benchmarks tools docs/hooks
	$(BIN)/ruff format --check privopt solvers tests benchmarks tools docs/hooks
	$(BIN)/mypy privopt

# The site shows the notebooks with the outputs stored in them (it does not run them).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Re-run every notebook in its reduced (CI) mode and store the outputs the site shows (~3 minutes).
notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

clean:
	rm -rf $(VENV) site .pytest_cache .hypothesis .benchmarks
