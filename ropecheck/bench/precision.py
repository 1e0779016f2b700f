"""Benchmark of the precision sweep: 2^20 positions × head_dim 128 × {fp32, bf16, fp16} per policy.

``ropecheck bench precision [--out PATH] [--policies a,b] [--max-position N]``
times :func:`ropecheck.precision.sweep.run_sweep` for each built-in policy (the sweep
itself, as ``Sweep.seconds`` reports it, and the wall time of the call) and writes a
Markdown table. Speed goals live here, never in timed tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from ..errors import UsageError
from ..io import write_text_atomic
from ..precision.policies import POLICIES
from ..precision.sweep import run_sweep
from ..spec import RopeSpec

GOAL_S = 30.0

__all__ = ["GOAL_S", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``ropecheck bench precision``."""
    parser.add_argument(
        "--out", default="reports/benchmarks/precision.md", metavar="PATH", help="output file (default: %(default)s)"
    )
    parser.add_argument(
        "--policies", default=",".join(POLICIES), metavar="NAMES", help="comma-separated policies (default: all)"
    )
    parser.add_argument(
        "--max-position", type=int, default=1 << 20, metavar="N", help="positions swept (default: %(default)s)"
    )


def run(args: argparse.Namespace) -> int:
    """Time every policy's sweep and write the table; exit 0 when every sweep met the goal."""
    names = [n.strip() for n in args.policies.split(",") if n.strip()]
    unknown = [n for n in names if n not in POLICIES]
    if unknown:
        raise UsageError(f"--policies: unknown policies {', '.join(unknown)}; known: {', '.join(POLICIES)}")
    if args.max_position < 1:
        raise UsageError(f"--max-position must be positive, got {args.max_position}")
    spec, dtypes = RopeSpec(head_dim=128), ("float32", "bfloat16", "float16")
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = []
    for name in names:
        t0, c0 = time.perf_counter(), time.process_time()
        sw = run_sweep(spec, target=name, dtypes=dtypes, max_position=args.max_position, progress=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append((name, sw.seconds, wall, cpu))
        print(f"{name}: sweep {sw.seconds:.1f} s, wall {wall:.1f} s, CPU {cpu:.1f} s")
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    worst = max(r[1] for r in rows)
    lines = [
        "# Benchmark: the precision sweep",
        "",
        f"`ropecheck bench precision`: {args.max_position} positions × head_dim 128 × "
        f"{{{', '.join(dtypes)}}} per policy, every source measured, band aggregates kept.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.system()}; "
        f"1-minute load average {load_start:.1f} at the start, {load_end:.1f} at the end. Goal: under {GOAL_S:g} s "
        f"per policy. Slowest sweep: {worst:.1f} s ({'met' if worst < GOAL_S else 'NOT met'}).",
        "",
        "| policy | sweep (s) | wall (s) | CPU (s) |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {n} | {s:.1f} | {w:.1f} | {c:.1f} |" for n, s, w, c in rows]
    write_text_atomic(Path(args.out), "\n".join(lines) + "\n")
    return 0 if worst < GOAL_S else 1
