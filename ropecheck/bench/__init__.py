"""Benchmarks: speed and memory goals, measured and written to ``reports/benchmarks/``.

``ropecheck bench proofs`` (the symbolic proofs, blockwise vs naive), ``ropecheck bench
precision`` (the precision sweep per policy) and ``ropecheck bench verify`` (one verdict,
CLI process included). Goals live here, never in timed tests: a test suite must pass on a
busy machine.
"""

from . import precision, proofs, verify

__all__ = ["precision", "proofs", "verify"]
