# Every target that needs Python builds .venv/ first (from requirements.txt and
# pyproject.toml) and reuses it afterwards.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ASSIGNMENTS := $(notdir $(patsubst %/,%,$(wildcard solutions/[0-9][0-9]-*/)))
# The course's language: COURSE_LANG=ko gives the Korean edition (ko/course, built from notebooks/ko/).
COURSE_LANG ?= en
ifeq ($(filter $(COURSE_LANG),en ko),)
$(error COURSE_LANG=$(COURSE_LANG) is not an edition of the course: use en (the default) or ko)
endif
EDITION := $(if $(filter ko,$(COURSE_LANG)),ko/,)
KO_ASSIGNMENTS := $(notdir $(patsubst %/,%,$(wildcard ko/solutions/[0-9][0-9]-*/)))
# The level of the exercises (autograder/levels.py): LEVEL=challenge gives the challenge level (challenge/course,
# challenge/ko/course: every function that holds a blank is blank below its docstring), built from the same sources.
LEVEL ?= guided
ifeq ($(filter $(LEVEL),guided challenge),)
$(error LEVEL=$(LEVEL) is not a level of the course: use guided (the default) or challenge)
endif
LEVEL_DIR := $(if $(filter challenge,$(LEVEL)),challenge/,)
CHALLENGE_ASSIGNMENTS := $(notdir $(patsubst %/,%,$(wildcard challenge/solutions/[0-9][0-9]-*/)))
CHALLENGE_KO_ASSIGNMENTS := $(notdir $(patsubst %/,%,$(wildcard challenge/ko/solutions/[0-9][0-9]-*/)))
# Where the learner works: a copy of the edition's and level's course/ that git ignores and `make lab` never
# overwrites (workspace/, workspace-ko/, workspace-challenge/, workspace-ko-challenge/).
WORKSPACE ?= workspace$(if $(EDITION),-$(COURSE_LANG),)$(if $(LEVEL_DIR),-$(LEVEL),)
# JupyterLab's saved layouts (which notebooks are open): kept with the workspace, hidden from the file browser.
LAB_WORKSPACES ?= $(WORKSPACE)/.jupyter/workspaces
LAB_ARGS ?=
# The Korean lab speaks Korean in JupyterLab's own menus too (a language pack); its settings live in the workspace.
LAB_LOCALE := $(if $(filter ko,$(COURSE_LANG)),ko_KR,)
LAB_SETTINGS ?= $(WORKSPACE)/.jupyter/lab/user-settings
export PATH := $(CURDIR)/$(BIN):$(PATH)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help venv sandbox-tool slurm-tool browser-tool hub-tool hub lab progress formgrader test test-quick test-gpu test-cuda-build test-unit test-notebooks release student-pack autograde options-doc bench bench-train bench-live zoo challenge-answers mutants demo-grade clean

