"""Theorem 5: the RoPE linear-attention numerator depends on positions only through n - m.

Run ``python proofs/linear_attention.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import IndexedBase, Matrix, Sum, Symbol

from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, timed
from ropecheck.symbolic.engine.rope import block_symbols, dot, positions, real_symbols, rope_matrix, rot, thetas, vec
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "linear_attention",
]

NUMBER = 5
TITLE = "Linear attention depends only on n - m"


@timed
def linear_attention(*, keys: int = 3, d: int = 4) -> Proof:
    """The RoPE linear-attention numerator depends on positions only through n - m."""
    m, t = positions("m", "t")
    ns = positions(*[f"n_{j}" for j in range(keys)])
    freqs = thetas(d // 2)
    fq = vec("phi_q", d)
    fks = [vec(f"phi_k{j}", d) for j in range(keys)]
    vs = real_symbols(*[f"v_{j}" for j in range(keys)])

    def numerator(mq: Any, nk: Sequence[Any]) -> Any:
        return sum(
            (dot(rope_matrix(freqs, mq) * fq, rope_matrix(freqs, n) * fk) * v for n, fk, v in zip(nk, fks, vs)),
            sympy.S.Zero,
        )

    relative = sum(
        ((fq.T * rope_matrix(freqs, n - m) * fk)[0, 0] * v for n, fk, v in zip(ns, fks, vs)),
        sympy.S.Zero,
    )
    # symbolic number of keys J, one 2-D block per key (the block-diagonal sum is theorem 2)
    j, jn = Symbol("j", integer=True, nonnegative=True), Symbol("J", integer=True, positive=True)
    kb, nb, vb, theta = (
        IndexedBase("k", real=True),
        IndexedBase("n", integer=True),
        IndexedBase("v", real=True),
        Symbol("theta", real=True),
    )
    u = Matrix(real_symbols("u_0", "u_1"))
    kj = Matrix([kb[j, 0], kb[j, 1]])
    p = Proof(
        "linear_attention",
        "linear_attention",
        "Linear attention with RoPE is relative",
        r"The RoPE linear-attention numerator $\sum_n (R_{\Theta,m}\,\phi(q))^{\top} (R_{\Theta,n}\,\phi(k_n))\, v_n$ "
        r"equals $\sum_n \phi(q)^{\top} R_{\Theta,n-m}\,\phi(k_n)\, v_n$, so it depends on the positions only through "
        r"$n - m$.",
        formula="\n".join(
            [
                r"\sum_{n} \big(R_{\Theta,m}\,\phi(q)\big)^{\top} \big(R_{\Theta,n}\,\phi(k_n)\big)\, v_n",
                r"= \sum_{n} \phi(q)^{\top} R_{\Theta,n-m}\, \phi(k_n)\, v_n",
            ]
        ),
        assumptions=[
            "\\phi \\text{ any feature map};\\ \\phi(q), \\phi(k_n) \\in \\mathbb{R}^{d},\\ v_n \\in \\mathbb{R}",
            "m, n \\in \\mathbb{Z},\\ \\theta_i \\in \\mathbb{R}",
        ],
        scope="every even d",
        every_d=True,
    )
    p.notes.append(
        r"$\phi$ is any feature map (its values are free real symbols); $v_n$ is one value channel, each channel alike."
    )
    blocks = block_symbols()
    q, th, i, h = blocks["q"], blocks["theta"], blocks["i"], blocks["h"]
    kk = IndexedBase("K", real=True)  # K[j, c]: coordinate c of phi(k_j)
    qi, kji = Matrix([q[2 * i], q[2 * i + 1]]), Matrix([kk[j, 2 * i], kk[j, 2 * i + 1]])

    def every_d(mq: Any, shift: Any = 0) -> Any:
        """The numerator for J keys and h pairs, both symbolic: sum_j v_j sum_i <B_i(m) q^(i), B_i(n_j) k_j^(i)>."""
        inner = dot(rot(mq * th[i] + shift * th[i]) * qi, rot(nb[j] * th[i] + shift * th[i]) * kji)
        return Sum(vb[j] * Sum(inner, (i, 0, h - 1)), (j, 0, jn - 1))

    relative_every_d = Sum(vb[j] * Sum((qi.T * rot((nb[j] - m) * th[i]) * kji)[0, 0], (i, 0, h - 1)), (j, 0, jn - 1))
    p.steps += [
        decide_step(
            "every_d_every_key",
            r"Every even $d = 2h$ and any number $J$ of keys, both symbolic: by theorem 2's block decomposition the "
            r"numerator is $\sum_{j<J} v_j \sum_{i<h} \langle R(m\theta_i)\, q^{(i)}, R(n_j\theta_i)\, k_j^{(i)} "
            r"\rangle$, and it equals $\sum_{j<J} v_j \sum_{i<h} q^{(i)\top} R((n_j - m)\theta_i)\, k_j^{(i)}$, "
            r"which is $\sum_j \phi(q)^{\top} R_{\Theta,n_j-m}\,\phi(k_j)\, v_j$.",
            every_d(m),
            relative_every_d,
        ),
        decide_step(
            "every_d_translation",
            r"Every even $d$, any $J$: with the query and every key position shifted by $t$ the numerator is the "
            r"same relative form (the shift cancels in $(n_j + t) - (m + t)$), so it is unchanged.",
            every_d(m, t),
            relative_every_d,
        ),
        decide_step(
            "keys_sum",
            r"Any number $J$ of keys (one block each): the numerator is a sum of equal summands, "
            r"$(R(m\theta)\,u)^{\top} (R(n_j\theta)\,k_j)\, v_j = u^{\top} R((n_j - m)\theta)\,k_j\, v_j$.",
            Sum(dot(rot(m * theta) * u, rot(nb[j] * theta) * kj) * vb[j], (j, 0, jn - 1)),
            Sum((u.T * rot((nb[j] - m) * theta) * kj)[0, 0] * vb[j], (j, 0, jn - 1)),
        ),
        decide_step(
            f"relative_d{d}_keys{keys}",
            f"$d = {d}$, {keys} keys: the numerator equals "
            r"$\sum_n \phi(q)^{\top} R_{\Theta,n-m}\,\phi(k_n)\, v_n$.",
            numerator(m, ns),
            relative,
        ),
        decide_step(
            f"translation_d{d}_keys{keys}",
            f"$d = {d}$, {keys} keys: shifting every position by $t$ leaves the numerator unchanged.",
            numerator(m, ns),
            numerator(m + t, [n + t for n in ns]),
        ),
    ]
    return p


THEOREMS = (linear_attention,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
