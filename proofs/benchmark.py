"""Benchmark of the symbolic proofs; writes ``reports/benchmarks/proofs.md`` and ``.json``.

Measures, in one run and side by side:

* the structural general-d proof (``relative_position_general``): median and worst of
  several runs (target: under 2 s);
* the full expansion check for concrete d, d = 2, 4, ..., 1024, two ways:
  - **blockwise** (``concrete_d_check``): each of the d/2 blocks' expressions built from its
    own entries and expanded to 0 (angle-difference rule, then polynomial arithmetic);
  - **naive**: both d x d symbolic matrices R_m and R_n built with ``sympy.Matrix``,
    multiplied (``R_m.T * R_n``), and the whole scalar q^T R_m^T R_n k - q^T R_{n-m} k
    reduced by the same targeted rewrite (``expand`` + ``expand_trig`` + ``expand``), checked
    to be exactly 0. (SymPy's own matrix product skips structural zeros internally; the
    naive timing includes that, as a user of SymPy would get it.)

SymPy's cache is cleared before every measurement so no run reuses another's work. Naive
runs stop once one takes longer than ``--cap`` seconds; larger d are then reported as not
run. Run: ``python proofs/benchmark.py`` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import sympy
from sympy.core.cache import clear_cache

from ropecheck._io import write_text_atomic
from ropecheck.symbolic import concrete_d_check, positions, relative_position_general, rope_matrix, thetas, vec
from ropecheck.symbolic._decide import _expand_trig

DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def naive_check(d: int) -> tuple[bool, float]:
    """Dense d x d matrices, multiplied, and the whole difference expanded; (is zero, seconds)."""
    clear_cache()
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    th, q, k = thetas(d // 2), vec("q", d), vec("k", d)
    rm, rn, rr = rope_matrix(th, m), rope_matrix(th, n), rope_matrix(th, n - m)
    diff = (q.T * (rm.T * rn) * k)[0, 0] - (q.T * rr * k)[0, 0]
    ok = _expand_trig(diff) == 0
    return bool(ok), time.perf_counter() - t0


def fast_check(d: int) -> tuple[bool, float]:
    clear_cache()
    t0 = time.perf_counter()
    proof = concrete_d_check(d)
    return proof.verdict.value == "PROVED", time.perf_counter() - t0


def general_d(repeats: int = 5) -> dict[str, Any]:
    times, verdicts = [], set()
    for _ in range(repeats):
        clear_cache()
        t0 = time.perf_counter()
        proof = relative_position_general()
        times.append(time.perf_counter() - t0)
        verdicts.add(proof.verdict.value)
    return {"runs": repeats, "median_s": statistics.median(times), "max_s": max(times), "verdicts": sorted(verdicts), "target_s": 2.0}


def run(dims: list[int], cap: float) -> dict[str, Any]:
    rows = []
    naive_stopped = False
    for d in dims:
        fast_ok, fast_s = fast_check(d)
        row: dict[str, Any] = {"d": d, "blockwise_s": fast_s, "blockwise_proved": fast_ok}
        if not naive_stopped:
            naive_ok, naive_s = naive_check(d)
            row.update(naive_s=naive_s, naive_proved=naive_ok, speedup=naive_s / fast_s)
            naive_stopped = naive_s > cap
        else:
            row.update(naive_s=None, naive_proved=None, speedup=None)
        rows.append(row)
        print(f"d={d:5d}  blockwise {fast_s:8.3f} s" + (f"  naive {row['naive_s']:8.3f} s  x{row['speedup']:.1f}" if row["naive_s"] else "  naive not run"), flush=True)
    return {
        "python": platform.python_version(),
        "sympy": sympy.__version__,
        "machine": platform.machine(),
        "general_d": general_d(),
        "concrete_d": rows,
        "naive_cap_s": cap,
    }


def render(data: dict[str, Any]) -> str:
    """The Markdown page (pure)."""
    g = data["general_d"]
    at512 = next((r for r in data["concrete_d"] if r["d"] == 512), None)
    lines = [
        "# Benchmark: symbolic proofs",
        "",
        f"Python {data['python']}, SymPy {data['sympy']}, {data['machine']}. SymPy's cache cleared before every measurement.",
        "",
        "## General-d proof (structural)",
        "",
        (f"`relative_position_general`: median **{g['median_s']:.3f} s**, worst {g['max_s']:.3f} s over {g['runs']} runs "
        f"(target < {g['target_s']:.0f} s); verdict {', '.join(g['verdicts'])}."),
        "",
        "## Full expansion for concrete d",
        "",
        ("*blockwise*: each of the d/2 blocks' expressions is built from its own entries and expanded to exactly 0 "
        "(angle-difference rule, then polynomial arithmetic over ZZ); no d x d matrix is formed. "
        "*naive*: R_m and R_n built as d x d `sympy.Matrix`, multiplied, and the whole difference "
        "q^T R_m^T R_n k - q^T R_{n-m} k expanded (`expand`, `expand_trig`, `expand`) to exactly 0. Same run, side by side."),
        "",
        "| d | blockwise (s) | naive (s) | speed-up |",
        "|---:|---:|---:|---:|",
    ]
    for r in data["concrete_d"]:
        naive = f"{r['naive_s']:.3f}" if r["naive_s"] is not None else f"not run (previous > {data['naive_cap_s']:.0f} s)"
        speed = f"{r['speedup']:.1f}×" if r["speedup"] is not None else "—"
        flags = "" if r["blockwise_proved"] and r["naive_proved"] in (True, None) else " ⚠ not proved"
        lines.append(f"| {r['d']} | {r['blockwise_s']:.3f} | {naive} | {speed}{flags} |")
    if at512 and at512["speedup"] is not None:
        verdict = "meets" if at512["speedup"] >= 20 else "does **not** meet"
        lines += ["", f"At d = 512 the blockwise check is **{at512['speedup']:.1f}×** faster than the naive one ({verdict} the 20× target)."]
    lines += [
        "",
        ("Both approaches only accept an exact 0; numbers are never used. The naive figure is what SymPy gives a user who "
        "multiplies the matrices and applies the same targeted rewrite; `simplify()` in its place was not timed."),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark the symbolic proofs and write reports/benchmarks/proofs.{md,json}.")
    parser.add_argument("--out", default="reports/benchmarks", help="output folder (default reports/benchmarks)")
    parser.add_argument("--max-d", type=int, default=1024, help="largest d (default 1024)")
    parser.add_argument("--cap", type=float, default=120.0, help="stop naive runs after one exceeds this many seconds")
    args = parser.parse_args(argv)
    data = run([d for d in DIMS if d <= args.max_d], args.cap)
    out = Path(args.out)
    write_text_atomic(out / "proofs.json", json.dumps(data, indent=2) + "\n")
    write_text_atomic(out / "proofs.md", render(data))
    print(f"wrote {out / 'proofs.md'} and {out / 'proofs.json'}")
    at512 = next((r for r in data["concrete_d"] if r["d"] == 512), None)
    ok = data["general_d"]["max_s"] < 2.0 and (at512 is None or at512["speedup"] is None or at512["speedup"] >= 20)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
