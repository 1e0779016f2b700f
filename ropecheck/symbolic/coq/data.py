"""The Coq certificates' table for :mod:`ropecheck.symbolic.coq.certify`: files, theorems, allowed axioms.

Each certificate in ``proofs/coq`` is listed with the SymPy families it certifies, its main
theorems (each with the SymPy theorem it mirrors) and the certificates it imports, in
compile order: rotation_group, relative_position, forms, layouts, context_extension,
linear_attention, long_term_decay.

Design constraints: data only; the names here must match the ``Theorem`` names and the
``Print Assumptions`` commands of the ``.v`` files (the tests check that they do).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALLOWED_AXIOMS", "CERTIFICATES", "LOGICAL_PREFIX", "UNCERTIFIED_FAMILIES", "Certificate"]

#: The logical path the certificates are compiled under (``coqc -Q <folder> RopeCheck``).
LOGICAL_PREFIX = "RopeCheck"

#: The axioms Coq 8.16's ``Reals`` (with ``Lra``, ``Lia``, ``ZArith``, ``List``) can bring in:
#: the two of the classical Dedekind construction of R, functional extensionality (used by
#: that construction) and excluded middle (used by parts of the library, e.g. ``ln``, hence ``Rpower``).
#: ``R``, ``Rplus``, ... are module-sealed definitions in 8.16, not axioms.
ALLOWED_AXIOMS: frozenset[str] = frozenset(
    {
        "Coq.Reals.ClassicalDedekindReals.sig_forall_dec",
        "Coq.Reals.ClassicalDedekindReals.sig_not_dec",
        "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep",
        "Coq.Logic.Classical_Prop.classic",
    }
)


@dataclass(frozen=True)
class Certificate:
    """One certificate file: the families it covers and its main theorems.

    Attributes:
        file: the file name in ``proofs/coq``.
        families: the SymPy families (keys of ``FAMILIES``) it certifies.
        theorems: main Coq theorem name -> the SymPy theorem (builder name) it mirrors.
        requires: the certificates it imports (compile these first).
        covers: where the file certifies only part of a SymPy theorem, which part (said on its pages);
            empty when its statements are the whole theorem.
    """

    file: str
    families: tuple[str, ...]
    theorems: dict[str, str]
    requires: tuple[str, ...] = ()
    covers: str = ""


def _twins(sympy_theorem: str, *names: str, **others: str) -> dict[str, str]:
    """Coq theorem -> SymPy theorem: ``names`` mirror ``sympy_theorem``, ``others`` their own."""
    return {**dict.fromkeys(names, sympy_theorem), **others}


_RP = ("rotation_group.v", "relative_position.v")

#: Every certificate, in compile order.
CERTIFICATES: dict[str, Certificate] = {
    c.file: c
    for c in (
        Certificate(
            "rotation_group.v",
            ("relative_position",),
            _twins(
                "rotation_2d",
                "rotation_compose",
                "rotation_transpose_compose",
                "rotation_orthogonal",
                "rotation_zero",
                rope_relative_position_2d="relative_position_2d",
            ),
        ),
        Certificate(
            "relative_position.v",
            ("relative_position_general",),
            _twins(
                "relative_position_general",
                "rope_relative_position_blocks",
                "rope_relative_position",
                "rope_shift_invariance",
            ),
            _RP[:1],
        ),
        Certificate(
            "forms.v",
            ("forms", "relative_position"),
            _twins(
                "forms_agree",
                "complex_form_eq_matrix",
                "elementwise_form_eq_matrix",
                complex_score_relative="relative_position_2d",
            ),
            _RP,
        ),
        Certificate(
            "layouts.v",
            ("layouts",),
            _twins(
                "layouts_agree",
                "even_first_permutation_orthogonal",
                "half_split_eq_permuted_interleaved",
                "layouts_scores_agree",
                "half_split_relative_position",
            ),
            (*_RP, "forms.v"),
        ),
        Certificate(
            "context_extension.v",
            ("context_extension",),
            _twins(
                "context_extension",
                "schedule_keeps_relative",
                "linear_scaling_keeps_relative",
                "named_schedules_keep_relative",
                "cross_length_frequencies_break_shift",
            ),
            _RP,
        ),
        Certificate(
            "linear_attention.v",
            ("linear_attention",),
            _twins("linear_attention", "linear_attention_relative", "linear_attention_shift_invariance"),
            _RP,
        ),
        Certificate(
            "long_term_decay.v",
            ("long_term_decay",),
            _twins(
                "long_term_decay",
                "partial_sums_start",
                "partial_sums_increment",
                "summation_by_parts",
                "abel_summation",
                "abel_bound",
            ),
            covers=(
                "the Abel summation and the bound, for every N and any two complex sequences h and e "
                "(e_k = e^{i(m-n) theta_k} is one); that the score equals Re sum_i h_i e^{i(m-n) theta_i} "
                "is checked by SymPy only"
            ),
        ),
    )
}

#: SymPy families with no Coq certificate (the multi-axis variants).
UNCERTIFIED_FAMILIES: tuple[str, ...] = ("multi_axis",)
