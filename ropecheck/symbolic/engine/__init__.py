"""The engine: symbolic RoPE, the decision procedure, proof objects, the blockwise check, schedules.

:mod:`.rope` (the rotation, the block-diagonal matrix and the three forms), :mod:`.decide`
(targeted rewrites: PROVED, REFUTED with an exact counterexample, or UNDECIDED),
:mod:`.memo` (what the children of this process returned, by their arguments), :mod:`.proof`
(verdicts, counterexamples, steps and proofs), :mod:`.blockwise` (one concrete head dimension,
block by block) and :mod:`.schedules` (every frequency schedule's theta_i(L) as an exact
expression).

Design constraints: the lowest layer of :mod:`ropecheck.symbolic` -- it never imports a
reader, the audit, the pages or the Coq bridge; below it only ``ropecheck``'s own lower
layers (the schedules and the spec).
"""

from . import blockwise, decide, memo, proof, rope, schedules

__all__ = ["blockwise", "decide", "memo", "proof", "rope", "schedules"]
