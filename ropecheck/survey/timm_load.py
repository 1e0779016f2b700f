"""Load a timm module as written, from the installed files, without running timm's package ``__init__``.

Why package shells: ``import timm`` runs ``timm/__init__.py``, which imports ``timm.layers``, whose
``__init__`` imports ``create_norm.py`` and ``norm_act.py``, which import ``torchvision``. The survey's
environment has no torchvision that works with its torch build (the wheel it could get is built against
CUDA libraries the CPU torch lacks, and installed it breaks ``import torchvision`` and what imports it).
timm's rotary code does not need it: ``timm/layers/pos_embed_sincos.py`` imports only torch and
``._fx`` (whose torchvision import is guarded by ``try``/``except ImportError``), ``.grid`` and
``.trace_utils``. So the survey puts an empty package module for ``timm`` and for ``timm.layers`` in
``sys.modules`` -- a :class:`~importlib.machinery.ModuleSpec` with the installed folder as its search
location, whose ``__init__`` is not executed -- and imports the rotary module under its own name with
:func:`importlib.import_module`: Python's own path finder reads the installed file and its relative
imports resolve in the installed folder. Nothing is stubbed or replaced: every line that runs is timm's,
and torchvision is never imported, faked or shadowed.

Which modules can load so is decided from the sources (:func:`torchvision_chain`): a module whose
imports reach torchvision -- directly, or through a timm package imported by name (``from timm.layers
import RmsNorm`` runs ``timm/layers/__init__.py``, which a shell never does) -- cannot; its rows are SKIP
with that chain of imports. With torchvision importable, or the real timm already imported, timm is
imported whole, as usual.

Design constraints: the choice between shells and the real package is made once per process and they
never mix; shells are installed in the process that drives timm (the survey loads the rotary module
before its workers fork); never a real ``import timm`` without torchvision.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.machinery
import importlib.util
import sys
import types
from pathlib import Path

from .drive import NotDriven
from .timm_discover import timm_root

__all__ = ["load_timm_module", "torchvision_chain"]

#: The packages whose ``__init__`` the shells stand in for.
_SHELLS = ("timm", "timm.layers")


def _file(root: Path, module: str) -> Path | None:
    """The source file of ``module`` (``timm.x.y``) under ``root`` (timm's folder): ``y.py`` or ``y/__init__.py``."""
    rel = Path(*module.split(".")[1:])
    if not rel.parts:  # the package itself
        return root / "__init__.py"
    for path in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
        if path.is_file():
            return path
    return None


def _optional(node: ast.Try) -> bool:
    """True for a ``try`` whose handlers catch ImportError (its imports are optional)."""
    names = [ast.unparse(h.type) if h.type is not None else "" for h in node.handlers]
    return any(not n or "ImportError" in n or "Exception" in n for n in names)


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run when the module is imported: its body, into ``if``/``with`` blocks and unguarded
    ``try`` blocks, never into functions or classes."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.Try):
            if not _optional(node):
                out += _top_level(node.body + node.orelse + node.finalbody)
        elif isinstance(node, (ast.If, ast.With)):
            out += _top_level(node.body + getattr(node, "orelse", []))
        else:
            out.append(node)
    return out


@functools.cache
def _imports(module: str, path: Path) -> tuple[str, ...]:
    """The modules a module's top level imports unconditionally (not in functions or a guarded ``try``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if node.module:  # the module named is imported; ``from . import x`` imports only x
                out.append(base)
            out += [f"{base}.{a.name}" for a in node.names]  # a name may be a submodule
    return tuple(out)


@functools.cache
def torchvision_chain(module: str, *, shells: bool = True, root: Path | None = None) -> tuple[str, ...] | None:
    """A chain of imports from ``module`` to torchvision, or None when its imports never reach it.

    With ``shells`` the packages of :data:`_SHELLS` count as loaded without their ``__init__`` (their
    submodules are still read); a module that imports such a package by name (``from timm.layers import X``)
    needs its ``__init__``, which is then followed.
    """
    root = root or timm_root()
    start = [module, *_needed_parents(module, shells)]
    came: dict[str, str | None] = dict.fromkeys(start)
    stack = start[::-1]
    while stack:  # depth first, each module's imports in source order: any chain is a reason, the first is quick
        name = stack.pop()
        path = _file(root, name)
        if path is None:
            continue
        found = []
        for target in _imports(name, path):
            if target.split(".")[0] == "torchvision":
                chain = [target, name]
                while came[chain[-1]] is not None:
                    chain.append(came[chain[-1]])  # type: ignore[arg-type]
                return tuple(chain[::-1])
            if target != "timm" and not target.startswith("timm."):
                continue
            for needed in (*_needed_parents(target, shells), target):
                if needed not in came:
                    came[needed] = name
                    found.append(needed)
        stack += found[::-1]
    return None


def _needed_parents(module: str, shells: bool) -> list[str]:
    """The packages whose ``__init__`` Python runs before ``module`` (the shells' do not run)."""
    return [p for p in _parents(module) if not (shells and p in _SHELLS)]


def _parents(module: str) -> list[str]:
    """``timm.models.x`` -> ``["timm", "timm.models"]``: the packages Python imports before a module."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _shell(name: str, folder: Path) -> types.ModuleType:
    """A package module for ``name`` whose submodules are found in ``folder``; its ``__init__`` is not run."""
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [str(folder)]
    return importlib.util.module_from_spec(spec)  # no origin: no file, nothing executed


def load_timm_module(module: str) -> types.ModuleType:
    """``module`` (``timm.layers.pos_embed_sincos``) from the installed files; :class:`~.drive.NotDriven` with the
    reason when it cannot load.

    With torchvision importable (or the real timm already imported) timm is imported as usual, whole; without it,
    under package shells, for the modules whose imports never reach torchvision (the choice is made once per
    process: the shells and the real packages never mix).
    """
    if module in sys.modules:
        return sys.modules[module]
    timm = sys.modules.get("timm")
    shelled = timm is not None and not getattr(timm.__spec__, "origin", None)
    if not shelled and (timm is not None or importlib.util.find_spec("torchvision") is not None):
        try:
            return importlib.import_module(module)
        except Exception as exc:  # timm's own import failed: the reason of the skip
            raise NotDriven(f"import {module} (with the installed torchvision): {type(exc).__name__}: {exc}") from exc
    root = timm_root()
    chain = torchvision_chain(module, root=root)
    if chain is not None:
        raise NotDriven(
            f"{module} cannot be loaded without torchvision, which is not installed: {' -> '.join(chain)} "
            "(a name imported from a timm package runs that package's __init__)"
        )
    for name in _SHELLS:
        if name not in sys.modules:
            sys.modules[name] = _shell(name, root.joinpath(*name.split(".")[1:]))
    try:
        return importlib.import_module(module)
    except Exception as exc:  # e.g. a name a package's __init__ would have provided: the reason of the skip
        raise NotDriven(f"import {module} under package shells: {type(exc).__name__}: {exc}") from exc
