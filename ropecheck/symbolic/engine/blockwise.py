"""The blockwise decision for one concrete head dimension: split, then expand each block over ZZ.

A difference of two quadratic forms in q and k built from sparse block-diagonal matrices
splits exactly into one part per diagonal block the matrices' nonzero entries leave closed
(:func:`components`). :class:`BlockReducer` expands one block's part to a polynomial over ZZ
in the block's q_j, k_j and cos/sin of its angles and says whether it is exactly 0, so the
d x d product is never formed.

Design constraints: exact arithmetic only; an expression outside the fragment raises
``KeyError`` and the caller falls back to the general rewrites of :mod:`.decide`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from sympy import Matrix, Symbol
from sympy.polys.domains import ZZ
from sympy.polys.rings import ring

from .decide import expand_trig_rewrite

__all__ = ["BlockReducer", "Form", "block_difference", "components", "form_as_expr"]

#: A block's difference: sum of sign * (sum coef*var) * (sum coef*var) over its rows.
Form = list[tuple[int, list[tuple[Any, Any]], list[tuple[Any, Any]]]]


def components(d: int, *patterns: Any) -> list[list[int]]:
    """Index sets closed under the nonzero entries of every matrix: the diagonal blocks they share."""
    parent = list(range(d))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for pattern in patterns:
        for r, c in pattern:
            parent[find(r)] = find(c)
    groups: dict[int, list[int]] = {}
    for j in range(d):
        groups.setdefault(find(j), []).append(j)
    return sorted(groups.values())


class BlockReducer:
    """Expands one diagonal block's difference to a polynomial over ZZ and says whether it is 0.

    The atoms are the block's q_j, k_j and, for each frequency theta in the block, cos/sin of
    m theta and n theta. Any other angle (the relative rotation's c theta) is rewritten by
    SymPy's ``expand_trig`` (computed once per angle coefficient c with a generic theta) into
    those atoms; the rest is polynomial arithmetic. An expression outside this fragment
    raises ``KeyError`` and the caller falls back to the general rewrites.
    """

    def __init__(self, m: Any, n: Any, thetas_: Sequence[Any]) -> None:
        self.m, self.n = m, n
        self.thetas = set(thetas_)
        self.generic = Symbol("theta_generic", real=True)
        self.expansions: dict[tuple[Any, Any], Any] = {}
        self.rings: dict[int, tuple[Any, ...]] = {}

    def _ring(self, size: int) -> tuple[Any, ...]:
        if size not in self.rings:
            self.rings[size] = ring(",".join(f"g{j}" for j in range(size)), ZZ)
        return self.rings[size]

    def is_zero(self, form: Form, variables: Sequence[Any], freqs: Sequence[Any]) -> bool:
        """Whether the block's difference ``form`` (see :func:`block_difference`) is exactly 0."""
        poly_ring, *gens = self._ring(len(variables) + 4 * len(freqs))
        atoms = dict(zip(variables, gens))
        trig = {t: gens[len(variables) + 4 * j : len(variables) + 4 * j + 4] for j, t in enumerate(freqs)}
        memo: dict[Any, Any] = {}

        def angle(f: Any, arg: Any, theta_map: dict[Any, Any]) -> Any:
            found = [t for t in (arg.args if arg.is_Mul else arg.free_symbols) if t in theta_map]
            if len(found) != 1:
                raise KeyError(arg)
            theta = found[0]
            if arg.is_Mul and arg.args.count(theta) == 1:
                coef = sympy.Mul(*[a for a in arg.args if a != theta])
            else:
                coef, rest = arg.as_independent(theta, as_Add=False)
                if rest != theta:
                    raise KeyError(arg)
            if coef.has(*theta_map):
                raise KeyError(arg)
            cm, sm, cn, sn = theta_map[theta]
            if coef == self.m:
                return cm if f is sympy.cos else sm
            if coef == self.n:
                return cn if f is sympy.cos else sn
            key = (f, coef)
            if key not in self.expansions:
                self.expansions[key] = expand_trig_rewrite(f(coef * self.generic))
            expanded = self.expansions[key]
            if expanded == f(coef * self.generic):  # nothing to expand: an angle outside the fragment
                raise KeyError(arg)
            return to_ring(expanded, {self.generic: theta_map[theta]})

        def to_ring(e: Any, theta_map: dict[Any, Any]) -> Any:
            if e in atoms:
                return atoms[e]
            if e.is_Integer:
                return poly_ring(int(e))
            if e.is_Add or e.is_Mul:
                parts = [to_ring(x, theta_map) for x in e.args]
                out = parts[0]
                for x in parts[1:]:
                    out = out + x if e.is_Add else out * x
                return out
            if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
                return to_ring(e.base, theta_map) ** int(e.exp)
            if isinstance(e, (sympy.cos, sympy.sin)):
                if theta_map is trig and e in memo:
                    return memo[e]
                out = angle(e.func, e.args[0], theta_map)
                if theta_map is trig:
                    memo[e] = out
                return out
            raise KeyError(e)

        def linear(row: Sequence[tuple[Any, Any]]) -> Any:
            out = poly_ring.zero
            for coef, var in row:
                out += to_ring(coef, trig) * atoms[var]
            return out

        total = poly_ring.zero
        for sign, row_a, row_b in form:
            total += sign * linear(row_a) * linear(row_b)
        return bool(total == 0)


def block_difference(
    block: Sequence[int],
    left: dict[tuple[int, int], Any],
    right: dict[tuple[int, int], Any],
    rel: dict[tuple[int, int], Any],
    q: Matrix,
    k: Matrix,
) -> Form:
    """The block's share of <L q, R k> - q^T Rel k: for each row r of the block,
    + (L q)_r (R k)_r and - q_r (Rel k)_r, each factor a sum over the block's nonzero entries."""
    form: Form = []
    for r in block:
        lq = [(left[r, c], q[c]) for c in block if (r, c) in left]
        rk = [(right[r, c], k[c]) for c in block if (r, c) in right]
        relk = [(rel[r, c], k[c]) for c in block if (r, c) in rel]
        form += [(1, lq, rk), (-1, [(sympy.S.One, q[r])], relk)]
    return form


def form_as_expr(form: Form) -> tuple[Any, Any]:
    """(the rows' <L q, R k> part, the rows' q^T Rel k part) of a block as SymPy expressions."""

    def linear(row: Sequence[tuple[Any, Any]]) -> Any:
        return sympy.Add(*[c * v for c, v in row])

    pos = sympy.Add(*[linear(a) * linear(b) for sgn, a, b in form if sgn > 0])
    neg = sympy.Add(*[linear(a) * linear(b) for sgn, a, b in form if sgn < 0])
    return pos, neg
