# Two entry points: `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
DEMO_DATA ?= examples/rag_turns.jsonl

.PHONY: demo test lint format bench meta-eval examples

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

# The report's browser test drives Debian's chromium through Playwright (Playwright's own
# browser download is not used). Installed once, only when missing; needs root or sudo.
$(VENV)/.browser: | $(PY)
	@if [ ! -x /usr/bin/chromium ]; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends chromium; \
	fi
	touch $@

demo: $(VENV)/.base
	$(VENV)/bin/ragmeter evaluate $(DEMO_DATA) --out ragmeter-out

test: $(VENV)/.test $(VENV)/.browser
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

# The compare example: two versions of one pipeline, evaluated, compared, reported.
EXAMPLE := examples/compare
EXAMPLE_METRICS := mrr,ndcg@10,token_f1
examples: $(VENV)/.test
	$(PY) $(EXAMPLE)/make_inputs.py
	$(VENV)/bin/ragmeter evaluate $(EXAMPLE)/baseline.jsonl -m $(EXAMPLE_METRICS) -o $(EXAMPLE)/runs/baseline
	$(VENV)/bin/ragmeter evaluate $(EXAMPLE)/reranked.jsonl -m $(EXAMPLE_METRICS) -o $(EXAMPLE)/runs/reranked
	$(VENV)/bin/ragmeter compare $(EXAMPLE)/runs/baseline $(EXAMPLE)/runs/reranked --by topic \
		--markdown $(EXAMPLE)/compare.md
	$(VENV)/bin/ragmeter report $(EXAMPLE)/runs/baseline --compare $(EXAMPLE)/runs/reranked \
		--by topic -o $(EXAMPLE)/report.html
	$(PY) $(EXAMPLE)/screenshot.py $(EXAMPLE)/report.html docs/report.png

bench: $(VENV)/.test
	$(PY) benchmarks/lexical.py
	$(PY) benchmarks/retrieval_crosscheck.py
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/local_judge.py
	$(PY) benchmarks/faithfulness_scifact.py
