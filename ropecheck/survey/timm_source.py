"""A timm module's rotary definitions, compiled from its installed source, where the module cannot load whole.

Why: a model file imports what its models need, and some of that needs torchvision (Gemma 4's vision encoder,
``timm/models/gemma4_vit.py``, imports ``._builder``, whose ``._prune`` imports ``timm.layers.norm_act``, which
imports ``torchvision.ops``), while its rotary definitions (``Gemma4RotaryEmbedding2D``,
``apply_multidimensional_rope``, ``apply_rotary_pos_emb``, ``rotate_half``) read only torch and each other. What a
definition does depends on its code and on the globals it reads when it runs; so the statements that define the
rotary names, and those that bind every global they read (to the module-level names, transitively), are compiled
from the installed file as written -- same file, same line numbers -- and run in a namespace of their own, in
source order. Nothing is stubbed and no line is changed: the statements not run are the module's models, its
registry entries and the imports they need.

It is refused (:class:`~.drive.NotDriven`, with the statement) where the module's other statements could change
what the compiled ones do, as read from the syntax tree:

* a name read is bound more than once at the top level, or inside a compound statement (``if``, ``try``, ...);
* a statement not run sets an attribute or an item on a compiled name or on a module it reads (``torch.x = ...``,
  ``Rotary.forward = ...``) or declares one ``global``; or, when the module is imported, makes a bare call (a call
  for its side effect), calls ``setattr``/``delattr``/``exec``/``eval``/``globals``, or calls a function of a
  module the compiled code reads other than as a decorator (``torch.set_default_dtype(...)``);
* a global read comes from timm (its own loading would be :mod:`.timm_load`'s) or from torchvision.

What is then assumed, and said on every row driven so: the calls the module's other statements make at import to
build what they bind -- its decorators (``register_model``, ``torch.jit.ignore``) and values
(``generate_default_cfgs({...})``) -- change nothing the compiled code reads.

Design constraints: reads the file once per process (cached: the survey compiles before its workers fork, and
tests replace a compiled function in the namespace, which is the functions' globals, to plant a bug).
"""

from __future__ import annotations

import ast
import builtins
import functools
import types
from pathlib import Path

from .drive import NotDriven
from .timm_discover import rotary_definitions, timm_root

__all__ = ["compile_definitions", "compile_rotary_definitions", "definition_source"]

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_UNSAFE_CALLS = frozenset({"setattr", "delattr", "exec", "eval", "globals", "vars", "__import__"})


def _path(module: str) -> Path:
    return timm_root().joinpath(*module.split(".")[1:]).with_suffix(".py")


