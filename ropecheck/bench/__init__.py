"""Benchmarks: speed and memory goals, measured and written to ``reports/benchmarks/``.

``ropecheck bench proofs`` (the symbolic proofs, blockwise vs naive), ``ropecheck bench
precision`` (the precision sweep per policy), ``ropecheck bench verify`` (one verdict,
CLI process included) and ``ropecheck bench survey`` (the surveys of transformers, per dtype
set, and of diffusers). Goals live here, never in timed tests: a test suite must pass on a busy machine.
"""

from . import precision, proofs, survey, verify

__all__ = ["precision", "proofs", "survey", "verify"]