help:
	@echo "make lab           open the course in JupyterLab (sets everything up the first time)"
	@echo "                   (without make: python3 start.py, or py start.py on Windows; --help for its options)"
	@echo "make lab COURSE_LANG=ko   the Korean edition (한국어판), in workspace-ko/"
	@echo "make lab LEVEL=challenge  the challenge level: you write whole function bodies, in workspace-challenge/"
	@echo "                          (with COURSE_LANG=ko: 도전 단계, in workspace-ko-challenge/)"
	@echo "make progress      which units of your workspace pass their visible test (same COURSE_LANG and LEVEL)"
	@echo "make formgrader [GRADED=OUT SUBMITTED=dir]   nbgrader's formgrader on the course and a grading run's scores"
	@echo "make hub [HUB_CLASS=class.json HUB_IP=0.0.0.0 HUB_PORT=8000]   as root: a class on JupyterHub on this machine"
	@echo "make test          run the whole test suite (what CI runs)"
	@echo "make test-quick    the tests that import what you changed, within about 3 minutes (QUICK_BASE=commit)"
	@echo "make test-gpu      on a machine with an NVIDIA GPU: grading with CUDA, GPU visible and hidden"
	@echo "make test-cuda-build   grade the demo class with PyPI's CUDA build of torch (downloads gigabytes)"
	@echo "make release       regenerate both editions' course/ at both levels from their solutions/ with nbgrader"
	@echo "make student-pack  build dist/student-pack.zip: what an instructor hands out"
	@echo "make autograde SUBMITTED=dir OUT=dir [JOBS=n]   grade submissions"
	@echo "make options-doc   docs/options.md, every option of the grader, from the code"
	@echo "make demo-grade    grade synthetic submissions and print the table"
	@echo "make zoo           the bug zoo's table: every misconception id caught and named?"
	@echo "make challenge-answers [IDS=...]   the zoo's right answers submitted in the challenge notebooks: accepted, no crash?"
	@echo "make mutants       cosmic-ray's mutants of every graded unit: visible kills, ids printed, wrong ids (a benchmark)"
	@echo "make bench         autograder grade vs stock nbgrader autograde"
	@echo "make bench-train   the capstone trained with three seeds"
	@echo "make bench-live    the hub's live view under 300 learners and a restart: events/s, delay p50/p99, lost"

# start.py does the work, for `make` and for learners without it (`python3 start.py`, `py start.py`): it creates
# .venv/, installs requirements.txt and the course, and writes the stamp. On Linux PyTorch comes from PyTorch's
# CPU-only index unless TORCH_BUILD=cuda (PyPI's CUDA build, for a GPU grading machine); without TORCH_BUILD a
# venv keeps the build it was set up with (start.py records it in the stamp); cpu for a new one.
TORCH_BUILD ?=
ifneq ($(filter-out cpu cuda,$(TORCH_BUILD)),)
$(error TORCH_BUILD=$(TORCH_BUILD) is not a build of PyTorch here: use cpu (the default) or cuda)
endif
TORCH_FLAG = $(if $(TORCH_BUILD),--torch $(TORCH_BUILD),)
venv: $(STAMP)
	$(if $(TORCH_BUILD),$(PYTHON) start.py install --venv $(VENV) $(TORCH_FLAG),@true)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) start.py install --venv $(VENV) $(TORCH_FLAG)

# Grading runs learners' code in bubblewrap (autograder/grading/run/sandbox.py). Installed here with
# apt-get where that is possible (Debian-like, as root); otherwise `autograder grade` says how.
sandbox-tool:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the grading sandbox)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else echo "bubblewrap (bwrap) is missing: install it (e.g. sudo apt-get install bubblewrap) to grade"; fi; }

