"""Theorems 1-4: relative position (2-D and every even d), the forms agree, the layouts agree.

Each builder returns a decided :class:`~ropecheck.symbolic.Proof`. The general-d theorem is
*structural*: one 2x2 block with a symbolic angle, then the block-diagonal sum over
i = 0 .. d/2 - 1 with a symbolic upper limit, decided termwise -- so it holds for every even
d and takes well under a second. ``concrete_d_check(d)`` is the full expansion for one
concrete d, done block by block (d/2 independent 2x2 expansions) instead of multiplying
dense d x d symbolic matrices.

Design constraints: definitions come from :mod:`._rope`; every equality goes through
:func:`~._decide.decide_step`, so each step records the rewrite that decided it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import I, IndexedBase, Matrix, Sum, Symbol, conjugate, exp, eye, im, re

from ._decide import decide, decide_step, reduce_to_zero
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
    """<R_m q, R_n k> = q^T R_{n-m} k for every even d = 2h, structurally.

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
    p.notes.append(
        "R_{Theta,m} is block-diagonal with blocks B_i(m) = R(m theta_i) on the pair q^{(i)} = (q_{2i}, q_{2i+1}); "
        "so (R_{Theta,m} q)^{(i)} = B_i(m) q^{(i)} and any inner product splits into the sum over the h blocks. "
        "The layout only renames dimensions (theorem layouts_agree)."
    )
    p.steps += [
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


_BLOCK_RING = None


def _block_ring() -> tuple[Any, ...]:
    global _BLOCK_RING
    if _BLOCK_RING is None:
        from sympy.polys.domains import ZZ
        from sympy.polys.rings import ring

        _BLOCK_RING = ring("u0 u1 v0 v1 cm sm cn sn", ZZ)
    return _BLOCK_RING


def _ring_block_check(u: Sequence[Any], v: Sequence[Any], theta: Any, m: Any, n: Any, sign: int = 1) -> bool:
    """One block of the concrete-d difference, expanded to exactly 0 in a polynomial ring.

    The block's expression <R(m theta) u, R(n theta) v> - u^T R((n-m) theta) v is written
    out entry by entry from R(phi) = [[cos phi, -sin phi], [sin phi, cos phi]] as a plain
    (unevaluated) tree; its atoms map into ZZ[u0, u1, v0, v1, cm, sm, cn, sn]
    (cm = cos(m theta), ...; every coefficient is an integer), the relative rotation's two atoms by the angle-difference rule
    (``expand_trig``): cos((n-m)theta) = cn cm + sn sm, sin((n-m)theta) = sn cm - cn sm.
    Polynomial arithmetic then decides whether it is exactly 0.
    """
    poly_ring, u0, u1, v0, v1, cm, sm, cn, sn = _block_ring()
    add = functools.partial(sympy.Add, evaluate=False)
    mul = functools.partial(sympy.Mul, evaluate=False)

    def rotation(coeff: Any) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        arg = mul(coeff, theta)
        c, s = sympy.cos(arg, evaluate=False), sympy.sin(arg, evaluate=False)
        return (c, mul(-1, s)), (s, c)

    a, b = rotation(m), rotation(n)
    c = rotation(add(n, mul(-1, m)) if sign == 1 else add(m, mul(-1, n)))
    atoms: dict[Any, Any] = {
        u[0]: u0, u[1]: u1, v[0]: v0, v[1]: v1,
        a[0][0]: cm, a[1][0]: sm, b[0][0]: cn, b[1][0]: sn,
        c[0][0]: cn * cm + sn * sm, c[1][0]: sign * (sn * cm - cn * sm),
    }  # fmt: skip

    def to_ring(e: Any) -> Any:
        if e in atoms:
            return atoms[e]
        if e.is_Integer:
            return poly_ring(int(e))
        if e.is_Add:
            out = poly_ring.zero
            for x in e.args:
                out += to_ring(x)
            return out
        if e.is_Mul:
            out = poly_ring.one
            for x in e.args:
                out *= to_ring(x)
            return out
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            return to_ring(e.base) ** int(e.exp)
        raise KeyError(e)

    ru = [add(mul(a[r][0], u[0]), mul(a[r][1], u[1])) for r in range(2)]
    rv = [add(mul(b[r][0], v[0]), mul(b[r][1], v[1])) for r in range(2)]
    rel = [add(mul(c[r][0], v[0]), mul(c[r][1], v[1])) for r in range(2)]
    diff = add(mul(ru[0], rv[0]), mul(ru[1], rv[1]), mul(-1, add(mul(u[0], rel[0]), mul(u[1], rel[1]))))
    try:
        return bool(to_ring(diff) == 0)
    except KeyError:  # pragma: no cover - an atom outside the map: let SymPy's rewrites decide
        return reduce_to_zero(diff) is not None


def concrete_d_check(d: int, *, sign: int = 1) -> Proof:
    """The full expansion of <R_m q, R_n k> - q^T R_{n-m} k for one concrete d, block by block.

    R is block-diagonal, so the difference is the sum over the d/2 blocks of an expression in
    that block's own entries q_{2i}, q_{2i+1}, k_{2i}, k_{2i+1} and its own theta_i. Each
    block's expression is built and expanded to exactly 0 (angle-difference expansion, then
    polynomial arithmetic over ZZ); a sum of zeros is zero. No d x d matrix is formed.

    Args:
        d: the even head dimension.
        sign: +1 checks R_{n-m} (the theorem); -1 checks R_{m-n} (the negative twin, which
            is refuted with a counterexample from its first failing block).
    """
    from ..errors import UsageError

    if not isinstance(d, int) or d < 2 or d % 2:
        raise UsageError(f"--d must be an even integer >= 2, got {d!r}")
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    h = d // 2
    th = thetas(h)
    qv, kv = vec("q", d), vec("k", d)
    failed = [
        b
        for b in range(h)
        if not _ring_block_check((qv[2 * b], qv[2 * b + 1]), (kv[2 * b], kv[2 * b + 1]), th[b], m, n, sign)
    ]
    lhs = Symbol(rf"\langle R_{{\Theta,m}} q, R_{{\Theta,n}} k\rangle_{{d={d}}}")
    rhs = Symbol(rf"q^T R_{{\Theta,n-m}} k_{{d={d}}}")
    verdict, method, cex = Verdict.PROVED, f"blockwise(expand_trig, ZZ[...]) x {h}", None
    if failed:  # decide the first failing block with the full procedure, for its counterexample
        b = failed[0]
        u, v = Matrix([qv[2 * b], qv[2 * b + 1]]), Matrix([kv[2 * b], kv[2 * b + 1]])
        rel = (n - m) if sign == 1 else (m - n)
        verdict, method, cex = decide(dot(rot(m * th[b]) * u, rot(n * th[b]) * v), (u.T * rot(rel * th[b]) * v)[0, 0])
        method = f"block {b}: {method}"
    step = Step(
        f"expansion_d{d}",
        f"All {h} blocks of the d={d} difference expand to exactly 0 (theta_0..theta_{h - 1}, q, k symbolic).",
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
