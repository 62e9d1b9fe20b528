# Game-Night Companion. Quick start: `make run` (serve on port 5000), `make test` (the whole suite).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5000

.PHONY: run test serve bench lint init-db translations clean browser bench-tools fuzz

# Debian packages: the browser tests drive Chromium (with fonts for its screenshots), the benchmark wrk.
BROWSER_PACKAGES := chromium fonts-dejavu-core
BENCH_PACKAGES := wrk

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a requirements file changes.
$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/activate
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

init-db: $(VENV)/.installed
	$(BIN)/flask --app app init-db

# With COMPANION_REPLICA_URL set, both serve through `game-night-companion run`, under Litestream, which
# copies every change of the database to the replica (docs/deploy.md).
ifdef COMPANION_REPLICA_URL
run: serve
else
run: init-db
	@$(BIN)/python -m companion.web.lan $(PORT)
	$(BIN)/flask --app app run --host 0.0.0.0 --port $(PORT)
endif

# `run` brings the database up to date, prints the addresses and starts gunicorn (WORKERS: its worker count,
# by default one per CPU core)
serve: $(VENV)/.installed
	$(BIN)/python -m companion.cli run --port $(PORT)$(if $(WORKERS), --workers $(WORKERS))

lint: $(VENV)/.installed
	$(BIN)/ruff check .

# Installed with apt-get when missing and running as root; otherwise make stops and says what to run.
browser:
	@scripts/ensure-apt.sh $(BROWSER_PACKAGES)

bench-tools:
	@scripts/ensure-apt.sh $(BENCH_PACKAGES)

# One worker more than cores: browser tests spend much of their time waiting on Chromium.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

# The suite starts many Python processes (its workers, servers, the command line). Where the environment
# sets PYTHONDONTWRITEBYTECODE, each would compile the app again, and every worker would have pytest
# rewrite its plugins' modules (Hypothesis, Schemathesis) before its first test.
test fuzz: export PYTHONDONTWRITEBYTECODE :=

test: browser lint
	$(BIN)/pytest -n $(TEST_WORKERS) --maxschedchunk=1

# The fuzz tests with a budget far beyond the suite's (crafted backups and BG Stats exports: thousands of
# mutations; the API: 500 cases an operation).
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=fuzz BACKUP_FUZZ_EXAMPLES=5000 BGSTATS_FUZZ_EXAMPLES=3000 API_FUZZ_EXAMPLES=500 \
		$(BIN)/pytest -q -p no:randomly \
		tests/test_backup_fuzz.py tests/test_bgstats_fuzz.py tests/test_forms_fuzz.py tests/test_fuzz_api.py

bench: bench-tools $(VENV)/.installed
	$(BIN)/python bench/run.py
	$(BIN)/python -m bench.taps

# After changing texts: collect them (the pages' _() and the rules' messages), merge them into the German
# catalogue (created on the first run), translate the new entries in
# translations/de/LC_MESSAGES/messages.po, then run this again to compile.
MESSAGE_KEYWORDS := -k _l -k lazy_gettext -k Message -k RulesError -k UnknownGame -k StaleVersion \
	-k DuplicateName -k StaleCard -k RepeatedCard -k SecondDisc -k BackupError -k StoreError -k NameProblem \
	-k BgStatsError -k DuplicateGame -k TooManyWrongCodes
translations: $(VENV)/.installed
	mkdir -p translations
	@# Babel warns about each f-string beside a message (the rules' field paths); show only other warnings.
	log=$$(mktemp) && { $(BIN)/pybabel -q extract -F babel.cfg $(MESSAGE_KEYWORDS) --no-location \
		--sort-output --project="Game-Night Companion" --copyright-holder="the Game-Night Companion authors" \
		-o translations/messages.pot . 2>"$$log"; status=$$?; \
		grep -v "Skipping f-string" "$$log" >&2; rm -f "$$log"; exit $$status; }
	$(BIN)/pybabel -q update -i translations/messages.pot -d translations -l de --init-missing \
		--no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile -d translations --statistics

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
