# Two commands for a newcomer: `make demo` and `make test`. Both set everything up
# themselves (venv, Python packages, and, as root, the Debian tools of the live path)
# and are fast the second time: set-up steps are guarded by stamp files.

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEBIAN_TOOLS := rt-app trace-cmd openssh-server chromium
PYTEST_ARGS ?=

.PHONY: demo test test-fast bench docs setup system-deps clean clean-cache

setup: $(STAMP) system-deps

$(VPY):
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

# Reinstall only when the package metadata changes.
$(STAMP): $(VPY) setup.cfg pyproject.toml
	$(VPY) -m pip install -q -e '.[all]'
	touch $(STAMP)

# rt-app and trace-cmd drive the live path; sshd serves the remote-target tests;
# chromium opens results/report.html in the browser test.
# Installed only when running as root and only when missing.
system-deps:
	@missing=""; for p in $(DEBIAN_TOOLS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "note: not root, not installing$$missing (live tests will skip)"; \
	  fi; \
	fi

demo: setup
	$(VENV)/bin/lisa-eas demo --out results

# The whole suite: unit, slow and live tests, and every notebook executed (nbmake).
test: setup
	$(VPY) -m pytest -m "not board" --nbmake tests notebooks $(PYTEST_ARGS)

test-fast: setup
	$(VPY) -m pytest $(PYTEST_ARGS)

# HTML documentation (Sphinx + myst-nb; notebooks executed, results cached) into docs/_build/html.
docs: setup
	$(VPY) -m sphinx -b html -q -j 2 docs docs/_build/html
	@echo "open docs/_build/html/index.html"

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(VPY) $$b || exit 1; done

# Numba's on-disk cache is keyed on each kernel file alone: after editing a kernel that
# others call, drop the compiled caches so every caller is recompiled.
clean-cache:
	find lisa_eas -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-cache
	rm -rf $(VENV) results .pytest_cache docs/_build docs/notebooks
