# Two commands on a fresh machine: `make run` and `make test`. Each builds what it needs.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
SAM_VENV := .venv-sam
PY := $(VENV)/bin/python
export AWS_DEFAULT_REGION ?= us-east-1
export SAM_CLI_TELEMETRY := 0
PYTEST_WORKERS ?= 2

.PHONY: run test lint typecheck cfn-lint sam-validate drift generate unit bench clean

$(VENV)/.installed: requirements/dev.txt requirements/constraints.txt layers/core/requirements.txt pyproject.toml sdks/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements/dev.txt -c requirements/constraints.txt
	$(PY) -m pip install -q --no-deps -e . -e sdks/python
	touch $@

$(SAM_VENV)/.installed: requirements/sam.txt requirements/sam-constraints.txt
	test -x $(SAM_VENV)/bin/python || $(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install -q -r requirements/sam.txt -c requirements/sam-constraints.txt
	touch $@

# The official Standard Webhooks verifier for JavaScript (tests/peers/standard_webhooks.py), from the lockfile.
JS_PEER := tests/peers/standard_webhooks_js
$(JS_PEER)/node_modules/.package-lock.json: $(JS_PEER)/package.json $(JS_PEER)/package-lock.json
	npm ci --prefix $(JS_PEER) --no-audit --no-fund --loglevel=error

# The TypeScript SDK's generator and compiler, from its lockfile.
TS_SDK := sdks/typescript
$(TS_SDK)/node_modules/.package-lock.json: $(TS_SDK)/package.json $(TS_SDK)/package-lock.json
	npm ci --prefix $(TS_SDK) --no-audit --no-fund --loglevel=error

# Spectral, which lints infra/openapi.json (infra/spectral/openapi-ruleset.yaml), from its lockfile.
SPECTRAL := infra/spectral
$(SPECTRAL)/node_modules/.package-lock.json: $(SPECTRAL)/package.json $(SPECTRAL)/package-lock.json
	npm ci --prefix $(SPECTRAL) --no-audit --no-fund --loglevel=error

## The whole service on this machine: AWS emulator, API, workers, SMTP.
run: $(VENV)/.installed
	$(PY) -m devtools.local $(ARGS)

## Regenerate template.yaml, infra/openapi.json and the SDKs' generated code from the route table.
generate: $(VENV)/.installed $(TS_SDK)/node_modules/.package-lock.json
	$(PY) -m infra.generate

## Fails when the committed template or OpenAPI document differs from what the code generates.
drift: $(VENV)/.installed $(TS_SDK)/node_modules/.package-lock.json
	$(PY) -m infra.generate --check

lint: $(VENV)/.installed $(SPECTRAL)/node_modules/.package-lock.json
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(SPECTRAL)/node_modules/.bin/spectral lint infra/openapi.json --ruleset $(SPECTRAL)/openapi-ruleset.yaml --fail-severity warn --quiet

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy layers/core/postline devtools functions infra bench tests/fakes sdks/python/src

cfn-lint: $(VENV)/.installed
	$(VENV)/bin/cfn-lint template.yaml

sam-validate: $(SAM_VENV)/.installed
	$(SAM_VENV)/bin/sam validate --lint --template template.yaml --region $(AWS_DEFAULT_REGION)

test: lint typecheck drift cfn-lint sam-validate $(JS_PEER)/node_modules/.package-lock.json $(TS_SDK)/node_modules/.package-lock.json
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadfile

unit: $(VENV)/.installed $(JS_PEER)/node_modules/.package-lock.json
	$(VENV)/bin/pytest tests/unit tests/handlers -q

## Throughput, latency (ratios against the bare storage calls) and growth at two sizes (not part of `make test`; ~20 min,
## most of it the 1,000,000-event account: `make bench ARGS="--events 200000"` for less).
bench: $(VENV)/.installed
	$(PY) -m bench $(ARGS)

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .local .mypy_cache .ruff_cache $(JS_PEER)/node_modules $(TS_SDK)/node_modules $(TS_SDK)/dist $(SPECTRAL)/node_modules
