"""The numba cache of lisa_eas's kernels follows every source of their package
(lisa_eas._numba_cache): a kernel reading another module's constant recompiles when only that
module changes. numba alone keys a function by its own file, so the old machine code ran with
the old constant (the simulator segfaulted after a state-layout change until `make
clean-cache`)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import lisa_eas
from lisa_eas import _numba_cache

PKG = Path(lisa_eas.__file__).parent

PROBE = """
import sys
from lisa_eas._kernels.zz_probe_b import value
print(value())
"""


def _run(root: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_DISABLE_JIT": "0"}
    env.pop("NUMBA_CACHE_DIR", None)
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip()


def test_a_kernel_recompiles_when_only_a_module_it_reads_changes(tmp_path):
    # a copy of the package's sources (no caches), plus two modules of _kernels: a constant in
    # one, a cached kernel returning it in the other
    root = tmp_path / "src"
    shutil.copytree(PKG, root / "lisa_eas", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    k = root / "lisa_eas" / "_kernels"
    (k / "zz_probe_a.py").write_text("K = 1\n")
    (k / "zz_probe_b.py").write_text("from numba import njit\n\nfrom .zz_probe_a import K\n\n\n"
                                     "@njit(cache=True)\ndef value():\n    return K\n")
    assert _run(root) == "1"
    assert list((k / "__pycache__").glob("zz_probe_b.value-*.nbi"))          # cached on disk
    assert _run(root) == "1"                                                  # and loaded from it
    (k / "zz_probe_a.py").write_text("K = 2\n")        # only the module the kernel reads changes
    assert _run(root) == "2"                           # numba's per-file stamp alone gives 1


def test_the_stamp_is_the_packages_and_only_for_its_packages(tmp_path):
    from lisa_eas._kernels import pelt

    stamp = pelt.decay_load._cache._cache_file._source_stamp
    assert isinstance(stamp, tuple) and stamp[1] == _numba_cache.package_digest(str(PKG / "_kernels"))
    assert _numba_cache.package_digest(str(PKG / "trace")) not in (None, stamp[1])
    assert _numba_cache.package_digest(str(tmp_path)) is None      # any other directory: numba's own
