"""The twins in tests/reference/ import none of the package's kernels, era tables or Energy Model.

A twin that imported what it checks would agree with it by construction. This scans every
``tests/reference/*.py`` file's syntax tree (every ``import`` / ``from ... import``, at any depth,
lazy ones included) and fails naming the file, line and module.
"""
from __future__ import annotations

import ast
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "reference"
FORBIDDEN_MODULES = ("lisa_eas._kernels", "lisa_eas._era", "lisa_eas.energy_model")
FORBIDDEN_NAMES = {"EnergyModel", "ERA_LEDGER", "_kernels", "_era"}


def _violations(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            mods = [(a.name, a.name.rsplit(".", 1)[-1]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [(node.module, a.name) for a in node.names] + [(f"{node.module}.{a.name}", a.name)
                                                                     for a in node.names]
        else:
            continue
        for mod, name in mods:
            bad_mod = any(mod == f or mod.startswith(f + ".") for f in FORBIDDEN_MODULES)
            bad_name = mod.startswith("lisa_eas") and name in FORBIDDEN_NAMES
            if bad_mod or bad_name:
                out.append(f"{path.name}:{node.lineno}: imports {mod} ({name})")
    return out


def test_reference_twins_import_no_package_kernel_era_table_or_energy_model():
    files = sorted(REFERENCE.glob("*.py"))
    assert len(files) >= 15 and (REFERENCE / "ref_sim_engine.py") in files
    bad = [v for f in files for v in _violations(f)]
    assert not bad, "twins must carry their own kernel code, era rules and EM:\n" + "\n".join(bad)


def test_the_scan_catches_each_forbidden_form(tmp_path):
    cases = {"a.py": "from lisa_eas._kernels import sim_state as ss\n",
             "b.py": "def f():\n    from lisa_eas.energy_model import EnergyModel\n",
             "c.py": "import lisa_eas._era\n",
             "d.py": "from lisa_eas import _kernels\n",
             "e.py": "from lisa_eas.models import EnergyModel\n"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert _violations(tmp_path / name), name
    (tmp_path / "ok.py").write_text("from lisa_eas.errors import ModelError\nfrom . import ref_pelt\n")
    assert _violations(tmp_path / "ok.py") == []


def test_no_test_seeds_or_orders_by_builtin_hash():
    """``hash()`` of a str (or a tuple holding one) is salted per process (PYTHONHASHSEED): a seed
    or an order derived from it changes from run to run. Tests derive seeds with zlib.crc32."""
    tests = Path(__file__).resolve().parent
    bad = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash":
                bad.append(f"{path.relative_to(tests)}:{node.lineno}")
    assert not bad, "builtin hash() in tests (use zlib.crc32 of a string):\n" + "\n".join(bad)
