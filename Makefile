# Run `make help` to list the targets.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
STAMP := $(VENV)/.installed
# Test workers (pytest-xdist); the page checks stay together on one of them.
JOBS ?= 2

.DEFAULT_GOAL := help
.PHONY: help install system run serve test e2e audit bench bench-import bench-renditions bench-publish bench-puput soak lint format check migrate demo clean

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

$(PY):
	python3 -m venv $(VENV)

$(STAMP): $(PY) requirements.txt requirements-dev.txt package.json package-lock.json
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements-dev.txt
	npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

# What `npm run build` makes in build/static/ (docs/front-end.md): a minified
# copy of each stylesheet and script in static/, which the site serves instead
# of the source; the admin's code editor (CodeMirror), bundled from static_src/
# by esbuild; and Mermaid's browser build copied beside it (static/js/diagrams.js
# draws with it). Rebuilt when their sources or the npm packages change. Not
# committed.
ASSETS := $(shell find static -type f \( -name '*.css' -o -name '*.js' \))
BUNDLE := $(patsubst static/%,build/static/%,$(ASSETS)) build/static/blog/admin/code-editor.js build/static/mermaid/mermaid.min.js
$(BUNDLE) &: $(STAMP) $(ASSETS) $(shell find static_src -type f)
	npm run --silent build

install: $(STAMP) $(BUNDLE) ## Create .venv, install the pinned requirements and npm packages, build the minified CSS and scripts

system: ## Install the Debian packages the page checks need (Chromium, CJK fonts, Java), if root
	scripts/system-packages

migrate: install ## Apply database migrations (SQLite unless DATABASE_URL is set)
	$(PY) manage.py migrate --noinput

demo: migrate ## Load the demo blog (idempotent)
	$(PY) manage.py load_demo

# The admin's links (and the login printed) point where the server listens.
ADMIN_URL = $${WAGTAILADMIN_BASE_URL:-http://$(HOST):$(PORT)}

# honcho runs the processes of a Procfile together; Ctrl+C stops them all.
HONCHO = PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/honcho

run: demo ## Set everything up and serve the demo on http://127.0.0.1:8000, with a task worker
	WAGTAILADMIN_BASE_URL=$(ADMIN_URL) $(PY) manage.py ensure_admin
	WAGTAILADMIN_BASE_URL=$(ADMIN_URL) HOST=$(HOST) $(HONCHO) -f Procfile.dev start --port $(PORT)

# Task workers beside gunicorn under `make serve`.
TASK_WORKERS ?= 1

serve: install ## Serve with gunicorn, task workers and production settings (needs SECRET_KEY, DATABASE_URL, ALLOWED_HOSTS)
	$(PY) manage.py collectstatic --noinput --verbosity 0
	DJANGO_SETTINGS_MODULE=config.settings.production BIND=$(HOST):$(PORT) $(HONCHO) -f Procfile start --concurrency worker=$(TASK_WORKERS)

test: install system ## Run the test suite (extra pytest options: PYTEST_ARGS="-m 'not e2e'")
	$(PY) -m pytest -n $(JOBS) --dist loadgroup $(PYTEST_ARGS)

e2e: install system ## Browser, HTML-validity and accessibility checks only (Chromium, Java)
	$(PY) -m pytest tests/e2e tests/html

audit: install ## Lighthouse scores of home and the longest math post (Chromium)
	$(PY) scripts/audit.py

bench: install system ## Benchmark 1k and 10k posts: SQLite, and PostgreSQL if DATABASE_URL is one (BENCH_ARGS="--sizes 200 --duration 3")
	$(PY) scripts/bench.py $(BENCH_ARGS)

bench-import: install ## Time import_markdown on a 200-post, 700-image vault, again, and its export (BENCH_IMPORT_ARGS="--rounds 1 --profile")
	$(PY) scripts/bench_import.py $(BENCH_IMPORT_ARGS)

bench-renditions: install ## Encode time and bytes of each rendition format and width, on real-sized figures
	$(PY) scripts/bench_renditions.py $(BENCH_RENDITIONS_ARGS)

bench-publish: install system ## Seconds an editor waits after 发布 on a 3,000-formula post (Chromium, a task worker)
	$(PY) scripts/bench_publish.py $(BENCH_PUBLISH_ARGS)

bench-puput: install system ## Our post page against puput 2.2's on 1,000 posts each: p50 and rps (BENCH_PUPUT_ARGS="--posts 200")
	$(PY) scripts/bench_puput.py $(BENCH_PUPUT_ARGS)

soak: install ## Mixed traffic on PostgreSQL + Redis for 60 s, then faults (SOAK_ARGS="--no-faults")
	$(PY) scripts/soak.py $(SOAK_ARGS)

lint: install ## Lint Python and check template formatting
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/djhtml --check templates

format: install ## Format Python and templates
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
	$(VENV)/bin/djhtml templates

check: install ## What CI runs: Django checks, missing migrations, lint, tests
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(MAKE) lint
	$(MAKE) test

clean: ## Remove the virtualenv, node_modules, the built scripts, the SQLite database, its caches and media
	rm -rf $(VENV) node_modules build db.sqlite3 db.sqlite3-shm db.sqlite3-wal .cache media staticfiles .admin-login test-artifacts
