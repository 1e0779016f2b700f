"""Theorems 1-4: relative position (2-D and every even d), the forms agree, the layouts agree.

Each builder returns a decided :class:`~ropecheck.symbolic.Proof`. The general-d theorem is
*structural*: a regrouping lemma proved by induction on h = d/2 (the inner product over the
2h coordinates is the sum over the h pairs), one 2x2 block with a symbolic angle, then the
block-diagonal sum over i = 0 .. h - 1 with a symbolic upper limit, decided termwise -- so
it holds for every even d and takes well under a second. ``concrete_d_check(d)`` is the
full expansion for one concrete d: the matrices are built from their definition as sparse
entries, split into the diagonal blocks their nonzero entries leave closed, and each
block's share of the difference is expanded to exactly 0 (``expand_trig``, then polynomial
arithmetic over ZZ) instead of multiplying dense d x d symbolic matrices.

Design constraints: definitions come from :mod:`._rope`; every equality of the theorems
goes through :func:`~._decide.decide_step`, so each step records the rewrite that decided
it (the concrete-d check records its own blockwise method and, for a failing block, the
full procedure's counterexample).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Sum, Symbol, conjugate, exp, eye, im, re

from ._decide import _expand_trig, decide, decide_step, reduce_to_zero
from ._proof import Proof, Step, Verdict
from ._rope import (
    dot,
    even_first_permutation,
    positions,
    rope_complex,
    rope_elementwise,
    rope_matrix,
    rot,
    thetas,
    vec,
)

__all__ = [
    "block_symbols",
    "concrete_d_check",
    "forms_agree",
    "layouts_agree",
    "relative_position_2d",
    "relative_position_general",
    "rotation_2d",
]


def _real(*names: str) -> tuple[Symbol, ...]:
    return tuple(Symbol(n, real=True) for n in names)


def _finish(proof: Proof, t0: float) -> Proof:
    proof.seconds = time.perf_counter() - t0
    return proof


# --------------------------------------------------------------------------- theorem 1


def rotation_2d() -> Proof:
    """R(a)^T = R(-a), R(a)R(b) = R(a+b), R(0) = I, R^T R = I."""
    t0 = time.perf_counter()
    a, b = _real("a", "b")
    p = Proof(
        "rotation_2d",
        "relative_position",
        "The 2x2 rotation group",
        "R(a)^T = R(-a), R(a) R(b) = R(a+b), R(0) = I and R(a)^T R(a) = I for real a, b.",
    )
    p.steps += [
        decide_step("transpose", "Transposing a rotation reverses it.", rot(a).T, rot(-a)),
        decide_step("compose", "Rotations compose by adding angles.", rot(a) * rot(b), rot(a + b)),
        decide_step("zero", "The rotation by 0 is the identity.", rot(0), eye(2)),
        decide_step("orthogonal", "A rotation is orthogonal.", rot(a).T * rot(a), eye(2)),
    ]
    return _finish(p, t0)


def relative_position_2d() -> Proof:
    """Complex form f(x, m) = x e^{i m theta}: the score depends only on m - n."""
    t0 = time.perf_counter()
    q0, q1, k0, k1, theta = _real("q_0", "q_1", "k_0", "k_1", "theta")
    m, n = positions("m", "n")
    q, k = q0 + I * q1, k0 + I * k1
    fq, fk = q * exp(I * m * theta), k * exp(I * n * theta)
    qv, kv = Matrix([q0, q1]), Matrix([k0, k1])
    target = re(q * conjugate(k) * exp(I * (m - n) * theta))
    p = Proof(
        "relative_position_2d",
        "relative_position",
        "Relative position in 2-D",
        "With f(x, m) = x e^{i m theta} on x in C = R^2, <f(q,m), f(k,n)> = Re[q k* e^{i(m-n) theta}], "
        "the same as the rotation-matrix form (R(m theta) q)^T (R(n theta) k) = q^T R((n-m) theta) k.",
    )
    p.steps += [
        decide_step(
            "complex_form",
            "The real inner product of f(q,m) and f(k,n) is Re[f(q,m) conj(f(k,n))] = Re[q k* e^{i(m-n)theta}].",
            re(fq) * re(fk) + im(fq) * im(fk),
            target,
        ),
        decide_step(
            "matrix_is_complex",
            "Multiplying by e^{i m theta} is the rotation R(m theta) of (Re x, Im x).",
            Matrix([re(fq), im(fq)]),
            rot(m * theta) * qv,
        ),
        decide_step(
            "matrix_form",
            "The rotation-matrix score equals the complex form.",
            dot(rot(m * theta) * qv, rot(n * theta) * kv),
            target,
        ),
        decide_step(
            "relative",
            "The score is q^T R((n-m) theta) k: it depends on the positions only through n - m.",
            dot(rot(m * theta) * qv, rot(n * theta) * kv),
            (qv.T * rot((n - m) * theta) * kv)[0, 0],
        ),
    ]
    return _finish(p, t0)


# --------------------------------------------------------------------------- theorem 2


def block_symbols() -> dict[str, Any]:
    """The symbols of the structural proof: indexed q, k, theta; index i; h = d/2; m, n."""
    return {
        "q": IndexedBase("q", real=True),
        "k": IndexedBase("k", real=True),
        "theta": IndexedBase("theta", real=True),
        "i": Symbol("i", integer=True, nonnegative=True),
        "h": Symbol("h", integer=True, positive=True),
        "m": Symbol("m", integer=True),
        "n": Symbol("n", integer=True),
    }


def relative_position_general(*, relative: Any = None) -> Proof:
    """<R_m q, R_n k> = q^T R_{n-m} k for every even d = 2h, structurally (regrouping lemma, block, block sum).

    Args:
        relative: the relative position claimed on the right side (default n - m); the
            negative twin passes m - n.
    """
    t0 = time.perf_counter()
    s = block_symbols()
    q, k, th, i, h, m, n = s["q"], s["k"], s["theta"], s["i"], s["h"], s["m"], s["n"]
    rel = (n - m) if relative is None else relative
    theta, u0, u1, v0, v1 = _real("theta", "u_0", "u_1", "v_0", "v_1")
    u, v = Matrix([u0, u1]), Matrix([v0, v1])
    qi, ki = Matrix([q[2 * i], q[2 * i + 1]]), Matrix([k[2 * i], k[2 * i + 1]])
    p = Proof(
        "relative_position_general",
        "relative_position_general",
        "Relative position for every even d",
        "For every even d = 2h, frequencies theta_0..theta_{h-1} and integer positions m, n: "
        "<R_{Theta,m} q, R_{Theta,n} k> = q^T R_{Theta,n-m} k.",
    )
    # the regrouping lemma, by induction on h: sum over the 2h coordinates = sum over the h pairs
    j = Symbol("j", integer=True, nonnegative=True)
    x, y = IndexedBase("x", real=True), IndexedBase("y", real=True)

    def coordinates(hh: Any) -> Any:
        return Sum(x[j] * y[j], (j, 0, 2 * hh - 1))

    def pairwise(hh: Any) -> Any:
        return Sum(x[2 * i] * y[2 * i] + x[2 * i + 1] * y[2 * i + 1], (i, 0, hh - 1))

    p.notes.append(
        "Proof outline. (1) regroup_base and regroup_step prove, by induction on h, that for all sequences x, y the "
        "inner product over the d = 2h coordinates is the sum over the h pairs (x_{2i}, x_{2i+1}). "
        "(2) R_{Theta,m} is block-diagonal with blocks B_i(m) = R(m theta_i): by definition pair i of R_{Theta,m} q "
        "is B_i(m) q^{(i)}. So with x = R_{Theta,m} q, y = R_{Theta,n} k the left side is the block sum on the left of "
        "block_sum, and with x = q, y = R_{Theta,n-m} k the right side is the block sum on its right. (3) block_sum: "
        "the two block sums have equal summands (block_score, with symbolic theta_i), so they are equal for every h. "
        "The layout only renames dimensions (theorem layouts_agree)."
    )
    p.steps += [
        decide_step(
            "regroup_base",
            "Regrouping, base case h = 1: sum_{j<2} x_j y_j = sum_{i<1} (x_{2i} y_{2i} + x_{2i+1} y_{2i+1}).",
            coordinates(sympy.S.One),
            pairwise(sympy.S.One),
        ),
        decide_step(
            "regroup_step",
            "Regrouping, inductive step: going from h to h + 1 adds x_{2h} y_{2h} + x_{2h+1} y_{2h+1} to both sides, "
            "so the identity for h gives it for h + 1 (hence for every h >= 1, i.e. every even d).",
            coordinates(h + 1) - coordinates(h),
            pairwise(h + 1) - pairwise(h),
        ),
        decide_step(
            "block_matrix",
            "One block, symbolic angle: R(m theta)^T R(n theta) = R((n-m) theta).",
            rot(m * theta).T * rot(n * theta),
            rot(rel * theta),
        ),
        decide_step(
            "block_score",
            "One block: <R(m theta) u, R(n theta) v> = u^T R((n-m) theta) v.",
            dot(rot(m * theta) * u, rot(n * theta) * v),
            (u.T * rot(rel * theta) * v)[0, 0],
        ),
        decide_step(
            "block_sum",
            "The block-diagonal sum over i = 0..h-1 (h = d/2 symbolic): equal summands give equal sums, "
            "so <R_m q, R_n k> = sum_i q^{(i)T} R((n-m) theta_i) k^{(i)} = q^T R_{n-m} k.",
            Sum(dot(rot(m * th[i]) * qi, rot(n * th[i]) * ki), (i, 0, h - 1)),
            Sum((qi.T * rot(rel * th[i]) * ki)[0, 0], (i, 0, h - 1)),
        ),
    ]
    return _finish(p, t0)


def _components(d: int, *patterns: Any) -> list[list[int]]:
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


class _BlockReducer:
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
            from sympy.polys.domains import ZZ
            from sympy.polys.rings import ring

            self.rings[size] = ring(",".join(f"g{j}" for j in range(size)), ZZ)
        return self.rings[size]

    def is_zero(self, form: _Form, variables: Sequence[Any], freqs: Sequence[Any]) -> bool:
        """Whether the block's difference ``form`` (see :func:`_block_difference`) is exactly 0."""
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
                self.expansions[key] = _expand_trig(f(coef * self.generic))
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


