"""Load a timm module as written, from the installed files, without running timm's package ``__init__``.

Why package shells: ``import timm`` runs ``timm/__init__.py``, which imports ``timm.layers``, whose
``__init__`` imports ``create_norm.py`` and ``norm_act.py``, which import ``torchvision``. The survey's
environment has no torchvision that works with its torch build (the wheel it could get is built against
CUDA libraries the CPU torch lacks, and installed it breaks ``import torchvision`` and what imports it).
timm's rotary code does not need it: ``timm/layers/pos_embed_sincos.py`` imports only torch and
``._fx`` (whose torchvision import is guarded by ``try``/``except ImportError``), ``.grid`` and
``.trace_utils``. So the survey puts an empty package module (a shell) for every timm package in
``sys.modules`` -- a :class:`~importlib.machinery.ModuleSpec` with the installed folder as its search
location, whose ``__init__`` is not executed -- and imports the module under its own name with
:func:`importlib.import_module`: Python's own path finder reads the installed file and its relative
imports resolve in the installed folder.

A name imported from a package by name (``from timm.data import IMAGENET_DEFAULT_MEAN``) is what the package's
``__init__`` would bind to it, read from its syntax tree (:func:`package_binding`: ``from .constants import *``,
its last binding, followed through subpackages): the shell's ``__getattr__`` (PEP 562) imports that submodule and
gives its attribute, the very object the ``__init__`` would have bound. Nothing is stubbed or replaced: every line
that runs is timm's, and torchvision is never imported, faked or shadowed. What the ``__init__`` binds by running
code (an assignment, a binding under ``if``/``try``, a star import whose names cannot be read) a shell cannot give.

Which modules can load so is decided from the sources (:func:`torchvision_chain`), following those bindings: a
module whose imports reach torchvision, or a name a shell cannot give, cannot; its rows say so with that chain of
imports. With torchvision importable, or the real timm already imported, timm is imported whole, as usual.

Design constraints: the choice between shells and the real package is made once per process and they
never mix (every timm package is a shell, so no timm ``__init__`` runs even for an import inside a function);
shells are installed in the process that drives timm (the survey loads the rotary module before its workers
fork); never a real ``import timm`` without torchvision.
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
from typing import Any

from .drive import NotDriven
from .timm_discover import timm_root

__all__ = ["load_timm_module", "package_binding", "torchvision_chain"]


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
def _imports(module: str, path: Path) -> tuple[tuple[str, str | None], ...]:
    """The imports a module's top level runs unconditionally (not in functions or a guarded ``try``): ``(module,
    None)`` for ``import m``, ``(module, name)`` for each name of ``from m import name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[str, str | None]] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(package, node)
            out += [(base, a.name) for a in node.names]
    return tuple(out)


