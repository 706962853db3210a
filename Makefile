# `make run` and `make test` each build or refresh .venv on their own, so both work on a fresh clone.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lab,tune,cluster,rl,lsp,play,studio]'
	@# The report's test opens a page in headless Chromium (Debian's package); installed here when
	@# missing and this user may (root, with apt-get), else said.
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "note: headless Chromium is missing; the report test needs it (apt-get install chromium)"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/lfdsl run rulesets/duel.lf

# Every test, on every core (pytest-xdist; `-p no:xdist` runs them on one). A worker takes whole
# files, so a module's engines are built once.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile

bench: $(STAMP)
	$(BIN)/python benchmarks/playouts.py

clean:
	rm -rf $(VENV)