#: A block's difference: sum of sign * (sum coef*var) * (sum coef*var) over its rows.
_Form = list[tuple[int, list[tuple[Any, Any]], list[tuple[Any, Any]]]]


def _block_difference(
    block: Sequence[int], left: dict[tuple[int, int], Any], right: dict[tuple[int, int], Any], rel: dict[tuple[int, int], Any],
    q: Matrix, k: Matrix,
) -> _Form:
    """The block's share of <L q, R k> - q^T Rel k: for each row r of the block,
    + (L q)_r (R k)_r and - q_r (Rel k)_r, each factor a sum over the block's nonzero entries."""
    form: _Form = []
    for r in block:
        lq = [(left[r, c], q[c]) for c in block if (r, c) in left]
        rk = [(right[r, c], k[c]) for c in block if (r, c) in right]
        relk = [(rel[r, c], k[c]) for c in block if (r, c) in rel]
        form += [(1, lq, rk), (-1, [(sympy.S.One, q[r])], relk)]
    return form


def _as_expr(form: _Form) -> tuple[Any, Any]:
    """(the rows' <L q, R k> part, the rows' q^T Rel k part) of a block as SymPy expressions."""

    def linear(row: Sequence[tuple[Any, Any]]) -> Any:
        return sympy.Add(*[c * v for c, v in row])

    pos = sympy.Add(*[linear(a) * linear(b) for sgn, a, b in form if sgn > 0])
    neg = sympy.Add(*[linear(a) * linear(b) for sgn, a, b in form if sgn < 0])
    return pos, neg


