"""Definitions read before a name's domain was declared, read again with it: one name, one symbol.

``Let $z_m = q e^{i m\\theta}$ where $q \\in \\mathbb{C}$``: the definition is read first, with ``q`` real (the
default), and the declaration after it makes ``q`` complex. A later step then holds the real ``q`` (through
``z_m``) beside the complex one (``|q|^2``), two symbols of one name, and a counterexample gives them two values
(``q = 1, q = 1 + I``), which refutes nothing the text says. The definitions in force take the name's declared
domain instead, as the text means.

Design constraints: only the names whose domain the declaration changes are replaced, and never a definition's
own parameters (bound in it); the definitions' values are otherwise kept as they were read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy

from ..readers.scope import Scope, domain_key, domain_symbol

__all__ = ["redeclared"]


def _resymboled(body: Any, keys: set[str], scope: Scope, params: tuple[Any, ...]) -> Any:
    if not isinstance(body, sympy.Basic):
        return body
    bound = {str(p) for p in params}
    mapping = {
        s: domain_symbol(s.name, scope.domains)
        for s in body.free_symbols
        if isinstance(s, sympy.Symbol) and not isinstance(s, sympy.Dummy)
        and domain_key(s.name) in keys and s.name not in bound
    }  # fmt: skip
    return body.xreplace(mapping) if mapping else body


def redeclared(scope: Scope, keys: set[str]) -> Scope:
    """``scope`` with every definition's value holding the names of ``keys`` in their domain now (``scope.domains``).

    Example:
        >>> from ..readers.scope import Definition
        >>> q = sympy.Symbol("q", real=True)
        >>> s = Scope(symbols={"z": Definition("symbol", "z", 2 * q)}).with_domains({"q": "complex"})
        >>> redeclared(s, {"q"}).symbols["z"].body.free_symbols.pop().is_real is None
        True
    """
    tables = []
    for table in (scope.symbols, scope.patterns, scope.functions):
        tables.append({k: replace(d, body=_resymboled(d.body, keys, scope, d.params)) for k, d in table.items()})
    return replace(scope, symbols=tables[0], patterns=tables[1], functions=tables[2])
