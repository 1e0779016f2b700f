"""``ropecheck bench``: run a benchmark and write its page under ``reports/benchmarks/``.

Exit codes: 0 the benchmark's goal was measured and met, 1 not met, 2 a usage error.
"""

from __future__ import annotations

from typing import Any

from ..bench import precision, proofs, survey, verify

__all__ = ["add_parser"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark (proofs, precision, verify, survey) and write reports/benchmarks/",
        description="Run one of ropecheck's benchmarks and write its Markdown page under reports/benchmarks/. "
        "Exit 0 when the goal was measured and met, 1 when not.",
    )
    which = p.add_subparsers(dest="benchmark", metavar="BENCHMARK", parser_class=type(p))
    which.required = True
    for name, module, text in (
        ("proofs", proofs, "the general-d proof and the blockwise vs naive expansion for d = 2..1024"),
        ("precision", precision, "the precision sweep: 2^20 positions x 3 dtypes per policy"),
        ("verify", verify, "one `ropecheck verify` verdict per adapter and corpus target, in fresh processes"),
        ("survey", survey, "`ropecheck survey`, every dtype and float32 only, each in a fresh process"),
    ):
        b = which.add_parser(name, help=text, description=text)
        module.add_arguments(b)
        b.set_defaults(run=module.run, outputs=[("--out", "out", name == "proofs", None)])