def concrete_d_check(d: int, *, sign: int = 1, layout: str = "interleaved", entries: Any = None) -> Proof:
    """The full expansion of <R_m q, R_n k> - q^T R_{n-m} k for one concrete d, block by block.

    The three matrices R_{Theta,m}, R_{Theta,n}, R_{Theta,n-m} are built from their definition
    (:func:`~._rope.rope_entries`, the nonzero entries of :func:`~._rope.rope_matrix`). The
    index sets closed under all their nonzero entries are found (union-find); the sum over
    rows of the difference splits exactly into one part per set, in that set's own q_j, k_j
    and theta_i. Each part is expanded to exactly 0: SymPy's ``expand_trig`` rewrites the
    relative rotation's cos/sin, and polynomial arithmetic over ZZ does the rest (a part
    outside that fragment goes through the general rewrites). A sum of zeros is zero; no
    d x d product is formed.

    Args:
        d: the even head dimension.
        sign: +1 checks R_{n-m} (the theorem); -1 checks R_{m-n} (the negative twin, which
            is refuted with a counterexample from its first failing block).
        layout: ``interleaved`` or ``half``.
        entries: override of :func:`~._rope.rope_entries` (a broken definition, in tests).
    """
    from ..errors import UsageError
    from ._rope import rope_entries

    if not isinstance(d, int) or isinstance(d, bool) or d < 2 or d % 2:
        raise UsageError(f"--d must be an even integer >= 2, got {d!r}")
    build = functools.partial(rope_entries, evaluate=False) if entries is None else entries
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    h = d // 2
    th = thetas(h)
    qv, kv = vec("q", d), vec("k", d)
    rel = (n - m) if sign == 1 else (m - n)
    left, right, relative = build(th, m, layout), build(th, n, layout), build(th, rel, layout)
    blocks = _components(d, left, right, relative)
    reducer = _BlockReducer(m, n, th)
    failed, general = [], 0
    for block in blocks:
        form = _block_difference(block, left, right, relative, qv, kv)
        entries_ = [mat[r, c] for mat in (left, right, relative) for r in block for c in block if (r, c) in mat]
        freqs = sorted({t for e in entries_ for t in e.free_symbols if t in reducer.thetas}, key=str)
        variables = [qv[j] for j in block] + [kv[j] for j in block]
        try:
            ok = reducer.is_zero(form, variables, freqs)
        except KeyError:
            general += 1
            pos, neg = _as_expr(form)
            ok = reduce_to_zero(pos - neg) is not None
        if not ok:
            failed.append(block)
    lhs = Symbol(rf"\langle R_{{\Theta,m}} q, R_{{\Theta,n}} k\rangle_{{d={d}}}")
    rhs = Symbol(rf"q^T R_{{\Theta,n-m}} k_{{d={d}}}")
    method = f"blockwise(expand_trig, ZZ[...]) x {len(blocks)}" + (f" ({general} by the general rewrites)" if general else "")
    verdict, cex = Verdict.PROVED, None
    if failed:  # decide the first failing block with the full procedure, for its counterexample
        b = failed[0]
        pos, neg = _as_expr(_block_difference(b, left, right, relative, qv, kv))
        verdict, how, cex = decide(pos, neg)
        method = f"block {b}: {how}"
        if verdict == Verdict.PROVED:  # pragma: no cover - the fast reduction and the rewrites disagree
            verdict = Verdict.UNDECIDED
    step = Step(
        f"expansion_d{d}",
        f"The d={d} difference splits into {len(blocks)} diagonal blocks of R_{{Theta,m}}, R_{{Theta,n}}, R_{{Theta,n-m}} "
        f"({layout} layout); each expands to exactly 0 (theta_0..theta_{h - 1}, q, k, m, n symbolic).",
        lhs,
        rhs,
        verdict,
        method,
        cex,
        Verdict.PROVED,
        time.perf_counter() - t0,
    )
    p = Proof(
        f"relative_position_d{d}",
        "relative_position_general",
        f"Relative position, full expansion for d = {d}",
        f"<R_m q, R_n k> - q^T R_{{n-m}} k expands to 0 for d = {d} with symbolic q, k, theta_i, m, n.",
        [step],
    )
    if failed:
        p.notes.append(f"blocks not reduced to 0: {failed[:10]}")
        if cex is not None:
            p.notes.append("The counterexample sets the failing block's entries; every other q_j, k_j may be taken as 0.")
    return _finish(p, t0)


