# Two commands for a newcomer: `make demo` and `make test`. Both set everything up
# themselves (venv, Python packages, and, as root, the Debian tools of the live path)
# and are fast the second time: set-up steps are guarded by stamp files.

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEBIAN_TOOLS := rt-app trace-cmd openssh-server chromium linux-perf \
	clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
SIGNALS := lisa_eas/target/bpf/build/lisa-eas-signals
SIGNALS_SRC := $(wildcard lisa_eas/target/bpf/*.c lisa_eas/target/bpf/*.h lisa_eas/target/bpf/Makefile)
PYTEST_ARGS ?=

.PHONY: demo test test-fast bench docs setup system-deps signals sim-cache clean clean-cache

setup: $(STAMP) system-deps signals sim-cache

$(VPY):
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip

# Reinstall only when the package metadata changes.
$(STAMP): $(VPY) setup.cfg pyproject.toml
	$(VPY) -m pip install -q -e '.[all]'
	touch $(STAMP)

# rt-app and trace-cmd drive the live path; sshd serves the remote-target tests;
# chromium opens results/report.html in the browser test; perf runs the kernel-signals
# benchmark; clang, llvm, bpftool, libbpf-dev, libelf-dev and zlib1g-dev build the
# kernel-signals collector (lisa_eas/target/bpf).
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

# The kernel-signals collector (BPF program + static loader), rebuilt when its sources
# change. vmlinux.h comes from this machine's BTF: without BTF (or without the build
# tools, when not root) it is skipped with a note and `--kernel-signals` says so.
signals: system-deps
	@if [ -f $(SIGNALS) ] && [ -z "$$(find $(SIGNALS_SRC) -newer $(SIGNALS) 2>/dev/null)" ]; then :; \
	elif [ ! -r /sys/kernel/btf/vmlinux ]; then \
	  echo "note: no /sys/kernel/btf/vmlinux, not building the kernel-signals collector"; \
	elif ! command -v clang >/dev/null || ! PATH="$$PATH:/usr/sbin" command -v bpftool >/dev/null; then \
	  echo "note: clang/bpftool missing, not building the kernel-signals collector"; \
	else \
	  PATH="$$PATH:/usr/sbin" $(MAKE) -s -C lisa_eas/target/bpf; \
	fi

# The simulator's event loop is compiled once per checkout (~1 min of CPU; numba caches it
# next to the sources, and any edit of lisa_eas/_kernels or `make clean-cache` drops it): here, with a message,
# so that a user's first simulate() does not wait. Nothing happens when it is cached.
sim-cache: $(STAMP)
	@$(VPY) -c "import sys; from lisa_eas.sim._warm import event_loop_cached, warm_up_simulator; \
	event_loop_cached() or print(f'lisa-eas: compiled in {warm_up_simulator():.0f} s', file=sys.stderr)"

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

# Drop numba's compiled caches. (Not needed after an edit: a cached kernel of lisa_eas/_kernels or
# lisa_eas/trace is stamped with its whole package's sources, lisa_eas/_numba_cache.py, so any
# edit there recompiles that package's kernels on their next call.)
clean-cache:
	find lisa_eas -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-cache
	rm -rf $(VENV) results .pytest_cache lisa_eas/target/bpf/build docs/_build docs/notebooks
