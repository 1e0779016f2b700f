"""The package's shape: no import cycles, no private names across modules, layers import downward.

The graph is read from the source with ``ast`` (every ``import`` and ``from ... import`` of
ropecheck's own modules, at any depth), so a cycle hidden in a function body counts too.
Each module is also imported alone in a fresh interpreter, in dependency order.

Design constraints: the layer table below is the architecture in data -- a module may import
only from its own layer or a lower one; inside ``ropecheck.symbolic``, ``SYMBOLIC_LAYERS`` says
which sub-packages each sub-package may import.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ropecheck

PACKAGE = Path(ropecheck.__file__).resolve().parent


def _proofs_dir() -> Path:
    import ropecheck.proofs

    return Path(ropecheck.proofs.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for root, prefix in ((PACKAGE, "ropecheck"), (_proofs_dir(), "ropecheck.proofs")):
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([prefix, *parts])
            if prefix == "ropecheck" and name.startswith("ropecheck.proofs"):
                continue
            out[name] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if _is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache  # read once per module: every test of the graph walks the same imports
def _imports(module: str) -> tuple[tuple[str, str, int], ...]:
    """(imported module, imported name or '', line) for every import of ropecheck's own code."""
    return tuple(_read_imports(module))


def _read_imports(module: str) -> Iterator[tuple[str, str, int]]:
    tree = ast.parse(MODULES[module].read_text())
    type_only = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:  # annotations only: never imported at run time
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ropecheck"):
                    yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if not target.startswith("ropecheck"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:  # `from package import module`
                    yield sub, "", node.lineno
                else:
                    yield target, alias.name, node.lineno


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m in MODULES:
        for target, _, _ in _imports(m):
            if target in MODULES and target != m:
                graph[m].add(target)
    return graph


def _edges_without_package_reexports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` importing its own submodules is how it re-exports, not a cycle;
    a submodule importing its own package's ``__init__`` would be, and is kept."""
    out: dict[str, set[str]] = {}
    for m, targets in graph.items():
        keep = set()
        for t in targets:
            if _is_package(m) and t.startswith(m + "."):
                continue
            keep.add(t)
        out[m] = keep
    return out


def test_no_import_cycles() -> None:
    graph = _edges_without_package_reexports(_graph())
    # a submodule reaches its package's siblings, never the package __init__ that imports it
    for m, targets in graph.items():
        for t in targets:
            assert not (_is_package(t) and m.startswith(t + ".")), f"{m} imports its own package {t}"
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycle = stack[stack.index(t) :] + [t]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_no_private_names_across_modules() -> None:
    bad = []
    for m in MODULES:
        for target, name, line in _imports(m):
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                bad.append(f"{MODULES[m].name}:{line}: {m} imports {target}.{name}")
            if any(part.startswith("_") and not part.startswith("__") for part in target.split(".")):
                bad.append(f"{MODULES[m].name}:{line}: {m} imports the private module {target}")
    assert not bad, "\n".join(bad)


# The layers, lowest first: a module may import only its own layer or lower ones.
LAYERS: list[tuple[str, ...]] = [
    (
        "ropecheck.errors",
        "ropecheck.io",
        "ropecheck.inputs",
        "ropecheck.lazy",
        "ropecheck.version",
        "ropecheck.isolate",
        "ropecheck.wire",
    ),
    ("ropecheck.schedules", "ropecheck.tolerance", "ropecheck.axes", "ropecheck.host", "ropecheck.qk"),
    ("ropecheck.hf",),
    ("ropecheck.spec",),
    ("ropecheck.reference", "ropecheck.svg"),
    ("ropecheck.protocol", "ropecheck.target", "ropecheck.symbolic"),
    ("ropecheck.proofs", "ropecheck.properties", "ropecheck.precision", "ropecheck.diagnosis", "ropecheck.gradients"),
    ("ropecheck.axis_properties",),
    ("ropecheck.strategies", "ropecheck.verify", "ropecheck.adapters"),
    ("ropecheck.pytest_plugin", "ropecheck.survey", "ropecheck.report", "ropecheck.bench"),
    ("ropecheck.cli", "ropecheck.__main__"),
]


def _layer(module: str) -> int:
    if module == "ropecheck":
        return len(LAYERS)  # the top package re-exports from below
    best = None
    for i, group in enumerate(LAYERS):
        for prefix in group:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (i, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def test_every_module_has_a_layer() -> None:
    for m in MODULES:
        _layer(m)


def test_layers_import_downward() -> None:
    bad = []
    for m, targets in _graph().items():
        for t in targets:
            if t == "ropecheck":
                bad.append(f"{m} imports the top package")
                continue
            if _layer(t) > _layer(m):
                bad.append(f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})")
    assert not bad, "\n".join(bad)


def test_symbolic_and_precision_never_import_report_code() -> None:
    for m, targets in _graph().items():
        if m.startswith(("ropecheck.symbolic", "ropecheck.precision")):
            assert not any(t.startswith(("ropecheck.report", "ropecheck.cli")) for t in targets), m


# Inside ropecheck.symbolic, the sub-packages each may import (their own included): the engine
# is the bottom; readers and pages stand on it; the audit on those three; the Coq bridge on the engine.
SYMBOLIC_LAYERS: dict[str, tuple[str, ...]] = {
    "engine": ("engine",),
    "readers": ("engine", "readers"),
    "pages": ("engine", "pages"),
    "audit": ("engine", "readers", "pages", "audit"),
    "coq": ("engine", "coq"),
}


def _symbolic_part(module: str) -> str | None:
    """The sub-package of ``ropecheck.symbolic`` a module belongs to ('' for the package itself)."""
    if module == "ropecheck.symbolic":
        return ""
    if not module.startswith("ropecheck.symbolic."):
        return None
    return module.split(".")[2]


def test_symbolic_layers() -> None:
    graph = _graph()
    bad = []
    for m in MODULES:
        part = _symbolic_part(m)
        if not part:
            continue
        if part not in SYMBOLIC_LAYERS:
            bad.append(f"{m} is in no sub-package of SYMBOLIC_LAYERS: move it into one")
            continue
        for t in sorted(graph[m]):
            target = _symbolic_part(t)
            if target is None:
                continue
            if target == "":
                bad.append(f"{m} imports the package ropecheck.symbolic (import the sub-package's module)")
            elif target not in SYMBOLIC_LAYERS[part]:
                bad.append(f"{m} ({part}) imports {t} ({target}); {part} may import {', '.join(SYMBOLIC_LAYERS[part])}")
    assert not bad, "\n".join(bad)


def test_every_module_has_a_literal_all_and_a_docstring() -> None:
    for m, path in MODULES.items():
        tree = ast.parse(path.read_text())
        assert ast.get_docstring(tree), f"{m} has no module docstring"
        if path.name == "__main__.py":
            continue
        alls = [
            n
            for n in tree.body
            if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
        ]
        assert len(alls) == 1, f"{m}: one __all__ assignment expected"
        value = alls[0].value
        assert isinstance(value, ast.List) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
        ), f"{m}: __all__ must be a literal list of strings"


def _dependency_order() -> list[str]:
    graph = _edges_without_package_reexports(_graph())
    order: list[str] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        seen.add(m)
        for t in sorted(graph[m]):
            if t not in seen:
                visit(t)
        order.append(m)

    for m in sorted(graph):
        if m not in seen:
            visit(m)
    return order


def test_every_module_imports_in_dependency_order() -> None:
    """A fresh interpreter imports every module, lowest first: each loads with only its dependencies loaded."""
    order = [m for m in _dependency_order() if m != "ropecheck.__main__"]
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    proc = subprocess.run([sys.executable, "-c", code, *order], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
