"""``ropecheck.symbolic``: RoPE's identities proved in SymPy, and a checker for claimed ones.

* :func:`decide` decides one equality: PROVED by a recorded targeted rewrite (``expand``,
  ``expand_trig``, ``expand_complex``, ``trigsimp``, ``fu``, ...), REFUTED with an exact
  counterexample, or UNDECIDED -- never PROVED on numeric evidence.
* The theorems (:data:`FAMILIES`, :func:`run_proofs`) are :class:`Proof` objects of named,
  decided steps: relative position (2-D and, structurally, every even d), the three forms,
  the two layouts, linear attention, long-term decay, context-extension schedules and
  multi-axis RoPE.
* :func:`check_claim` parses a user's ``"LHS == RHS"`` (SymPy or LaTeX) and decides it.
* Rendering (:func:`render_proof_markdown`, ...) is pure: data in, text out.

Example:
    >>> from ropecheck.symbolic import check_claim
    >>> check_claim("cos(a + b) == cos(a)*cos(b) - sin(a)*sin(b)").method
    'expand_trig'
"""

from ._claim import ClaimResult, check_claim, parse_claim
from ._decide import REWRITES, decide, decide_step, find_counterexample, reduce_to_zero
from ._proof import Counterexample, Proof, Step, Verdict
from ._registry import FAMILIES, THEOREMS, resolve, run_family, run_proofs
from ._render import (
    decay_svg,
    proofs_to_json,
    render_counterexample_text,
    render_index_markdown,
    render_proof_markdown,
    render_proof_text,
    step_mathml,
)
from ._rope import (
    dot,
    even_first_permutation,
    pairs,
    positions,
    rope_complex,
    rope_elementwise,
    rope_entries,
    rope_matrix,
    rot,
    rotate,
    thetas,
    vec,
)
from ._theorems_core import (
    concrete_d_check,
    forms_agree,
    layouts_agree,
    relative_position_2d,
    relative_position_general,
    rotation_2d,
)
from ._theorems_ext import (
    axial_matrix,
    context_extension,
    decay_curve,
    dynamic_ntk_theta,
    linear_attention,
    long_term_decay,
    mrope_matrix,
    multi_axis,
)

__all__ = [
    "FAMILIES",
    "REWRITES",
    "THEOREMS",
    "ClaimResult",
    "Counterexample",
    "Proof",
    "Step",
    "Verdict",
    "axial_matrix",
    "check_claim",
    "concrete_d_check",
    "context_extension",
    "decay_curve",
    "decay_svg",
    "decide",
    "decide_step",
    "dot",
    "dynamic_ntk_theta",
    "even_first_permutation",
    "find_counterexample",
    "forms_agree",
    "layouts_agree",
    "linear_attention",
    "long_term_decay",
    "mrope_matrix",
    "multi_axis",
    "pairs",
    "parse_claim",
    "positions",
    "proofs_to_json",
    "reduce_to_zero",
    "relative_position_2d",
    "relative_position_general",
    "render_counterexample_text",
    "render_index_markdown",
    "render_proof_markdown",
    "render_proof_text",
    "resolve",
    "rope_complex",
    "rope_elementwise",
    "rope_entries",
    "rope_matrix",
    "rot",
    "rotate",
    "rotation_2d",
    "run_family",
    "run_proofs",
    "step_mathml",
    "thetas",
    "vec",
]