# --------------------------------------------------------------------------- theorem 3


def forms_agree(*, d: int = 8) -> Proof:
    """Sparse matrix form = elementwise x*cos + rotate(x)*sin = complex form, both layouts."""
    t0 = time.perf_counter()
    s = block_symbols()
    xb, th, i, m = IndexedBase("x", real=True), s["theta"], s["i"], s["m"]
    xi = Matrix([xb[2 * i], xb[2 * i + 1]])
    c, sn = sympy.cos(m * th[i]), sympy.sin(m * th[i])
    z = (xb[2 * i] + I * xb[2 * i + 1]) * exp(I * m * th[i])
    p = Proof(
        "forms_agree",
        "forms",
        "The three forms of RoPE agree",
        "The sparse block-diagonal matrix R_{Theta,m} x, the elementwise x*cos + rotate(x)*sin and the "
        "complex form (x_a + i x_b) e^{i m theta_i} give the same vector, for every pair i and in both layouts.",
    )
    p.steps += [
        decide_step(
            "pair_matrix_elementwise",
            "Pair i: B_i(m) x^{(i)} equals (x_a cos - x_b sin, x_b cos + x_a sin), i.e. x*cos + rotate(x)*sin "
            "with rotate(x)^{(i)} = (-x_b, x_a).",
            rot(m * th[i]) * xi,
            Matrix([xb[2 * i] * c + (-xb[2 * i + 1]) * sn, xb[2 * i + 1] * c + xb[2 * i] * sn]),
        ),
        decide_step(
            "pair_complex_matrix",
            "Pair i: (Re, Im) of (x_a + i x_b) e^{i m theta_i} is B_i(m) x^{(i)}.",
            Matrix([re(z), im(z)]),
            rot(m * th[i]) * xi,
        ),
    ]
    x = vec("x", d)
    freqs = thetas(d // 2)
    for layout in ("interleaved", "half"):
        mat = rope_matrix(freqs, m, layout) * x
        p.steps.append(
            decide_step(
                f"{layout}_d{d}_matrix_elementwise",
                f"{layout} layout, d={d}: the sparse matrix form equals the elementwise form.",
                mat,
                rope_elementwise(x, freqs, m, layout),
            )
        )
        p.steps.append(
            decide_step(
                f"{layout}_d{d}_complex_matrix",
                f"{layout} layout, d={d}: the complex form equals the sparse matrix form.",
                rope_complex(x, freqs, m, layout),
                mat,
            )
        )
    return _finish(p, t0)


# --------------------------------------------------------------------------- theorem 4


def layouts_agree(*, dims: tuple[int, ...] = (2, 4, 8, 16), permutation: Matrix | None = None) -> Proof:
    """R_half(m) = P R_interleaved(m) P^T for the even-first P, symbolic positions.

    Args:
        dims: the head dimensions checked entrywise.
        permutation: override P (the negative twin passes a wrong one); its size fixes one d.
    """
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    p = Proof(
        "layouts_agree",
        "layouts",
        "Half-split and interleaved layouts agree under the even-first permutation",
        "For the even-first permutation P (x_half = P x_interleaved): R_half(m) = P R_interleaved(m) P^T for every "
        "integer m and symbolic theta_i; hence (R_half(m) P q)^T (R_half(n) P k) = (R_int(m) q)^T (R_int(n) k).",
    )
    p.notes.append(
        "P moves interleaved pair (2i, 2i+1) to half pair (i, i+d/2) and both turn at theta_i, so the identity "
        "holds entry by entry for every even d; it is decided here entrywise for each listed d."
    )
    for d in dims if permutation is None else (permutation.rows,):
        perm = even_first_permutation(d) if permutation is None else permutation
        freqs = thetas(d // 2)
        p.steps.append(
            decide_step(
                f"conjugate_d{d}",
                f"d={d}: R_half(m) = P R_interleaved(m) P^T.",
                rope_matrix(freqs, m, "half"),
                perm * rope_matrix(freqs, m, "interleaved") * perm.T,
            )
        )
    d = 8 if permutation is None else permutation.rows
    perm = even_first_permutation(d) if permutation is None else permutation
    freqs = thetas(d // 2)
    q, k = vec("q", d), vec("k", d)
    p.steps += [
        decide_step(f"orthogonal_d{d}", f"d={d}: P^T P = I.", perm.T * perm, eye(d)),
        decide_step(
            f"scores_d{d}",
            f"d={d}: permuting q and k alike gives identical attention scores in the two layouts.",
            dot(rope_matrix(freqs, m, "half") * (perm * q), rope_matrix(freqs, n, "half") * (perm * k)),
            dot(rope_matrix(freqs, m, "interleaved") * q, rope_matrix(freqs, n, "interleaved") * k),
        ),
    ]
    return _finish(p, t0)
