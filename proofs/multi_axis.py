"""Theorem 8: multi-axis RoPE (M-RoPE in sections or interleaved, axial 2-D) is relative per axis.

Run ``python proofs/multi_axis.py``.

The theorem is stated for every even d and *every* assignment of the rotated pairs to position
axes (a symbolic function ``alpha`` from pairs to axes): the score depends on the positions only
through the per-axis differences, shifting each axis by its own amount keeps it, and a text token
(the same position on every axis) is 1-D RoPE. Each scheme the configs use -- Qwen2-VL's sections,
Qwen3-VL's interleaving, the two 2-D vision layouts -- is then one such assignment: its
:class:`~ropecheck.axes.MultiAxis` (the spec's own data) is checked to be a function from pairs to
axes (every pair rotates by exactly one axis), so the general steps apply to it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import Function, IndexedBase, Matrix, Sum

from ropecheck.axes import MultiAxis, axial, mrope
from ropecheck.spec import RopeSpec
from ropecheck.symbolic.engine.decide import decide_step
from ropecheck.symbolic.engine.proof import Proof, Verdict, timed
from ropecheck.symbolic.engine.rope import block_symbols, dot, positions, rot, thetas, vec
from ropecheck.symbolic.pages.render import print_family

__all__ = [
    "EXAMPLES",
    "EXAMPLE_CONFIGS",
    "NUMBER",
    "THEOREMS",
    "TITLE",
    "axial_matrix",
    "mrope_matrix",
    "multi_axis",
    "multi_axis_matrix",
    "partition_matrices",
]

NUMBER = 8
TITLE = "Multi-axis RoPE (M-RoPE, axial 2-D) is relative per axis"

#: Configs shaped like the published ones (the fields RoPE reads), one per scheme: (words, config, config key):
#: Qwen2-VL 7B, Qwen3-VL 8B, Qwen2-VL's vision encoder, Pixtral's vision encoder.
EXAMPLE_CONFIGS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "qwen2_vl": (
        "M-RoPE in sections",
        {
            "model_type": "qwen2_vl",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "rope_theta": 1000000.0,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        },
        None,
    ),
    "qwen3_vl": (
        "M-RoPE interleaved",
        {
            "model_type": "qwen3_vl",
            "text_config": {
                "head_dim": 128,
                "hidden_size": 4096,
                "num_attention_heads": 32,
                "rope_theta": 5000000,
                "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True},
            },
        },
        None,
    ),
    "qwen2_vl_vision": (
        "2-D axial, one shared table",
        {"model_type": "qwen2_vl", "vision_config": {"embed_dim": 1280, "num_heads": 16, "hidden_size": 1536}},
        "vision_config",
    ),
    "pixtral": (
        "2-D axial, even/odd frequencies",
        {
            "model_type": "llava",
            "vision_config": {"model_type": "pixtral", "head_dim": 64, "hidden_size": 1024, "num_attention_heads": 16},
        },
        "vision_config",
    ),
}


def _example(words: str, config: dict[str, Any], key: str | None) -> tuple[str, MultiAxis]:
    spec = RopeSpec.from_hf_config(config, config_key=key)
    assert spec.axes is not None, f"{words}: the config describes no axes"
    sections = "" if spec.axes.sections is None else f" ({', '.join(map(str, spec.axes.sections))})"
    return f"{words}{sections}, d = {spec.rotary_dim}", spec.axes


#: The schemes the theorem is instantiated on: the specs' own axes (``RopeSpec.from_hf_config(...).axes``).
EXAMPLES: dict[str, tuple[str, MultiAxis]] = {k: _example(*v) for k, v in EXAMPLE_CONFIGS.items()}


def multi_axis_matrix(scheme: MultiAxis, freqs: Sequence[Any], pos: Sequence[Any]) -> Matrix:
    """The block-diagonal rotation (interleaved pairs): pair i turns by ``pos[axis(i)] * freqs[i]``."""
    axis_of = scheme.axis_of_pair()
    blocks = [rot(pos[axis_of[i]] * freqs[i]) for i in range(len(axis_of))]
    return sympy.diag(*blocks)


def mrope_matrix(freqs: Sequence[Any], sections: Sequence[int], pos: Sequence[Any]) -> Matrix:
    """M-RoPE in sections: consecutive frequency pairs turn with the (t, h, w) positions."""
    return multi_axis_matrix(mrope(tuple(sections), 2 * len(freqs)), freqs, pos)


def axial_matrix(freqs_x: Sequence[Any], freqs_y: Sequence[Any], px: Any, py: Any) -> Matrix:
    """2-D axial RoPE: the first pairs turn with the x position at ``freqs_x``, the rest with y at ``freqs_y``."""
    scheme = axial(2 * (len(freqs_x) + len(freqs_y)), "split", sections=(len(freqs_x), len(freqs_y)))
    return multi_axis_matrix(scheme, [*freqs_x, *freqs_y], (px, py))


def partition_matrices(scheme: MultiAxis, pairs: int) -> tuple[Matrix, Matrix]:
    """The axes' pair sets as a partition: their overlaps |P_a ∩ P_b| and their union's size (left),
    against the section sizes on the diagonal, zeros off it, and all ``pairs`` pairs (right)."""
    sets = [set(a.pairs) for a in scheme.axes]
    overlaps = Matrix(len(sets), len(sets), lambda x, y: len(sets[x] & sets[y]))
    union = len(set().union(*sets) & set(range(pairs)))
    return sympy.diag(overlaps, union), sympy.diag(*[len(a.pairs) for a in scheme.axes], pairs)


def _runs(scheme: MultiAxis) -> str:
    return ", ".join(
        f"{r['axis']}: {r['pairs'][0]}" + (f"–{r['pairs'][1]}" if r["pairs"][1] > r["pairs"][0] else "")
        for r in scheme.table()[:6]
    ) + (", …" if len(scheme.table()) > 6 else "")


@timed
def multi_axis() -> Proof:
    """Multi-axis RoPE is relative per axis for every even d and every pair -> axis assignment."""
    s = block_symbols()
    q, k, th, i, h, m, n = s["q"], s["k"], s["theta"], s["i"], s["h"], s["m"], s["n"]
    alpha = Function("alpha", integer=True)  # pair -> axis, any assignment
    pq, pk, shift = IndexedBase("p", integer=True), IndexedBase("r", integer=True), IndexedBase("t", integer=True)
    qi, ki = Matrix([q[2 * i], q[2 * i + 1]]), Matrix([k[2 * i], k[2 * i + 1]])
    a = alpha(i)

    def score(angle_q: Any, angle_k: Any) -> Any:
        return Sum(dot(rot(angle_q) * qi, rot(angle_k) * ki), (i, 0, h - 1))

    relative = Sum((qi.T * rot((pk[a] - pq[a]) * th[i]) * ki)[0, 0], (i, 0, h - 1))
    p = Proof(
        "multi_axis",
        "multi_axis",
        "Multi-axis RoPE: M-RoPE and axial 2-D",
        r"For every even $d = 2h$ and every assignment $\alpha$ of the $h$ rotated pairs to position axes, pair $i$ "
        r"turning by the position $p_{\alpha(i)}$ along its axis: the score depends on the positions only through the "
        r"per-axis differences $r_a - p_a$, shifting each axis by its own $t_a$ keeps it, and a text token (the same "
        r"position on every axis) is 1-D RoPE. M-RoPE in sections or interleaved and the 2-D vision layouts are such "
        r"assignments.",
        formula="\n".join(
            [
                r"\langle R_{\Theta,\alpha}(p)\, q,\ R_{\Theta,\alpha}(r)\, k \rangle",
                r"= q^{\top} R_{\Theta,\alpha}(r - p)\, k",
                r"R_{\Theta,\alpha}(m, \dots, m) = R_{\Theta,m}",
            ]
        ),
        assumptions=[
            r"d = 2h \text{ (every even } d),\ q, k \in \mathbb{R}^{d},\ \theta_i \in \mathbb{R}",
            r"\alpha : \{0, \dots, h-1\} \to \text{axes, any function}",
            r"p, r, t \in \mathbb{Z}^{\text{axes}}",
            r"R_{\Theta,\alpha}(p) = \operatorname{diag}\big(R(p_{\alpha(i)}\theta_i)\big)_{i<h}",
        ],
        scope="every even d, every assignment",
        every_d=True,
    )
    p.notes.append(
        r"Proof outline. Pair $i$ of $R_{\Theta,\alpha}(p)\, q$ is $R(p_{\alpha(i)}\theta_i)\, q^{(i)}$, so "
        r"the score is the block sum of theorem 2 with $m, n$ replaced by $p_{\alpha(i)}, r_{\alpha(i)}$ "
        r"(theorem 2's regrouping lemma is unchanged). `every_d_relative` decides it termwise with $\alpha$ "
        r"symbolic; `every_d_translation` and `every_d_text` follow the same way. Each `partition_*` step "
        r"checks that a scheme of the configs is an assignment (a function: every pair rotates by exactly one "
        r"axis), computed from the scheme's `MultiAxis` data, so the general steps hold for it."
    )
    p.steps += [
        decide_step(
            "every_d_relative",
            r"Every even $d$, symbolic $\alpha$: the block sum of $\langle R(p_{\alpha(i)}\theta_i)\, q^{(i)}, "
            r"R(r_{\alpha(i)}\theta_i)\, k^{(i)} \rangle$ equals that of "
            r"$q^{(i)\top} R((r_{\alpha(i)} - p_{\alpha(i)})\theta_i)\, k^{(i)}$.",
            score(pq[a] * th[i], pk[a] * th[i]),
            relative,
        ),
        decide_step(
            "every_d_translation",
            r"Every even $d$, symbolic $\alpha$: shifting axis $a$ of both positions by its own $t_a$ leaves the score "
            r"the same relative form.",
            score(pq[a] * th[i] + shift[a] * th[i], pk[a] * th[i] + shift[a] * th[i]),
            relative,
        ),
        decide_step(
            "every_d_text",
            r"A text token: with $p_a = m$ and $r_a = n$ on every axis the score is the 1-D "
            r"$q^{\top} R_{\Theta,n-m}\, k$ (theorem 2), whatever $\alpha$ is.",
            score(pq[a] * th[i], pk[a] * th[i]).xreplace({pq[a]: m, pk[a]: n}),
            Sum((qi.T * rot((n - m) * th[i]) * ki)[0, 0], (i, 0, h - 1)),
        ),
    ]
    for key, (words, scheme) in EXAMPLES.items():
        pairs = scheme.pair_count
        lhs, rhs = partition_matrices(scheme, pairs)
        p.steps.append(
            decide_step(
                f"partition_{key}",
                f"{words} (`{scheme.describe()}`): its axes' pair sets are disjoint (the overlaps "
                f"$|P_a \\cap P_b|$ vanish off the diagonal) and their union is all {pairs} pairs ({_runs(scheme)}): "
                "every pair rotates by exactly one axis, so the scheme is an assignment $\\alpha$ and the steps "
                "above hold for it.",
                lhs,
                rhs,
            )
        )
    # a mismatch the general steps do not cover: query and key rotated by different assignments
    fr = thetas(2)
    qv, kv = vec("q", 4), vec("k", 4)
    (t_shift,) = positions("t")
    right = mrope((1, 1), 4, names=("t", "h"))
    swapped = mrope((1, 1), 4, names=("h", "t"))  # pair 0 by h, pair 1 by t: the axes' order reversed

    def mismatched(ppq: Sequence[Any], ppk: Sequence[Any]) -> Any:
        swap = (ppk[1], ppk[0])
        return dot(multi_axis_matrix(right, fr, ppq) * qv, multi_axis_matrix(swapped, fr, swap) * kv)

    pt, ph, rt, rh = positions("p_t", "p_h", "r_t", "r_h")
    p.steps.append(
        decide_step(
            "key_axes_swapped",
            r"Claim: with the key's pairs assigned to the axes the other way round (its pair 0 by the height, pair 1 "
            r"by the time position), shifting the time axis by $t$ still keeps the score. Refuted: the two "
            r"assignments must be the same function.",
            mismatched((pt, ph), (rt, rh)),
            mismatched((pt + t_shift, ph), (rt + t_shift, rh)),
            expect=Verdict.REFUTED,
        )
    )
    return p


THEOREMS = (multi_axis,)


if __name__ == "__main__":
    sys.exit(print_family(THEOREMS))
