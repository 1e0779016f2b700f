"""Benchmark of ``ropecheck survey``: each library's whole survey, and transformers' float32-only one, each in a
fresh process.

``ropecheck bench survey [--out PATH] [-j N]`` runs ``python -m ropecheck survey --library L --json -``
for transformers (default dtypes, then ``--dtype float32``) and, when each is installed, for diffusers and
timm (default dtypes), and times each command from start to exit (Python start-up, the library's import and
discovery included), with the counts the survey reports. Goals (:data:`GOALS_S`): transformers in every
dtype under 3 minutes and float32 under 60 s, diffusers and timm in every dtype under 60 s each, on the machine it runs
on. Speed goals live here, never in timed tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..io import write_text_atomic

__all__ = ["GOALS_S", "add_arguments", "run"]

#: (label, library, extra flags, goal in seconds): every rotary class of transformers in every dtype in 3 minutes
#: on 2 cores, float32 in 1; every rotary class of diffusers, and of timm, in every dtype in 1 minute
GOALS_S: tuple[tuple[str, str, tuple[str, ...], float], ...] = (
    ("transformers, every dtype (float32, bfloat16, float16)", "transformers", (), 180.0),
    ("transformers, --dtype float32", "transformers", ("--dtype", "float32"), 60.0),
    ("diffusers, every dtype (float32, bfloat16, float16)", "diffusers", (), 60.0),
    ("timm, every dtype (float32, bfloat16, float16)", "timm", (), 60.0),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``ropecheck bench survey``."""
    parser.add_argument(
        "--out", default="reports/benchmarks/survey.md", metavar="PATH", help="output file (default: %(default)s)"
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="survey workers (default: %(default)s)"
    )


def _one(library: str, flags: tuple[str, ...], jobs: int) -> tuple[float, dict[str, Any]]:
    cmd = [
        sys.executable,
        "-m",
        "ropecheck",
        "survey",
        "--library",
        library,
        "-j",
        str(jobs),
        "--json",
        "-",
        *flags,
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise UsageError(f"`{' '.join(cmd[1:])}` exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return wall, json.loads(proc.stdout)


def run(args: argparse.Namespace) -> int:
    """Time each survey and write the page; exit 0 when every one met its goal."""
    if args.jobs < 1:
        raise UsageError(f"-j must be at least 1, got {args.jobs}")
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = []
    for label, library, flags, goal in GOALS_S:
        if importlib.util.find_spec(library) is None:
            print(f"{label}: skipped ({library} is not installed)")
            continue
        wall, data = _one(library, flags, args.jobs)
        c = data["counts"]
        rows.append((label, wall, goal, c, f"{library} {data.get(library, '?')}"))
        print(f"{label}: {wall:.1f} s (goal {goal:g} s); {c['driven']}/{c['found']} driven")
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    met = all(wall < goal for _, wall, goal, _, _ in rows)
    lines = [
        "# Benchmark: the surveys of transformers, diffusers and timm",
        "",
        f"`ropecheck bench survey`: `ropecheck survey --library L -j {args.jobs}` in a fresh process, timed from "
        "start to exit (Python start-up, the library's import, discovery, every verdict, the JSON).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.system()}; {', '.join(dict.fromkeys(r[4] for r in rows))}; 1-minute load average "
        f"{load_start:.1f} at the start, "
        f"{load_end:.1f} at the end. Goals {'met' if met else 'NOT met'}.",
        "",
        "| survey | wall (s) | goal (s) | rows (families and classes) | driven | skipped | conforming in every cell |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {label} | {wall:.1f} | {goal:g} | {c['found']} | {c['driven']} | {c['skipped']} | {c['conforming']} |"
        for label, wall, goal, c, _ in rows
    ]
    write_text_atomic(Path(args.out), "\n".join(lines) + "\n")
    return 0 if met else 1
