# Game-Night Companion. Quick start: `make run` (serve on port 5000), `make test` (the whole suite).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5000
WORKERS ?= 3

.PHONY: run test serve bench lint init-db clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a requirements file changes.
$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/activate
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

init-db: $(VENV)/.installed
	$(BIN)/flask --app app init-db

run: init-db
	@$(BIN)/python -m companion.lan $(PORT)
	$(BIN)/flask --app app run --host 0.0.0.0 --port $(PORT)

serve: init-db
	@$(BIN)/python -m companion.lan $(PORT)
	$(BIN)/gunicorn --bind 0.0.0.0:$(PORT) --workers $(WORKERS) --threads 4 --access-logfile - 'app:create_app()'

lint: $(VENV)/.installed
	$(BIN)/ruff check .

test: lint
	$(BIN)/pytest -n auto

bench: $(VENV)/.installed
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
