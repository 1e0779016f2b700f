"""``ropecheck.symbolic``: RoPE's identities proved in SymPy, and a checker for claimed ones.

* :func:`decide` decides one equality: PROVED by a recorded targeted rewrite (``expand``,
  ``expand_trig``, ``expand_complex``, ``trigsimp``, ``fu``, ...), REFUTED with an exact
  counterexample, or UNDECIDED -- never PROVED on numeric evidence.
* A theorem is a :class:`Proof` of named, decided steps; the theorems themselves live in
  the top-level ``proofs/`` folder (installed as :mod:`ropecheck.proofs`), which builds them
  from this engine (:mod:`.engine`): the definitions (:mod:`.engine.rope`), the decision
  procedure (:mod:`.engine.decide`, :mod:`.engine.blockwise`) and the proof objects
  (:mod:`.engine.proof`).
* :func:`check_claim` parses a user's ``"LHS == RHS"`` (SymPy or LaTeX, :mod:`.readers`) and
  decides it, within the limits of :mod:`.readers.limits` (size, nesting, exponents, matrices,
  work, time, memory).
* Rendering (:func:`render_proof_markdown`, ...; :mod:`.pages`) is pure: data in, text out.
* The audit of a written derivation is :mod:`.audit`, the Coq certificates' checker
  :mod:`.coq`; layers, lowest first: the engine; the readers and the pages (each over the
  engine); the audit (over all three) and the Coq bridge (over the engine).

Example:
    >>> from ropecheck.symbolic import check_claim
    >>> check_claim("cos(a + b) == cos(a)*cos(b) - sin(a)*sin(b)").method
    'expand_trig'
"""

from .engine.blockwise import BlockReducer, block_difference, components, form_as_expr
from .engine.decide import (
    REWRITES,
    decide,
    decide_le,
    decide_le_step,
    decide_step,
    expand_trig_rewrite,
    find_counterexample,
    manifestly_nonnegative,
    reduce_to_zero,
)
from .engine.proof import Counterexample, Proof, Step, Verdict, expr_text, timed
from .engine.rope import (
    block_symbols,
    dot,
    even_first_permutation,
    pairs,
    positions,
    real_symbols,
    rope_complex,
    rope_elementwise,
    rope_entries,
    rope_matrix,
    rot,
    rotate,
    thetas,
    vec,
)
from .pages.render import (
    decay_svg,
    print_family,
    proofs_to_json,
    render_certificates_markdown,
    render_counterexample_text,
    render_index_markdown,
    render_proof_html,
    render_proof_markdown,
    render_proof_text,
    step_mathml,
)
from .readers.claim import ClaimResult, check_claim, parse_claim
from .readers.limits import (
    CLAIM_MEMORY_LIMIT,
    CLAIM_TIMEOUT,
    MAX_CLAIM_CHARS,
    MAX_EXPONENT,
    MAX_MATRIX_POWER,
    MAX_MATRIX_SIZE,
    MAX_NESTING,
    MAX_NUMBER_DIGITS,
    MAX_TERMS,
    MAX_TIMEOUT,
    expansion_size,
)
from .readers.scope import DOMAINS, Scope, describe_domains, parse_domain_flags

__all__ = [
    "CLAIM_MEMORY_LIMIT",
    "CLAIM_TIMEOUT",
    "DOMAINS",
    "MAX_CLAIM_CHARS",
    "MAX_EXPONENT",
    "MAX_MATRIX_POWER",
    "MAX_MATRIX_SIZE",
    "MAX_NESTING",
    "MAX_NUMBER_DIGITS",
    "MAX_TERMS",
    "MAX_TIMEOUT",
    "REWRITES",
    "Scope",
    "BlockReducer",
    "ClaimResult",
    "Counterexample",
    "Proof",
    "Step",
    "Verdict",
    "block_difference",
    "block_symbols",
    "check_claim",
    "components",
    "decay_svg",
    "decide",
    "decide_le",
    "decide_le_step",
    "decide_step",
    "describe_domains",
    "dot",
    "even_first_permutation",
    "expand_trig_rewrite",
    "expansion_size",
    "expr_text",
    "find_counterexample",
    "form_as_expr",
    "manifestly_nonnegative",
    "pairs",
    "parse_domain_flags",
    "parse_claim",
    "positions",
    "print_family",
    "proofs_to_json",
    "real_symbols",
    "render_certificates_markdown",
    "reduce_to_zero",
    "render_counterexample_text",
    "render_index_markdown",
    "render_proof_html",
    "render_proof_markdown",
    "render_proof_text",
    "rope_complex",
    "rope_elementwise",
    "rope_entries",
    "rope_matrix",
    "rot",
    "rotate",
    "step_mathml",
    "thetas",
    "timed",
    "vec",
]