def _absolute(package: str, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` names, its relative dots resolved against ``package``."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".")
    return ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))


def _is_package(root: Path, module: str) -> bool:
    return root.joinpath(*module.split(".")[1:], "__init__.py").is_file()


@functools.cache
def _star_names(root: Path, module: str) -> tuple[frozenset[str], frozenset[str] | None]:
    """What ``from module import *`` binds: the names it surely binds, and those it may bind (None: any name).

    A literal ``__all__`` that nothing else touches is the whole answer; else the public names of the top level's
    plain statements are sure, those bound under a compound statement (``if``, ``try``, ...) or by an expression
    (a comprehension, ``:=``) may be, and a star import of a module outside timm may bind anything.
    """
    path = _file(root, module)
    if path is None:
        return frozenset(), None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared = [n for n in tree.body if isinstance(n, ast.Assign) and _assigns(n, "__all__")]
    if declared:
        others = sum(isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(tree)) > 1
        try:
            names = ast.literal_eval(declared[0].value)
        except ValueError:
            return frozenset(), None
        return (frozenset(), None) if others or len(declared) > 1 else (frozenset(names), frozenset())
    sure: set[str] = set()
    maybe: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            base = _absolute(package, node)
            if base.split(".")[0] != "timm":
                return frozenset(), None
            more, more_maybe = _star_names(root, base)
            if more_maybe is None:
                return frozenset(), None
            sure |= more
            maybe |= more_maybe
        else:
            definite = _definite_names(node)
            sure |= definite
            maybe |= _bound_names(node) - definite
    public = lambda names: frozenset(n for n in names if not n.startswith("_"))
    return public(sure), public(maybe - sure)


def _assigns(node: ast.Assign, name: str) -> bool:
    return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)


def _definite_names(node: ast.stmt) -> set[str]:
    """The names a plain top-level statement surely binds: a definition's, an import's, an assignment's targets."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        return _bound_names(node)
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and (node.value is not None):
        targets = [node.target]
    out: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            out.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets += target.elts
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
    return out


def _bound_names(node: ast.stmt) -> set[str]:
    """The names a statement binds in its module's namespace (function and class bodies left out)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"}
    out = set()
    for child in ast.walk(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child is not node:
            out.add(child.name)
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
    return out


class _Unresolved(Exception):
    """A name a package's ``__init__`` binds in a way its syntax tree does not settle; the message says how."""


@functools.cache
def package_binding(root: Path, package: str, name: str) -> tuple[str, str | None] | None:
    """What ``from package import name`` gives, read from the package's ``__init__`` as Python would run it:
    ``(module, attr)`` -- the attribute of a timm module (not a package) that the ``__init__`` binds to ``name``, its
    last binding, followed through subpackages --, ``(submodule, None)`` when the name is the package's submodule,
    or None when neither binds it (the real package has no such name either).

    :class:`_Unresolved` when the ``__init__`` binds it otherwise (an assignment, a definition, a binding inside a
    compound statement, a star import whose names are uncertain): a shell cannot give what it would.
    """
    path = root.joinpath(*package.split(".")[1:], "__init__.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: tuple[str, str | None] | None = None
    unsure = ""  # why the binding so far is not known (a later plain import settles it)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = _absolute(package, node)
            for alias in node.names:
                if alias.name == "*":
                    sure, maybe = _star_names(root, base) if base.split(".")[0] == "timm" else (frozenset(), None)
                    if maybe is None or name in maybe:
                        unsure = f"{package}/__init__.py line {node.lineno} may bind {name} (from {base} import *)"
                    elif name in sure:
                        found, unsure = (base, name), ""
                elif (alias.asname or alias.name) == name:
                    found, unsure = (base, alias.name), ""
        elif name in _bound_names(node):
            unsure = f"{package}/__init__.py line {node.lineno} binds {name} by running code"
    if unsure:
        raise _Unresolved(unsure)
    if found is None:
        return (f"{package}.{name}", None) if _file(root, f"{package}.{name}") else None
    module, attr = found
    if module.split(".")[0] != "timm":
        raise _Unresolved(f"{package}/__init__.py binds {name} from {module}")
    if _is_package(root, module):
        return package_binding(root, module, attr)
    if _file(root, f"{module}.{attr}") and not _file(root, module):
        return (f"{module}.{attr}", None)
    return (module, attr)


def _targets(root: Path, target: str, name: str | None) -> list[str]:
    """The timm modules an import runs: a module, or for a name imported from a package, the module its
    ``__init__`` takes it from (every package is a shell: its ``__init__`` never runs); :class:`_Unresolved` when
    that cannot be read."""
    if not _is_package(root, target):
        return [target]
    if name == "*":
        raise _Unresolved(f"from {target} import *")
    binding = None if name is None else package_binding(root, target, name)
    return [] if binding is None else [binding[0]]


@functools.cache
def torchvision_chain(module: str, *, root: Path | None = None) -> tuple[str, ...] | None:
    """A chain of imports from ``module`` to torchvision, or None when its imports never reach it.

    Every timm package counts as loaded without its ``__init__`` (a shell); a name imported from a package by name
    (``from timm.layers import RmsNorm``) leads to the module the package's ``__init__`` takes it from
    (``timm.layers.norm``), read statically (:func:`package_binding`); where that cannot be read, the chain ends
    at the package's ``__init__``, which a shell does not run. A guarded import (``try``/``except ImportError``)
    is not followed, as Python's fallback covers it, but a name it imports from a package must be read so too:
    a shell must not fail where the ``__init__`` would not.
    """
    root = root or timm_root()
    came: dict[str, str | None] = {module: None}
    stack = [module]
    while stack:  # depth first, each module's imports in source order: any chain is a reason, the first is quick
        name = stack.pop()
        path = _file(root, name)
        if path is None:
            continue
        found = []
        for target, imported in _imports(name, path):
            if target.split(".")[0] == "torchvision":
                return _chain(came, target, name)
            if target.split(".")[0] != "timm":
                continue
            try:
                needed_modules = _targets(root, target, imported)
            except _Unresolved as exc:  # the package's __init__ would have to run
                return _chain(came, f"{target} ({exc}: its __init__ runs)", name)
            for needed in needed_modules:
                if needed not in came:
                    came[needed] = name
                    found.append(needed)
        unread = _unread_guarded(root, name, path)
        if unread:
            return _chain(came, unread, name)
        stack += found[::-1]
    return None


def _unread_guarded(root: Path, module: str, path: Path) -> str:
    """The first name a guarded import of ``module`` takes from a timm package that cannot be read statically, as a
    chain's last link, or ``""``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in tree.body:
        if not (isinstance(node, ast.Try) and _optional(node)):
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.ImportFrom) and _absolute(package, child).split(".")[0] == "timm":
                target = _absolute(package, child)
                try:
                    for alias in child.names:
                        _targets(root, target, alias.name)
                except _Unresolved as exc:
                    return f"{target} (a guarded import: {exc}: its __init__ runs)"
    return ""


def _packages(root: Path) -> list[str]:
    """Every timm package under ``root``, parents first."""
    folders = [p.parent.relative_to(root.parent).parts for p in root.rglob("__init__.py")]
    return [".".join(parts) for parts in sorted(folders, key=lambda parts: (len(parts), parts))]


def _chain(came: dict[str, str | None], last: str, name: str) -> tuple[str, ...]:
    chain = [last, name]
    while came[chain[-1]] is not None:
        chain.append(came[chain[-1]])  # type: ignore[arg-type]
    return tuple(chain[::-1])


def _shell(name: str, folder: Path, root: Path) -> types.ModuleType:
    """A package module for ``name`` whose submodules are found in ``folder``; its ``__init__`` is not run. A name
    imported from it is what its ``__init__`` would bind (:func:`package_binding`): the attribute of the submodule
    that defines it, that submodule imported on first use."""
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [str(folder)]
    shell = importlib.util.module_from_spec(spec)  # no origin: no file, nothing executed

    def __getattr__(attr: str) -> Any:  # PEP 562: asked only for names not yet set
        try:
            binding = package_binding(root, name, attr)
        except _Unresolved as exc:
            raise AttributeError(f"{name}.{attr}: {exc}, which a package shell does not run") from None
        if binding is None or binding[1] is None:  # a submodule (Python imports it) or no such name
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        value = getattr(importlib.import_module(binding[0]), binding[1])
        setattr(shell, attr, value)
        return value

    shell.__getattr__ = __getattr__  # type: ignore[method-assign]
    return shell


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
        raise NotDriven(f"{module} cannot be loaded without torchvision, which is not installed: {' -> '.join(chain)}")
    for name in _packages(root):  # every one: no timm __init__ ever runs in this process
        if name not in sys.modules:
            sys.modules[name] = _shell(name, root.joinpath(*name.split(".")[1:]), root)
    try:
        return importlib.import_module(module)
    except Exception as exc:  # e.g. a name a package's __init__ binds by running code: the reason of the skip
        raise NotDriven(f"import {module} under package shells: {type(exc).__name__}: {exc}") from exc
