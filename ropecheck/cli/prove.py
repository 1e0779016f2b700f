"""``ropecheck prove``: run the symbolic proofs and write ``reports/proofs/``.

Writes one Markdown page per theorem (every step in LaTeX, its verdict and the rewrite that
decided it) and ``index.md`` with the summary table and, in its marked volatile block, the
times; ``--json`` adds the full data with every step's time. The pages are the ones
``ropecheck report`` writes, so either command leaves ``reports/proofs/`` consistent. Exit 0
when every theorem reaches its intended verdict (the intended refutations included), 1
otherwise, 2 for a usage error.

Design constraints: proving and rendering live in :mod:`ropecheck.symbolic`; this module
only selects, times and writes (atomically, through :mod:`ropecheck.io`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..io import write_output
from ..proofs import FAMILIES, run_proofs
from ..proofs.relative_position_general import MAX_CONCRETE_D
from ..symbolic import decay_svg, proofs_to_json, render_index_markdown, render_proof_markdown
from .args import EXIT_FAIL, EXIT_OK, write_json

__all__ = ["DEFAULT_OUT", "add_parser", "run"]

DEFAULT_OUT = "reports/proofs"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "prove",
        help="run the symbolic proofs and write reports/proofs/",
        description="Run the symbolic proofs (all with --all, or by theorem/family NAME) and write one Markdown "
        "page per theorem plus index.md. Exit 0 when every theorem reaches its intended verdict.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="theorem or family names (see --list)")
    p.add_argument("--all", action="store_true", help="run every theorem")
    p.add_argument(
        "--d",
        type=int,
        metavar="N",
        help=f"also run the full expansion check for one concrete even d (2..{MAX_CONCRETE_D})",
    )
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument(
        "--json", nargs="?", const="", metavar="PATH", help="also write JSON (default DIR/proofs.json; '-' for stdout)"
    )
    p.add_argument("--no-write", action="store_true", help="print the verdicts only; write nothing")
    p.add_argument("--list", action="store_true", help="list the families and theorems, then exit")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:

    if args.list:
        for family, (num, desc, builders) in FAMILIES.items():
            print(f"{num}. {family}: {desc} -- " + ", ".join(b.__name__ for b in builders))
        return EXIT_OK
    if args.all and args.names:
        raise UsageError("give theorem names or --all, not both")
    if not args.all and not args.names and args.d is None:
        raise UsageError("give theorem names, --all, or --d N (see ropecheck prove --list)")
    if args.d is not None and (args.d < 2 or args.d % 2 or args.d > MAX_CONCRETE_D):
        shown = str(args.d) if args.d.bit_length() < 1000 else "a number with hundreds of digits"
        raise UsageError(f"--d must be an even integer in 2..{MAX_CONCRETE_D}, got {shown}")
    t0 = time.perf_counter()
    names = None if args.all else list(args.names)
    proofs = run_proofs(names, d=args.d)
    total = time.perf_counter() - t0
    numbers = {f: num for f, (num, _, _) in FAMILIES.items()}
    for p in proofs:
        print(
            f"{p.verdict.value:<9} {'' if p.as_intended else '(NOT AS INTENDED) '}{p.name:<28} {p.seconds:7.3f} s"
            + "".join(f"  [{s.name}: {s.verdict.value}, as intended]" for s in p.intended_refutations if s.as_intended)
        )
    if not args.no_write:
        _write(proofs, Path(args.out), numbers, total, args.all)
        print(f"wrote {len(proofs)} theorem page(s) and index.md to {args.out}")
    if args.json is not None:
        target = args.json or str(Path(args.out) / "proofs.json")
        write_json(proofs_to_json(proofs, total_seconds=total), target)
    return EXIT_OK if all(p.as_intended for p in proofs) else EXIT_FAIL


def _write(proofs: list[Any], out: Path, numbers: dict[str, int], total: float, full_index: bool) -> None:

    for p in proofs:
        write_output(out / f"{p.name}.md", render_proof_markdown(p, number=numbers.get(p.family), timings=False))
        if p.data.get("decay_curve"):
            write_output(out / "decay.svg", decay_svg(p.data["decay_curve"]))
    index = out / "index.md"
    if full_index or not index.exists():
        write_output(index, render_index_markdown(proofs, numbers=numbers, total_seconds=total))