# `autograder grade --slurm` and its tests (tests/grading/run/test_slurm.py start a one-node Slurm cluster here): Debian's
# slurmctld, slurmd, slurm-client and munge, installed with apt-get where that is possible (Debian-like, as root),
# and dask-jobqueue (requirements-slurm.txt) in .venv/. No Slurm service is started or configured by the install.
SLURM_STAMP := $(VENV)/.slurm-installed
slurm-tool: $(SLURM_STAMP)
	@command -v slurmd >/dev/null 2>&1 && command -v slurmctld >/dev/null 2>&1 && command -v sbatch >/dev/null 2>&1 \
	  && command -v munged >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing slurmctld, slurmd, slurm-client and munge (autograder grade --slurm's tests)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      slurmctld slurmd slurm-client munge >/dev/null; \
	  else echo "Slurm is missing: install it (e.g. sudo apt-get install slurmctld slurmd slurm-client munge) to run tests/grading/run/test_slurm.py"; fi; }

$(SLURM_STAMP): $(STAMP) requirements-slurm.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-slurm.txt
	touch $@

# The browser tests (tests/browser/) drive Debian's chromium with Playwright (whose own browser download
# is never needed). Installed here with apt-get where that is possible (Debian-like, as root). The feedback
# pages' accessibility audit (tests/browser/test_feedback_a11y.py) injects axe-core, from npm at the version
# tests/browser/axe/package-lock.json pins, into .venv/browser-axe (npm ci; nothing is fetched at test time).
BROWSER_AXE := $(VENV)/browser-axe/node_modules/axe-core/axe.min.js
browser-tool: $(BROWSER_AXE)
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium (the browser tests)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: install it (e.g. sudo apt-get install chromium) to run tests/browser"; fi; }

$(BROWSER_AXE): tests/browser/axe/package.json tests/browser/axe/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing nodejs and npm (axe-core, the feedback pages' accessibility audit)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  fi; }
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(VENV)/browser-axe && cp tests/browser/axe/package.json tests/browser/axe/package-lock.json $(VENV)/browser-axe/ && \
	  (cd $(VENV)/browser-axe && npm ci --no-audit --no-fund --loglevel=error) && touch $@; \
	else echo "npm is missing: install nodejs and npm (e.g. sudo apt-get install nodejs npm) for tests/browser/test_feedback_a11y.py"; fi

# JupyterHub for a class on this machine (`make hub`, the README's "Running a class on JupyterHub"). Every user's
# server runs the course's Python as that user, so the hub has an environment of its own, .venv/hub-python, made
# with HUB_PYTHON (Debian's /usr/bin/python3: one that every user may run, which .venv's need not be, e.g. pyenv's
# under /root) from requirements.txt, plus jupyterhub from PyPI (requirements-hub.txt: learners never need it);
# its proxy, configurable-http-proxy, comes from npm (hub/package.json and its lock, into .venv/hub-proxy).
# python3 and nodejs/npm are installed with apt-get where missing (Debian-like, as root).
HUB_PYTHON ?= /usr/bin/python3
HUB_VENV := $(VENV)/hub-python
HUB_STAMP := $(HUB_VENV)/.hub-installed
HUB_PROXY := $(VENV)/hub-proxy/node_modules/.bin/configurable-http-proxy
hub-tool: $(HUB_STAMP) $(HUB_PROXY)

$(HUB_STAMP): requirements.txt requirements-hub.txt pyproject.toml
	@$(HUB_PYTHON) -c "import venv, ensurepip" 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing python3 and python3-venv (the hub's environment)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null; \
	  fi; }
	$(HUB_PYTHON) start.py install --venv $(HUB_VENV)
	$(HUB_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-hub.txt
	touch $@

$(HUB_PROXY): hub/package.json hub/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing nodejs and npm (JupyterHub's proxy)"; \
	    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  fi; }
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(VENV)/hub-proxy && cp hub/package.json hub/package-lock.json $(VENV)/hub-proxy/ && \
	  (cd $(VENV)/hub-proxy && npm ci --no-audit --no-fund --loglevel=error) && touch $@; \
	else echo "npm is missing: install nodejs and npm (e.g. sudo apt-get install nodejs npm) for make hub"; fi

# A class on JupyterHub, on this machine, as root: hub/prepare.py sets up HUB_DIR (the hub's database and
# nbgrader's exchange) and closes the course's answers to everyone but root and the instructors' group; then
# JupyterHub (hub/jupyterhub_config.py) logs in the machine's users (PAM) listed in HUB_CLASS
# (hub/class.example.json): students get the learner's lab with the Assignment List, instructors formgrader.
HUB_DIR ?= /srv/transformer-hub
HUB_CLASS ?= $(HUB_DIR)/class.json
HUB_IP ?= 127.0.0.1
HUB_PORT ?= 8000
HUB_API_PORT ?= 8081
HUB_PROXY_API_PORT ?= 8001
HUB_GROUP ?= transformer-instructors
HUB_ARGS ?=
hub: hub-tool sandbox-tool
	$(HUB_VENV)/bin/python hub/prepare.py --dir $(HUB_DIR) --class $(HUB_CLASS) --group $(HUB_GROUP)
	cd $(HUB_DIR) && TRANSFORMER_HUB_DIR=$(abspath $(HUB_DIR)) TRANSFORMER_HUB_CLASS=$(abspath $(HUB_CLASS)) \
	  TRANSFORMER_HUB_IP=$(HUB_IP) TRANSFORMER_HUB_PORT=$(HUB_PORT) TRANSFORMER_HUB_API_PORT=$(HUB_API_PORT) \
	  TRANSFORMER_HUB_PROXY_API_PORT=$(HUB_PROXY_API_PORT) TRANSFORMER_HUB_GROUP=$(HUB_GROUP) \
	  $(CURDIR)/$(HUB_VENV)/bin/jupyterhub -f $(CURDIR)/hub/jupyterhub_config.py $(HUB_ARGS)

# The learner's lab: lab-config/ (first on JUPYTER_CONFIG_PATH) hides nbgrader's instructor and exchange
# tools and Jupyter's news, shortens Validate's report, and serves the course's Korean font to the page
# (learner_kit/lab_style.py: no empty boxes without a Korean font installed); layouts are kept in the
# workspace, and a first one opens notebook 01. The instructor's side is `make formgrader`.
lab: $(STAMP)
	$(PYTHON) start.py lab --venv $(VENV) --lang $(COURSE_LANG) --level $(LEVEL) --workspace $(WORKSPACE) \
	  --layouts $(LAB_WORKSPACES) $(if $(LAB_LOCALE),--settings $(LAB_SETTINGS),) -- $(LAB_ARGS)

# For every unit of the course, whether the learner's copy in the workspace passes its visible test.
progress: $(STAMP)
	@$(BIN)/python -m learner_kit.progress $(WORKSPACE)

# The instructor's side: nbgrader's formgrader on the course (the repository root, where nbgrader_config.py
# is), with .venv/bin on PATH (formgrader runs alembic to create its gradebook). GRADED=OUT shows an
# `autograder grade SUBMITTED --out OUT` run: its gradebook.db, its autograded/ notebooks (per-submission
# pages, manual grading, flags) and its feedback/ as nbgrader's folders; SUBMITTED=dir is the submitted
# folder (without it, OUT/autograded stands for it: it holds each graded submission and its timestamp.txt).
# The exchange is nbgrader_config.py's. Learners' notebooks are rendered with the feedback pages'
# sanitiser (autograder/grading/outputs/feedback_page.py): stock formgrader runs a learner's <script> in the
# instructor's logged-in page. autograder/grading/outputs/formgrader-config enables formgrader_extras.py: a direct link
# with ?token= to any formgrader page works (nbgrader's pages set the login cookie for their own folder only),
# and Hangul is drawn with the course's font.
FORMGRADER_SAFE := --HTMLExporter.sanitize_html=True \
  --HTMLExporter.filters clean_html=autograder.grading.outputs.feedback_page.clean_html \
  --HTMLExporter.filters strip_files_prefix=autograder.grading.outputs.feedback_page.strip_files_prefix_and_sanitise
formgrader: $(STAMP)
	mkdir -p exchange
	JUPYTER_CONFIG_PATH=$(CURDIR)/autograder/grading/outputs/formgrader-config$(if $(JUPYTER_CONFIG_PATH),:$(JUPYTER_CONFIG_PATH),) \
	$(BIN)/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/formgrader $(FORMGRADER_SAFE) \
	  $(if $(GRADED),--CourseDirectory.db_url=sqlite:///$(abspath $(GRADED))/gradebook.db \
	  --CourseDirectory.autograded_directory=$(abspath $(GRADED))/autograded \
	  --CourseDirectory.feedback_directory=$(abspath $(GRADED))/feedback,) \
	  $(if $(or $(SUBMITTED),$(GRADED)),--CourseDirectory.submitted_directory=$(abspath $(or $(SUBMITTED),$(GRADED)/autograded)),) \
	  $(FORMGRADER_ARGS)

# The unit tests and nbval at once, nbval at a low priority (nice) so that it takes the unit tests' waits (on
# budgets, servers, the browser) first; its log is printed after theirs. From a clean clone on 2 cores both took
# 39 min 52 s together in session 16 (nbval's two runs, beside the unit tests, 8 min 31 s and 9 min 01 s); 45 min 23 s
# in session 15 with other test runs on the machine; 21 min 9 s in session 14, before its 260 new tests. `make test-unit` and `make test-notebooks`
# run each alone. nbval runs in a session of its own (setsid), stopped with the unit tests
# at Ctrl-C: a job put in the background by a shell ignores Ctrl-C, and ran on for minutes after make had stopped.
test: $(STAMP) sandbox-tool slurm-tool browser-tool hub-tool
	@mkdir -p build; \
	setsid nice -n 10 $(MAKE) --no-print-directory test-notebooks > build/nbval.log 2>&1 & notebooks=$$!; \
	trap 'kill -TERM -$$notebooks 2>/dev/null; echo "make test: stopped; nbval stopped too"; exit 130' INT TERM; \
	$(MAKE) --no-print-directory test-unit; unit=$$?; \
	wait $$notebooks; nbval=$$?; echo "---- nbval (build/nbval.log) ----"; cat build/nbval.log; \
	echo "make test: unit tests $$( [ $$unit -eq 0 ] && echo passed || echo FAILED ), nbval $$( [ $$nbval -eq 0 ] && echo passed || echo FAILED )"; \
	test $$unit -eq 0 -a $$nbval -eq 0

# The inner loop (tests/quick.py): the test files that import what changed since QUICK_BASE (default HEAD: your
# uncommitted work; the last commit when there is none), quickest first, within about 3 minutes on 2 workers by
# the recorded test times (build/test-durations.json, else tests/durations.json); what is left is named.
QUICK_BASE ?= HEAD
test-quick: $(STAMP) sandbox-tool slurm-tool
	$(BIN)/python tests/quick.py --base $(QUICK_BASE)

# PyPI's own torch==2.13.0 for Linux is the CUDA build (TORCH_BUILD=cuda; pip --isolated: this workplace's pip
# otherwise prefers a local CPU wheel): in a venv of its own, the demo class must grade
# exactly as with the CPU build. Downloads gigabytes once; not part of `make test`.
CUDA_BUILD_VENV ?= .venv-cuda-build
test-cuda-build: sandbox-tool
	$(PYTHON) start.py install --venv $(CUDA_BUILD_VENV) --torch cuda --pip-option=--isolated
	$(CUDA_BUILD_VENV)/bin/python -c "import torch; print('torch', torch.__version__, '| CUDA', torch.version.cuda, '| GPU usable', torch.cuda.is_available())"
	$(CUDA_BUILD_VENV)/bin/python -m autograder.grading.demo --check --jobs $(or $(JOBS),2)

# On a machine with an NVIDIA GPU: the CUDA cases, the device aspect on CUDA in the sandbox, and the demo
# class graded with the GPU visible and hidden (CUDA_VISIBLE_DEVICES=): perfect full marks, empty 0 both times.
# GPU_PYTHON=python3 uses a Python that already has PyTorch with CUDA and the course installed (a GPU machine
# with no package index: `bash .gpu/setup.sh && make test-gpu GPU_PYTHON=python3`); by default .venv/ is set up
# with PyPI's CUDA build. The pytest runs use as many workers as the pytest-xdist there and the cores allow.
GPU_TESTS := tests/checks/test_gpu.py tests/autograder/test_reference_vs_torch.py tests/grading/run/test_judge.py tests/grading/run/test_grading_platform.py
GPU_PYTHON ?=
GPU_PY := $(or $(GPU_PYTHON),$(BIN)/python)
GPU_XDIST = $(shell $(GPU_PY) -c "import xdist" 2>/dev/null && n=$$(nproc) && [ $$n -ge 4 ] && echo "-n $$((n / 2 < 6 ? n / 2 : 6)) --dist loadfile")
test-gpu: TORCH_BUILD = cuda
test-gpu: $(if $(GPU_PYTHON),,$(STAMP)) sandbox-tool
	$(if $(GPU_PYTHON),,$(PYTHON) start.py install --venv $(VENV) --torch cuda)
	@$(GPU_PY) -c "import torch, sys; print('make test-gpu: torch', torch.__version__, '| CUDA', torch.version.cuda); sys.exit(0 if torch.cuda.is_available() else 'make test-gpu: no usable GPU here (torch ' + torch.__version__ + ')')"
	$(GPU_PY) -m pytest $(GPU_XDIST) $(GPU_TESTS)
	$(GPU_PY) -m autograder.grading.demo --check --jobs $(or $(JOBS),2)
	CUDA_VISIBLE_DEVICES= $(GPU_PY) -m pytest $(GPU_XDIST) tests/grading/run/test_judge.py tests/grading/run/test_grading_platform.py
	CUDA_VISIBLE_DEVICES= $(GPU_PY) -m autograder.grading.demo --check --jobs $(or $(JOBS),2)

# The unit tests run in parallel (pytest-xdist), each test file on one worker (its module fixtures start
# once; the zoo is three files), the longest files first (tests/conftest.py): on half the cores of a machine
# with 6 or more (the grading tests start processes of their own), on 2 workers below that; TEST_WORKERS=0 runs
# them in turn. On CI's 2 cores the tests keep both cores busy: 4 workers were no quicker (unit tests alone:
# 24 min 49 s on 4, 23 min 43 s on 2).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); if [ $$n -ge 6 ]; then echo $$((n / 2)); elif [ $$n -ge 2 ]; then echo 2; else echo 0; fi)
test-unit: $(STAMP) sandbox-tool slurm-tool browser-tool hub-tool
	$(BIN)/python -m pytest $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile,) --durations=25 tests

# nbval twice, at the same time (each kernel mostly uses one core): natively, and as on a CPU
# of another family (tests/perturbed.py), so that an output that depends on the CPU's rounding
# fails here, not first on someone else's machine. The second run's log is printed after the first.
NBVAL := $(BIN)/python -m pytest --nbval solutions $(if $(KO_ASSIGNMENTS),ko/solutions,) --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider
test-notebooks: $(STAMP)
	@if [ -n "$(ASSIGNMENTS)" ]; then \
	  mkdir -p build; \
	  $(BIN)/python -m tests.perturbed $(NBVAL) > build/nbval-perturbed.log 2>&1 & perturbed=$$!; \
	  $(NBVAL); native=$$?; \
	  wait $$perturbed; other=$$?; cat build/nbval-perturbed.log; \
	  test $$native -eq 0 -a $$other -eq 0; \
	else echo "no notebooks under solutions/ yet"; fi

# The visible checks' fingerprints are rebuilt with the release they ship with; both editions are released,
# each at both levels.
release: $(STAMP)
	$(BIN)/python -m autograder.fingerprints
	$(BIN)/python -m autograder.release $(ASSIGNMENTS)
	$(if $(KO_ASSIGNMENTS),$(BIN)/python -m autograder.release --lang ko $(KO_ASSIGNMENTS),)
	$(if $(CHALLENGE_ASSIGNMENTS),$(BIN)/python -m autograder.release --level challenge $(CHALLENGE_ASSIGNMENTS),)
	$(if $(CHALLENGE_KO_ASSIGNMENTS),$(BIN)/python -m autograder.release --lang ko --level challenge $(CHALLENGE_KO_ASSIGNMENTS),)

student-pack: $(STAMP)
	$(BIN)/python -m autograder.student_pack dist

# Ctrl-C: the grader exits 130; make would turn that into its own 2 (a failed recipe), so the recipe then ends
# make by SIGINT, as a shell expects of a command stopped by Ctrl-C (status 130). Where make was started with
# SIGINT ignored (in the background of a script without job control), it cannot be, and exits 2.
AUTOGRADE = $(BIN)/autograder grade $(SUBMITTED) --out $(OUT) --jobs $(or $(JOBS),1) --table $(if $(ROSTER),--roster $(ROSTER),)
autograde: $(STAMP) sandbox-tool
	@test -n "$(SUBMITTED)" -a -n "$(OUT)" || (echo "usage: make autograde SUBMITTED=dir OUT=dir [JOBS=n] [ROSTER=roster.csv]"; exit 2)
	@echo '$(AUTOGRADE)'; status=0; $(AUTOGRADE) || status=$$?; \
	  if [ $$status -eq 130 ]; then kill -INT $$PPID; sleep 1; fi; exit $$status

# docs/options.md: every option of autograder grade, report and collect-zip, from their traits (tests/autograder/test_options.py
# checks that it is up to date).
options-doc: $(STAMP)
	$(BIN)/python -m autograder.options_doc

# Stock `nbgrader autograde` against `autograder grade` on a class of N perfect students over every
# notebook (STUDENTS=n JOBS=n BENCH_ASSIGNMENTS=01-attention,... SCHEDULER=tcp://...), with the
# phases of ours; then ours again with --kernel-run (each notebook run twice, as before the one run),
# and the class with one endless-loop student; each class once more on a cluster kept between runs (--warm: the
# workers already set up for the course, as a second run finds them). 20 students by default: the per-worker
# start-up is spread as in real use. About 40 minutes on 2 cores, most of it stock nbgrader.
bench: $(STAMP) sandbox-tool
	$(BIN)/python -m autograder.grading.bench --students $(or $(STUDENTS),20) --jobs $(or $(JOBS),2) \
	  --assignments $(or $(BENCH_ASSIGNMENTS),all) --loop --kernel-run --mistakes --warm $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

# The capstone's model trained with seeds 0, 1 and 2: steps, seconds, held-out accuracy, attention shape.
bench-train: $(STAMP)
	$(BIN)/python -m tests.notebooks.test_capstone

# The live view's service (hub/live/) under a busy lab: 300 simulated learners on loopback, a run each 20 s
# (15 events/s) for a minute, the service killed and restarted in the middle; prints the events per second held,
# the delay from acknowledgement to the stream and to the page's view (p50, p99) and the events lost, and fails
# unless nothing is lost and the view is under 1 s behind at p99 (tests/hub/test_live_load.py asserts 5 s only).
bench-live: $(STAMP) hub-tool
	$(BIN)/python -m tests.hub.test_live_load

# Synthetic submissions (perfect, empty, typical mistakes, a cheat) graded, as a table.
demo-grade: $(STAMP) sandbox-tool
	$(BIN)/python -m autograder.grading.demo --jobs $(or $(JOBS),2)

# The bug zoo and the right-answer zoo of autograder.checks, as a table.
zoo: $(STAMP)
	$(BIN)/python -m tests.zoo.report

# Every right answer of the zoo written into the challenge notebooks' answer cells and run (tests/challenge_answers.py).
challenge-answers: $(STAMP)
	$(BIN)/python -m tests.challenge_answers $(IDS)

# The mutation table of the checks (tests/mutants): 84 s of CPU (5 min on a busy 2-core machine); not part of `make test`.
mutants: $(STAMP)
	$(BIN)/python -m tests.mutants; status=$$?; $(BIN)/python -m tests.mutants --learner-style && exit $$status

clean:
	rm -rf $(VENV) build dist *.egg-info
