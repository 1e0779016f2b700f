"""Benchmark of the symbolic proofs; writes ``reports/benchmarks/proofs.md`` and ``.json``.

Measures, in one run and side by side:

* the structural general-d proof (``relative_position_general``): median and worst of
  several runs (target: under 2 s);
* the full expansion check for concrete d, d = 2, 4, ..., 1024, two ways:
  - **blockwise** (``concrete_d_check``): R_m, R_n and R_{n-m} built from their definition
    as sparse entries, split into the diagonal blocks closed under their nonzero entries,
    and each block's share of the difference expanded to exactly 0 (``expand_trig`` for the
    relative rotation, then polynomial arithmetic over ZZ);
  - **naive**: the three d x d symbolic matrices built with ``sympy.Matrix``
    (``rope_matrix``), multiplied (``R_m.T * R_n``), and the whole scalar
    q^T R_m^T R_n k - q^T R_{n-m} k simplified by the targeted rewrite
    ``expand`` + ``expand_trig`` + ``expand`` and checked to be exactly 0. This is the
    *fastest* simplification SymPy offers here, so the speed-up is conservative:
    ``sympy.simplify`` in its place is timed too for d <= ``--simplify-max-d`` (it is
    slower still). SymPy's own matrix product skips structural zeros internally; the
    naive timing includes that, as a user of SymPy would get it.

SymPy's cache is cleared before every measurement so no run reuses another's work. Up to
d = 512 both sides are run ``--repeats`` times (default 3) and the median is reported; the
machine may be shared, and the median keeps one disturbed run from deciding. Naive
runs stop once one takes longer than ``--cap`` seconds; larger d are then reported as not
run. The exit status is 0 only when the targets were *measured* and met: the general-d
proof under 2 s, and (when d = 512 is in the run) a naive run at d = 512 with a speed-up of
at least 20x, both sides proved. Run: ``ropecheck bench proofs --out DIR`` (about two
minutes on 2 cores; the default DIR is reports/benchmarks).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import sympy
from sympy.core.cache import clear_cache

from ..io import write_text_atomic
from ..proofs.relative_position_general import concrete_d_check, relative_position_general
from ..symbolic import positions, rope_matrix, thetas, vec
from ..symbolic.engine.decide import expand_trig_rewrite

__all__ = ["DIMS", "add_arguments", "fast_check", "general_d", "measure", "naive_check", "render", "run", "targets_met"]

DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def naive_check(d: int) -> tuple[bool, float]:
    """Dense d x d matrices, multiplied, and the whole difference expanded; (is zero, seconds)."""
    clear_cache()
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    th, q, k = thetas(d // 2), vec("q", d), vec("k", d)
    rm, rn, rr = rope_matrix(th, m), rope_matrix(th, n), rope_matrix(th, n - m)
    diff = (q.T * (rm.T * rn) * k)[0, 0] - (q.T * rr * k)[0, 0]
    ok = expand_trig_rewrite(diff) == 0
    return bool(ok), time.perf_counter() - t0


def simplify_check(d: int) -> tuple[bool, float]:
    """As ``naive_check`` but with ``sympy.simplify`` as the simplification (small d only)."""
    clear_cache()
    t0 = time.perf_counter()
    m, n = positions("m", "n")
    th, q, k = thetas(d // 2), vec("q", d), vec("k", d)
    rm, rn, rr = rope_matrix(th, m), rope_matrix(th, n), rope_matrix(th, n - m)
    diff = (q.T * (rm.T * rn) * k)[0, 0] - (q.T * rr * k)[0, 0]
    ok = sympy.simplify(diff) == 0
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
    return {
        "runs": repeats,
        "median_s": statistics.median(times),
        "max_s": max(times),
        "verdicts": sorted(verdicts),
        "target_s": 2.0,
    }


def _median_of(check: Any, d: int, repeats: int) -> tuple[bool, float]:
    """Run ``check(d)`` ``repeats`` times (cache cleared each time): (all proved, median seconds)."""
    runs = [check(d) for _ in range(max(1, repeats))]
    return all(ok for ok, _ in runs), statistics.median(s for _, s in runs)


def measure(dims: list[int], cap: float, simplify_max_d: int = 16, repeats: int = 3) -> dict[str, Any]:
    rows = []
    naive_stopped = False
    for d in dims:
        reps = repeats if d <= 512 else 1
        fast_ok, fast_s = _median_of(fast_check, d, reps)
        row: dict[str, Any] = {"d": d, "runs": reps, "blockwise_s": fast_s, "blockwise_proved": fast_ok}
        if not naive_stopped:
            naive_ok, naive_s = _median_of(naive_check, d, reps)
            row.update(naive_s=naive_s, naive_proved=naive_ok, speedup=naive_s / fast_s)
            naive_stopped = naive_s > cap
        else:
            row.update(naive_s=None, naive_proved=None, speedup=None)
        row.update(simplify_s=None, simplify_proved=None)
        if d <= simplify_max_d:
            simp_ok, simp_s = simplify_check(d)
            row.update(simplify_s=simp_s, simplify_proved=simp_ok)
        rows.append(row)
        print(
            f"d={d:5d}  blockwise {fast_s:8.3f} s"
            + (f"  naive {row['naive_s']:8.3f} s  x{row['speedup']:.1f}" if row["naive_s"] else "  naive not run")
            + (f"  simplify {row['simplify_s']:8.3f} s" if row["simplify_s"] is not None else ""),
            flush=True,
        )
    return {
        "simplify_max_d": simplify_max_d,
        "repeats": repeats,
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
        (
            f"Python {data['python']}, SymPy {data['sympy']}, {data['machine']}. SymPy's cache cleared before every "
            f"measurement; up to d = 512 each figure is the median of {data.get('repeats', 1)} runs, both sides alike."
        ),
        "",
        "## General-d proof (structural)",
        "",
        (
            f"`relative_position_general`: median **{g['median_s']:.3f} s**, worst {g['max_s']:.3f} s over "
            f"{g['runs']} runs "
            f"(target < {g['target_s']:.0f} s); verdict {', '.join(g['verdicts'])}."
        ),
        "",
        "## Full expansion for concrete d",
        "",
        (
            "*blockwise*: R_m, R_n and R_{n-m} are built from their definition as sparse entries, split into the "
            "diagonal blocks closed under their nonzero entries, and each block's share of the difference is "
            "expanded to "
            "exactly 0 (`expand_trig` for the relative rotation, then polynomial arithmetic over ZZ); no d x d "
            "product is "
            "formed. *naive*: the d x d matrices built as `sympy.Matrix`, multiplied, and the whole difference "
            "q^T R_m^T R_n k - q^T R_{n-m} k simplified by `expand`, `expand_trig`, `expand` to exactly 0. "
            "*simplify*: the same with `sympy.simplify` as the simplification (small d only). Same run, side by side."
        ),
        "",
        "| d | blockwise (s) | naive (s) | speed-up | naive with simplify() (s) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in data["concrete_d"]:
        naive = (
            f"{r['naive_s']:.3f}" if r["naive_s"] is not None else f"not run (previous > {data['naive_cap_s']:.0f} s)"
        )
        speed = f"{r['speedup']:.1f}×" if r["speedup"] is not None else "—"
        simp = f"{r['simplify_s']:.3f}" if r.get("simplify_s") is not None else "—"
        proved = [r["blockwise_proved"], r["naive_proved"], r.get("simplify_proved")]
        flags = "" if all(x in (True, None) for x in proved) else " ⚠ not proved"
        lines.append(f"| {r['d']} | {r['blockwise_s']:.3f} | {naive} | {speed}{flags} | {simp} |")
    lines += [
        "",
        _target_line(at512),
        "",
        (
            "Every approach only accepts an exact 0; numbers are never used. The naive column uses the fastest "
            "simplification available here (the targeted rewrite); `simplify()` in its place is slower, so the "
            "speed-up "
            "is a lower bound."
        ),
        "",
    ]
    return "\n".join(lines)


def _target_line(at512: dict[str, Any] | None) -> str:
    if at512 is None:
        return "d = 512 was not in this run: the 20× target was not measured."
    if at512["speedup"] is None:
        return (
            "The naive check was not run at d = 512 (a smaller d exceeded the cap): "
            "the 20× target was **not** measured."
        )
    ok = at512["speedup"] >= 20 and at512["blockwise_proved"] and at512["naive_proved"]
    verdict = "meets" if ok else "does **not** meet"
    speedup = at512["speedup"]
    return f"At d = 512 the blockwise check is **{speedup:.1f}×** faster than the naive one ({verdict} the 20× target)."


def targets_met(data: dict[str, Any]) -> bool:
    """The general-d proof under 2 s (worst run); d = 512 measured on both sides, both proved, speed-up >= 20."""
    g = data["general_d"]
    if not (g["max_s"] < g["target_s"] and g["verdicts"] == ["PROVED"]):
        return False
    at512 = next((r for r in data["concrete_d"] if r["d"] == 512), None)
    if at512 is None:
        return True  # not part of this run (--max-d below 512); the page says so
    return bool(
        at512["speedup"] is not None and at512["speedup"] >= 20 and at512["blockwise_proved"] and at512["naive_proved"]
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``ropecheck bench proofs``."""
    parser.add_argument("--out", default="reports/benchmarks", help="output folder (default reports/benchmarks)")
    parser.add_argument("--max-d", type=int, default=1024, help="largest d (default 1024)")
    parser.add_argument("--cap", type=float, default=120.0, help="stop naive runs after one exceeds this many seconds")
    parser.add_argument(
        "--simplify-max-d", type=int, default=16, help="also time simplify() for d up to this (default 16)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="runs per d up to 512, both sides alike; the median is reported (default 3)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and write the page; exit 0 when the targets were measured and met."""
    data = measure([d for d in DIMS if d <= args.max_d], args.cap, args.simplify_max_d, args.repeats)
    out = Path(args.out)
    write_text_atomic(out / "proofs.json", json.dumps(data, indent=2) + "\n")
    write_text_atomic(out / "proofs.md", render(data))
    print(f"wrote {out / 'proofs.md'} and {out / 'proofs.json'}")
    ok = targets_met(data)
    print("targets met" if ok else "targets NOT met (see the page)")
    return 0 if ok else 1
