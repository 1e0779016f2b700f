"""Theorem 6: Abel summation and the decay bound.

Runs the proof(s) long_term_decay and prints every step with its verdict and the rewrite that
decided it. Run: ``python proofs/long_term_decay.py`` (exit 0 when every step is as intended).
The statements and the decision procedure live in :mod:`ropecheck.symbolic`.
"""

from __future__ import annotations

import sys

from ropecheck.symbolic import render_proof_text, run_family


def main() -> int:
    proofs = run_family("long_term_decay")
    for proof in proofs:
        print(render_proof_text(proof))
    return 0 if all(p.as_intended for p in proofs) else 1


if __name__ == "__main__":
    sys.exit(main())
