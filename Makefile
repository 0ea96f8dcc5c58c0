# Two entry points: `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
DEMO_DATA ?= examples/rag_turns.jsonl

.PHONY: demo test lint format bench meta-eval

$(PY):
	$(PYTHON) -m venv $(VENV)

# torch first, pinned: an unpinned torch pulls gigabytes of CUDA packages.
$(VENV)/.base: pyproject.toml | $(PY)
	$(PIP) install torch==2.13.0
	$(PIP) install -e ".[local,embed]"
	touch $@

$(VENV)/.test: $(VENV)/.base pyproject.toml
	$(PIP) install -e ".[local,embed,hf,test]"
	touch $@

demo: $(VENV)/.base
	$(VENV)/bin/ragmeter evaluate $(DEMO_DATA) --out ragmeter-out

test: $(VENV)/.test
	$(PY) -m pytest

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.test
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The WikiEval meta-evaluation of the embedded judge (about 20 minutes on 2 CPU cores).
WIKIEVAL ?= ../shared/datasets/wikieval/wikieval.jsonl
meta-eval: $(VENV)/.base
	$(VENV)/bin/ragmeter meta-eval wikieval --data $(WIKIEVAL) --judge local \
		--baselines k_precision,embedding_cosine --cache off \
		--out benchmarks/results/meta_eval_wikieval_local.json

bench: $(VENV)/.test
	$(PY) benchmarks/lexical.py
	$(PY) benchmarks/retrieval_crosscheck.py
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/local_judge.py
	$(PY) benchmarks/faithfulness_scifact.py
