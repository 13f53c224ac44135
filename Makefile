# Two commands for a newcomer: `make demo` and `make test`. Everything they need is
# installed here, into .venv (and, for the browser tests, Debian's chromium), from the
# project's own files.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench fuzz soak browser clean help

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m forumbot.demo
	@$(MAKE) --no-print-directory help

# The forumbot command lives in .venv/bin (make cannot change your shell's PATH).
help:
	@echo "forumbot 装在 $(VENV)/bin 里：运行 $(BIN)/forumbot --help"
	@echo "或者在每个终端里先运行一次 . $(BIN)/activate（之后直接用 forumbot --help）"

browser:
	bash .ci/ensure-browser

# The import contracts first (pyproject.toml, docs/architecture.md): an upward import fails
# here with the line that made it, before the suite's minutes.
test: $(STAMP) browser
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench

# 100,000 generated posts through the whole pipeline (page bytes → posts → votes →
# tally); about 45 minutes on 2 cores. The normal suite runs a few hundred.
fuzz: $(STAMP)
	FORUMBOT_FUZZ_EXAMPLES=100000 $(BIN)/python -m pytest -q tests/parsers/test_fuzz_posts.py tests/engine/test_fuzz_rulings.py

# A seven-day game with 5 % of requests failing and the agent killed every four game
# hours; exits non-zero on any duplicate post, lost vote or tally difference.
soak: $(STAMP)
	$(BIN)/python -m forumbot.demo.soak

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
