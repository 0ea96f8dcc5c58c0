# Two entry points: `make demo` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
DEMO_DATA ?= examples/rag_turns.jsonl

.PHONY: demo test test-fast lint format bench bench-judged meta-eval examples llama-server

# llama.cpp is built from source for this CPU, without the AMX kernels: on Xeons with AMX
# (Sapphire Rapids and later) a native build of llama-cpp-python 0.3.36 crashes (SIGSEGV)
# on any multi-token batch. So not GGML_NATIVE: each instruction set is switched on only when
# /proc/cpuinfo lists it (an AVX-512 build dies with SIGILL on an AMD EPYC without it). The
# wheel is kept in the user cache, keyed by these flags, so a fresh clone builds it once per
# kind of CPU; pip's own wheel cache ignores CMAKE_ARGS.
LLAMA_VERSION := 0.3.36
cpu_has = $(shell grep -qw '$(1)' /proc/cpuinfo 2>/dev/null && echo ON || echo OFF)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=$(call cpu_has,avx) \
	-DGGML_AVX2=$(call cpu_has,avx2) -DGGML_FMA=$(call cpu_has,fma) \
	-DGGML_F16C=$(call cpu_has,f16c) -DGGML_AVX512=$(call cpu_has,avx512f) \
	-DGGML_AVX512_VNNI=$(call cpu_has,avx512_vnni) -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
	-DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF
LLAMA_KEY := $(shell printf '%s' '$(LLAMA_VERSION) $(LLAMA_CMAKE_ARGS)' | sha256sum | cut -c1-12)
WHEELS := $(HOME)/.cache/ragmeter/wheels/llama-$(LLAMA_KEY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(WHEELS)/.built: | $(PY)
	mkdir -p $(WHEELS)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 $(PIP) wheel --no-deps \
		--no-cache-dir -w $(WHEELS) llama-cpp-python==$(LLAMA_VERSION)
	touch $@

# torch first, pinned: an unpinned torch pulls gigabytes of CUDA packages.
$(VENV)/.base: pyproject.toml $(WHEELS)/.built | $(PY)
	$(PIP) install torch==2.13.0
	$(PIP) install --force-reinstall --no-deps $(WHEELS)/llama_cpp_python-*.whl
	$(PIP) install --find-links $(WHEELS) -e ".[local,embed]"
	touch $@

$(VENV)/.test: $(VENV)/.base pyproject.toml
	$(PIP) install --find-links $(WHEELS) -e ".[local,embed,hf,test]"
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

# Everything CI must run: the import-layer contract, then the whole suite, slow tests included.
test: $(VENV)/.test $(VENV)/.browser
	$(VENV)/bin/lint-imports
	$(PY) -m pytest

# The quick loop while coding: no real models, no real data sets (tests marked slow).
test-fast: $(VENV)/.test
	$(PY) -m pytest -m "not slow"

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: $(VENV)/.test
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The WikiEval meta-evaluation of the embedded judge (about an hour on a 2-core AMD EPYC:
# 3,654 s, docs/speed.md).
WIKIEVAL ?= ../shared/datasets/wikieval/wikieval.jsonl
meta-eval: $(VENV)/.base
	$(VENV)/bin/ragmeter meta-eval wikieval --data $(WIKIEVAL) --judge local \
		--baselines k_precision,question_overlap,context_overlap,embedding_cosine --cache off \
		--out benchmarks/results/meta_eval_wikieval_local.json

# The compare example: two versions of one pipeline, evaluated, compared, reported.
EXAMPLE := examples/compare
EXAMPLE_METRICS := mrr,ndcg@10,token_f1
examples: $(VENV)/.test $(VENV)/.browser
	$(PY) $(EXAMPLE)/make_inputs.py
	$(VENV)/bin/ragmeter evaluate $(EXAMPLE)/baseline.jsonl -m $(EXAMPLE_METRICS) -o $(EXAMPLE)/runs/baseline
	$(VENV)/bin/ragmeter evaluate $(EXAMPLE)/reranked.jsonl -m $(EXAMPLE_METRICS) -o $(EXAMPLE)/runs/reranked
	$(VENV)/bin/ragmeter compare $(EXAMPLE)/runs/baseline $(EXAMPLE)/runs/reranked --by topic \
		--markdown $(EXAMPLE)/compare.md
	$(VENV)/bin/ragmeter report $(EXAMPLE)/runs/baseline --compare $(EXAMPLE)/runs/reranked \
		--by topic -o $(EXAMPLE)/report.html
	$(PY) $(EXAMPLE)/screenshot.py $(EXAMPLE)/report.html docs/report.png

bench: $(VENV)/.test
	$(PY) benchmarks/lexical.py --force
	$(PY) benchmarks/retrieval_crosscheck.py --force
	$(PY) benchmarks/engine.py --force
	$(PY) benchmarks/local_judge.py --force
	$(PY) benchmarks/faithfulness_scifact.py --force

# llama.cpp's own server (`llama-server`), for benchmarks/server_judge.py --native: built from
# the llama.cpp sources that llama-cpp-python $(LLAMA_VERSION) vendors, with the same CPU flags,
# statically linked, kept beside the wheel cache. Not needed by the tests. cmake from PyPI.
LLAMA_SERVER := $(HOME)/.cache/ragmeter/bin/llama-server-$(LLAMA_KEY)
LLAMA_SRC := $(HOME)/.cache/ragmeter/src/llama-$(LLAMA_KEY)
llama-server: $(LLAMA_SERVER)
$(LLAMA_SERVER): | $(PY)
	$(PIP) install cmake
	rm -rf $(LLAMA_SRC) && mkdir -p $(LLAMA_SRC) $(dir $@)
	$(PIP) download --no-binary :all: --no-deps -d $(LLAMA_SRC) llama-cpp-python==$(LLAMA_VERSION)
	tar xzf $(LLAMA_SRC)/llama_cpp_python-$(LLAMA_VERSION).tar.gz -C $(LLAMA_SRC)
	$(VENV)/bin/cmake -S $(LLAMA_SRC)/llama_cpp_python-$(LLAMA_VERSION)/vendor/llama.cpp \
		-B $(LLAMA_SRC)/build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
		$(filter-out -DLLAMA_BUILD_TOOLS=OFF,$(LLAMA_CMAKE_ARGS)) -DLLAMA_BUILD_TOOLS=ON \
		-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
		-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
	$(VENV)/bin/cmake --build $(LLAMA_SRC)/build --target llama-server -j2
	cp $(LLAMA_SRC)/build/bin/llama-server $@.tmp && mv $@.tmp $@
	rm -rf $(LLAMA_SRC)
	@echo "built $@"

# The judged metrics on the visible labelled sets (benchmarks/data, make_visible_sets.py).
bench-judged: $(VENV)/.test
	$(PY) benchmarks/faithfulness_visible.py --force
	$(PY) benchmarks/relevance_refusals.py --force
	$(PY) benchmarks/injection.py --force
