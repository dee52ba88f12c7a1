"""The package's imports run one way: _kernels <- models <- sim/trace <- analysis <- repro/plot <- cli.

Every ``import`` in ``lisa_eas`` (module level or inside a function) is read from the source
(``ast``) and mapped to the top-level unit it reaches; a unit may import only from units of
its own rank or below, and only ``models`` and ``sim`` use the private ``_kernels``. The back-edges that are still open are listed by module in
``KNOWN_BACK_EDGES``: the test fails on any other one, and on a listed one that is gone (so the
list only shrinks).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "lisa_eas"

#: rank of each top-level unit of ``lisa_eas`` (a module or a subpackage)
RANK = {
    # dependency-free helpers
    "errors": 0, "_era": 0, "_atomic": 0, "_lazy": 0, "_text": 0, "__version__": 0, "_numba_cache": 0,
    # data descriptions
    "platform": 1, "energy_model": 1, "rtapp": 1, "published": 1, "platforms": 1,
    "_kernels": 2,
    "models": 3,
    "sim": 4, "trace": 4, "target": 4,
    "analysis": 5,
    "repro": 6, "plot": 6, "suite": 6,
    "cli": 7,
    "lisa_eas": 8,         # the package's own __init__ (lazy re-exports)
}

#: the units that may import the private numba kernels (``lisa_eas._kernels``)
KERNEL_USERS = {"_kernels", "models", "sim"}

#: (importing module, imported module) pairs that still break the order; remove a row when
#: its edge is gone (the test then insists)
KNOWN_BACK_EDGES = {
    # Trace.ana (LISA's ``trace.ana.<area>``) binds the analyses to a trace: the designed
    # convenience, imported lazily when a user first reads ``trace.ana``
    ("lisa_eas.trace._trace", "lisa_eas.analysis"),
}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _is_module(dotted: str) -> bool:
    path = ROOT.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(runtime_only: bool = False):
    """(importing module, imported module) for every import of a lisa_eas module (with
    ``runtime_only``, not those under ``if TYPE_CHECKING:``, which exist for annotations)."""
    out = set()
    for f in ROOT.rglob("*.py"):
        rel = f.relative_to(ROOT.parent).with_suffix("")
        mod = ".".join(rel.parts)
        pkg = mod[: -len(".__init__")] if f.name == "__init__.py" else mod.rsplit(".", 1)[0]
        if mod.endswith(".__init__"):
            mod = pkg
        tree = ast.parse(f.read_text(), str(f))
        typing_only = set()
        if runtime_only:
            for n in ast.walk(tree):
                if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING":
                    typing_only.update(id(x) for b in n.body for x in ast.walk(b))
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                # ``from pkg import name``: the submodule when ``name`` is one, else pkg
                # (the package's ``__version__`` counts as a helper of rank 0)
                targets = [f"{target}.{a.name}" if _is_module(f"{target}.{a.name}") or a.name == "__version__"
                           else target for a in node.names]
            else:
                continue
            out.update((mod, t) for t in targets if t.split(".")[0] == "lisa_eas")
    return out


def test_imports_follow_the_layer_order():
    edges = _imports()
    units = {_unit(m) for m, _ in edges} | {_unit(t) for _, t in edges}
    assert units <= set(RANK), f"units without a rank: {sorted(units - set(RANK))}; add them to RANK"
    back = {(m, t) for m, t in edges if _unit(m) != _unit(t) and RANK[_unit(t)] > RANK[_unit(m)]}
    # the numba kernels are private: the layers above reach them through lisa_eas.models
    back |= {(m, t) for m, t in edges if _unit(t) == "_kernels" and _unit(m) not in KERNEL_USERS}
    new = back - KNOWN_BACK_EDGES
    assert not new, "imports against the layer order (a lower layer reaching up): " + ", ".join(
        f"{m} -> {t}" for m, t in sorted(new))
    gone = KNOWN_BACK_EDGES - back
    assert not gone, f"fixed back-edges still listed in KNOWN_BACK_EDGES: {sorted(gone)}"


#: pairs of modules that import each other at run time (one of the two lazily, inside a
#: function); remove a row when its cycle is gone (the test then insists)
KNOWN_CYCLES = {
    ("lisa_eas.sim", "lisa_eas.sim._warm"),
}


def test_no_two_modules_import_each_other():
    """A module pair importing each other hides its order (e.g. ``rtapp._model`` <-> ``_writer``,
    gone: the writer names the model's classes for its annotations only)."""
    edges = _imports(runtime_only=True)
    cycles = {(a, b) for a, b in edges if (b, a) in edges and a < b}
    assert not cycles - KNOWN_CYCLES, f"modules importing each other: {sorted(cycles - KNOWN_CYCLES)}"
    assert not KNOWN_CYCLES - cycles, f"cycles gone, still listed in KNOWN_CYCLES: {sorted(KNOWN_CYCLES - cycles)}"


def test_the_check_sees_a_back_edge():
    """The reader finds function-local relative imports (where the back-edges hide)."""
    edges = _imports()
    assert ("lisa_eas.trace._trace", "lisa_eas.analysis") in edges
    assert ("lisa_eas.sim._engine", "lisa_eas._kernels.sim_layout") in edges
