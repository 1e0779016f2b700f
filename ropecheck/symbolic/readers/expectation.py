"""An expectation ``\\mathbb{E}_{q,k}[X]`` read as what every expectation is: a linear functional.

Whatever the distribution, ``E[aX + bY] = aE[X] + bE[Y]`` for numbers a, b that do not depend
on the random variables, and ``E[c] = c``. The random variables are the names in the subscript
(``\\mathbb{E}_{q,k,\\varepsilon}``: q, k, ε and their components q_0, q_{2i}; ``\\mathbb{E}_j``: every
name indexed by j, k_j); everything else is a constant. :func:`expectation` expands X (sums
over an index included, their limits constant) and writes the expectation of each distinct
random factor as an unknown, ``𝔼_{q,k}(q_0*k_1)``: a step whose sides agree with these unknowns
holds for every distribution (PROVED); one that needs more -- independence, a mean, a variance
the text states in words -- differs by expectations left over (:func:`expectations_in`), and is
not refuted by values of them, which no distribution may take.

Design constraints: pure SymPy; an expectation without a subscript (what it averages over is not
written), or of a vector or matrix, is not read.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import MatrixBase

__all__ = ["EXPECTATION_PREFIX", "expectation", "expectations_in", "expectations_left", "random_names"]

#: how the unknown for an expectation is named: ``𝔼_{q,k}(q_0*k_1)``
EXPECTATION_PREFIX = "\N{MATHEMATICAL DOUBLE-STRUCK CAPITAL E}_{"


def random_names(subscript: str) -> tuple[str, ...]:
    """The random variables a subscript names (``q ,k ,\\varepsilon`` -> q, k, varepsilon); () where one is not
    a plain name.

    Example:
        >>> random_names(r"q ,k ,\\varepsilon "), random_names("x + 1")
        (('q', 'k', 'varepsilon'), ())
    """
    names = tuple(p.strip().lstrip("\\") for p in subscript.strip("{} ").split(","))
    return names if names and all(re.fullmatch(r"[A-Za-z]+", n) for n in names) else ()


def _random(x: Any, names: tuple[str, ...]) -> bool:
    """Whether the symbol x is one of the random variables, or indexed by one (q, q_{2 i}, k_{j} for E_j)."""
    name = str(getattr(x, "name", x))
    base, _, sub = name.partition("_")
    return base in names or any(re.search(rf"(?<![A-Za-z]){re.escape(n)}(?![A-Za-z])", sub) for n in names)


def _depends(expr: Any, names: tuple[str, ...]) -> bool:
    symbols = expr.free_symbols | {b.label for b in expr.atoms(sympy.Indexed)}
    return any(_random(s, names) for s in symbols)


def expectation(value: Any, names: tuple[str, ...], label: str) -> Any:
    """``E[value]`` over the random variables ``names``, by linearity: constants out, each random factor an unknown.

    Example:
        >>> a, q, k = sympy.symbols("a q k", real=True)
        >>> expectation(a * q + 2 * k + a, ("q", "k"), "q,k")
        a*𝔼_{q,k}(q) + a + 2*𝔼_{q,k}(k)
    """
    if isinstance(value, MatrixBase) and value.shape == (1, 1):
        value = value[0, 0]  # u^T v written out: a number
    if isinstance(value, MatrixBase) or (isinstance(value, sympy.Basic) and value.has(sympy.MatrixExpr)):
        raise ValueError("an expectation of a vector or matrix (entries not written out) is not read")
    value = sympy.sympify(value)
    if not _depends(value, names):
        raise ValueError("an expectation of an expression that uses none of the names under it is not read")
    return _linear(value, names, lambda m: _unknown(m, label))


def _unknown(m: Any, label: str) -> Any:
    """The expectation of the random factor m as an unknown: a function of it (``𝔼_{q}(q_{2*i}**2)``), so that
    it follows m through a sum over an index."""
    return sympy.Function(f"{EXPECTATION_PREFIX}{label}}}", **({"real": True} if m.is_real else {}))(m)


def _linear(value: Any, names: tuple[str, ...], unknown: Any, expanded: bool = False) -> Any:
    if not _depends(value, names):
        return value  # E[c] = c
    if isinstance(value, sympy.Sum):
        if any(_depends(x, names) for lim in value.limits for x in lim[1:]) or any(
            _random(lim[0], names) for lim in value.limits
        ):
            return unknown(value)  # limits or index random: one unknown
        return sympy.Sum(_linear(value.function, names, unknown), *value.limits)  # a finite sum: term by term
    if not expanded:
        return _linear(sympy.expand(value, power_exp=False, power_base=False, log=False), names, unknown, True)
    if isinstance(value, sympy.Add):
        return sympy.Add(*(_linear(t, names, unknown) for t in value.args))
    constant: list[Any] = []
    random: list[Any] = []
    for factor in sympy.Mul.make_args(value):
        (random if _depends(factor, names) else constant).append(factor)
    if len(random) == 1 and isinstance(random[0], sympy.Sum) and constant:
        return sympy.Mul(*constant) * _linear(random[0], names, unknown)
    return sympy.Mul(*constant) * unknown(sympy.Mul(*random))


def expectations_in(value: Any) -> set[Any]:
    """The unknown expectations :func:`expectation` left in ``value`` (an expression or matrix)."""
    items = list(value) if isinstance(value, MatrixBase) else [value]
    found: set[Any] = set()
    for item in items:
        if isinstance(item, sympy.Basic):
            found |= {f for f in item.atoms(sympy.core.function.AppliedUndef) if _named(f.func.__name__)}
    return found


def _named(name: str) -> bool:
    return name.startswith(EXPECTATION_PREFIX) and name.endswith("}") and "[" not in name


def expectations_left(lhs: Any, rhs: Any, text: str) -> str:
    """The difference of two sides read with expectations as unknowns, where expectations are left in it; ""
    where none is (a step refuted then is false for every distribution). Where the sides read are not at hand
    (or are matrices), a step whose ``text`` writes an expectation has one left."""
    if not isinstance(lhs, sympy.Basic) or not isinstance(rhs, sympy.Basic):
        return "what the expectations it writes leave" if re.search(r"\\mathbb\s*\{\s*E\s*\}", text) else ""
    if not expectations_in(lhs) and not expectations_in(rhs):
        return ""
    try:
        difference = sympy.expand(lhs - rhs)
    except Exception:  # a difference SymPy cannot expand: expectations may be left in it
        difference = lhs - rhs
    return str(difference) if expectations_in(difference) or not isinstance(difference, sympy.Expr) else ""