def _binders(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """Each name bound at the module's top level, with the top-level statements that bind it."""
    out: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        for name in _binds(node):
            out.setdefault(name, []).append(node)
    return out


def _binds(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds (function bodies left out; class bodies bind their own)."""
    if isinstance(node, _DEFINITIONS):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in node.names}
    out: set[str] = set()
    for child in _run_at_import(node):
        if isinstance(child, _DEFINITIONS) and child is not node:
            out.add(child.name)
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            out |= {a.asname or a.name.split(".")[0] for a in child.names}
    return out


def _run_at_import(node: ast.AST) -> list[ast.AST]:
    """``node`` and what runs of it when the module is imported: not function bodies (decorators, defaults and
    annotations run; a class body runs, its methods' bodies do not)."""
    out = [node]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        heads: list[ast.AST] = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]  # type: ignore[list-item]
        args = node.args
        every = (*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a))
        heads += [a.annotation for a in every if a.annotation is not None]
        heads += [node.returns] if node.returns is not None else []
        for head in heads:
            out += _run_at_import(head)
        return out
    for child in ast.iter_child_nodes(node):
        out += _run_at_import(child)
    return out


def _reads(node: ast.stmt) -> set[str]:
    """Every name a statement reads, anywhere in it (bodies included: an over-approximation, never short)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _needed(tree: ast.Module, names: list[str]) -> list[ast.stmt]:
    """The top-level statements that bind ``names`` and every module-level name they read, transitively, in source
    order; NotDriven where one is not bound once, by a plain top-level statement."""
    binders = _binders(tree)
    chosen: dict[int, ast.stmt] = {}
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        stmts = binders.get(name, [])
        if not stmts:
            if not hasattr(builtins, name) and name in names:
                raise NotDriven(f"{name} is not defined at the module's top level")
            continue  # a builtin, or a name no statement binds (a NameError when read, as in the module)
        if len(stmts) > 1 or not isinstance(stmts[0], (*_DEFINITIONS, ast.Import, ast.ImportFrom, ast.Assign)):
            lines = ", ".join(str(s.lineno) for s in stmts)
            raise NotDriven(f"{name} is bound at line(s) {lines} in a way its definitions cannot be compiled alone")
        stmt = stmts[0]
        chosen[id(stmt)] = stmt
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            _check_import(stmt)
        else:
            todo += sorted(_reads(stmt))
    return sorted(chosen.values(), key=lambda n: (n.lineno, n.col_offset))


def _check_import(stmt: ast.Import | ast.ImportFrom) -> None:
    """An import a compiled definition reads must come from outside timm and torchvision, absolutely."""
    modules = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [stmt.module or "."]
    for module in modules:
        if getattr(stmt, "level", 0) or module.split(".")[0] in ("timm", "torchvision"):
            raise NotDriven(f"line {stmt.lineno} imports {module} for a rotary definition: it would need its loader")


def _check_rest(tree: ast.Module, chosen: list[ast.stmt]) -> None:
    """NotDriven where a statement not compiled could change a compiled one: it sets an attribute or item of a name
    they read or define, declares one ``global`` (a function that rebinds it), or at import makes a call whose only
    effect is a side effect (a bare call statement), calls setattr/exec/..., or calls a function of a module they
    read other than as a decorator (``torch.set_default_dtype(...)``)."""
    ids = {id(s) for s in chosen}
    touched = set().union(*(_binds(s) for s in chosen)) | {n for s in chosen for n in _reads(s)}
    modules = set().union(*(_binds(s) for s in chosen if isinstance(s, (ast.Import, ast.ImportFrom))))
    for stmt in tree.body:
        if id(stmt) in ids or _is_docstring(stmt):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Global) and touched & set(node.names):
                raise NotDriven(f"line {node.lineno} declares global {', '.join(sorted(touched & set(node.names)))}")
        run = _run_at_import(stmt)
        decorators = {id(d) for n in run if isinstance(n, _DEFINITIONS) for d in n.decorator_list}
        for node in run:
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                if _root(node) in touched:
                    raise NotDriven(f"line {node.lineno} sets {ast.unparse(node)}, which a rotary definition reads")
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                raise NotDriven(
                    f"line {node.lineno} calls {ast.unparse(node.value.func)} for its side effect at import"
                )
            elif (
                isinstance(node, ast.Call)
                and id(node) not in decorators
                and (
                    getattr(node.func, "id", None) in _UNSAFE_CALLS
                    or (isinstance(node.func, ast.Attribute) and _root(node.func) in modules)
                )
            ):
                raise NotDriven(f"line {node.lineno} calls {ast.unparse(node.func)} at import")


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


@functools.cache
def compile_rotary_definitions(module: str) -> types.ModuleType:
    """The rotary definitions of ``module`` (``timm.models.gemma4_vit``) and what they read, compiled from its
    installed file (:func:`compile_definitions`), once per process."""
    path = _path(module)
    return compile_definitions(path.read_text(encoding="utf-8"), module, path)


def compile_definitions(source: str, module: str, path: Path) -> types.ModuleType:
    """The rotary definitions of ``source`` (``module``'s, read from ``path``) and what they read, compiled in a
    namespace of their own: a module object named after it, not in ``sys.modules``, whose ``__compiled__`` names
    the statements run; NotDriven with the reason where the rest of the module could change them."""
    tree = ast.parse(source, filename=str(path))
    names = [name for name, _ in rotary_definitions(source)]
    if not names:
        raise NotDriven(f"{module} defines no rotary embedding")
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    chosen = sorted(
        {id(n): n for n in (*future, *_needed(tree, names))}.values(), key=lambda n: (n.lineno, n.col_offset)
    )
    _check_rest(tree, chosen)
    namespace = types.ModuleType(module, f"{module}'s rotary definitions, compiled from {path}")
    namespace.__file__ = str(path)
    # the module's own future imports, and none of this one's (compile would otherwise inherit them)
    code = compile(ast.Module(body=chosen, type_ignores=[]), str(path), "exec", dont_inherit=True)
    exec(code, namespace.__dict__)  # timm's own statements, as written; nothing else runs in this namespace
    namespace.__compiled__ = tuple(_label(s) for s in chosen)  # type: ignore[attr-defined]
    return namespace


def _label(stmt: ast.stmt) -> str:
    """``line N: def rotate_half`` / ``line 19: import torch``: one statement compiled, for a row's page."""
    if isinstance(stmt, _DEFINITIONS):
        kind = "class" if isinstance(stmt, ast.ClassDef) else "def"
        return f"line {stmt.lineno}: {kind} {stmt.name}"
    return f"line {stmt.lineno}: {ast.unparse(stmt)}"


def definition_source(module: str, name: str) -> str | None:
    """The source of the top-level definition ``name`` of ``module``'s installed file, or None."""
    path = _path(module)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, _DEFINITIONS) and node.name == name:
            return ast.unparse(node)
    return None
