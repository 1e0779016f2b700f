"""Precision sweeps over positions: chunked measurement, band tables, CSV/JSON, SVG plots.

A sweep measures one policy (or a black-box implementation) in several dtypes over every
integer position in [0, max_position), in chunks: the exact phases and the random q/k of a
chunk are computed once and shared by the dtypes, and only per-band aggregates (max, sum,
count per source) are kept, so memory stays at one chunk whatever the length.

Design constraints: rendering is pure (data in, text/bytes out; the CLI writes the files);
plots use matplotlib's Agg backend and are byte-identical across reruns (fixed SVG hash
salt, no date metadata); a progress bar (rich, on stderr) only on sweeps of many chunks.
"""

from __future__ import annotations

import csv
import io
import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..spec import RopeSpec
from ..tolerance import dtype_name
from .measure import measure, measure_impl
from .model import error_bound
from .policies import DEVICE_ROWS, SOURCES, U, one_torch_thread, policy

__all__ = [
    "PLOT_DIGITS",
    "Sweep",
    "band_edges",
    "render_csv",
    "render_plot",
    "render_table",
    "run_sweep",
    "stable_values",
    "violation_plot",
]

CHUNK = 1 << 11  # positions per chunk: 2k x 64 pairs x 8 B = 1 MiB per fp64 table (cache-sized)
DEVICE_CHUNK = DEVICE_ROWS  # on a GPU: large chunks, few launches (the exact phases still form on the CPU)
POOL_EXTRA = 1021  # the random q/k pool holds CHUNK + POOL_EXTRA rows; chunk i reads a window of it
PLOT_BINS_PER_OCTAVE = 4
CAREFUL_REFERENCE = "input-dtype-cache"  # the loosest careful policy (cos/sin and rotation in the dtype)
TABLE_WIDTH = 110  # characters the band table needs with every figure in full


def band_edges(max_position: int, first: int = 64, per_octave: int = 1) -> list[int]:
    """[0, first, 2 first, ...] doubling (``per_octave`` bins each) up to max_position."""
    edges = [0]
    e = float(first)
    while e < max_position:
        edges.append(round(e))
        e *= 2 ** (1 / per_octave)
    edges.append(max_position)
    return sorted(set(edges))


@dataclass
class _Agg:
    edges: np.ndarray
    mx: np.ndarray
    sm: np.ndarray
    cnt: np.ndarray

    @classmethod
    def new(cls, edges: list[int]) -> _Agg:
        k = len(edges) - 1
        return cls(np.asarray(edges), np.full(k, np.nan), np.zeros(k), np.zeros(k))

    def add(self, pos: np.ndarray, mx: np.ndarray, mean: np.ndarray) -> None:
        """Fold per-position (max, mean) into the bands; NaN (a source not measured) is skipped."""
        idx = np.searchsorted(self.edges, pos, side="right") - 1
        ok = ~np.isnan(mx)
        if not ok.any():
            return
        idx, mx, mean = idx[ok], mx[ok], mean[ok]
        order = np.argsort(idx, kind="stable") if np.any(np.diff(idx) < 0) else None
        if order is not None:
            idx, mx, mean = idx[order], mx[order], mean[order]
        starts = np.concatenate([[0], np.nonzero(np.diff(idx))[0] + 1])
        bands = idx[starts]
        self.mx[bands] = np.fmax(self.mx[bands], np.maximum.reduceat(mx, starts))
        self.sm[bands] += np.add.reduceat(mean, starts)
        self.cnt[bands] += np.diff(np.concatenate([starts, [idx.size]]))


@dataclass
class Sweep:
    """The result of a sweep: per dtype, per source, band aggregates (table and plot bins)."""

    spec: RopeSpec
    target: str
    careful: dict[str, bool]
    dtypes: tuple[str, ...]
    device: str
    max_position: int
    seconds: float = 0.0
    impl: bool = False
    table: dict[str, dict[str, _Agg]] = field(default_factory=dict)
    plot: dict[str, dict[str, _Agg]] = field(default_factory=dict)

    def judge(self, dtype: str) -> str:
        """The careful policy whose bound this sweep is held to: its own, else the loosest careful one."""
        return self.target if self.careful[dtype] else CAREFUL_REFERENCE

    def rows(self) -> list[dict[str, Any]]:
        """One row per (dtype, band, source): max/mean absolute, in ulps of the dtype, and the bound.

        ``bound`` is the error model's for a careful policy at the band's last position: the
        target's own when it is careful, else :data:`CAREFUL_REFERENCE`'s (the loosest careful
        policy: exceeding it means worse than every careful implementation). ``within_bound``
        is None where nothing was measured (and for a black box's angle, which is read off
        the rounded output). ``max`` is inf where an output was not finite.
        """
        out = []
        for dt in self.dtypes:
            eps = 2 * U[dt]  # ulp of 1 in the dtype
            judge = self.judge(dt)
            for src in SOURCES:
                agg = self.table[dt][src]
                his = agg.edges[1:] - 1
                bounds = error_bound(self.spec, dt, his, kind=src, policy_name=judge, device=self.device)
                for b in range(len(agg.edges) - 1):
                    lo, hi = int(agg.edges[b]), int(agg.edges[b + 1])
                    mx = float(agg.mx[b])
                    mean = float(agg.sm[b] / agg.cnt[b]) if agg.cnt[b] else float("nan")
                    bound = float(bounds[b])
                    judged = not math.isnan(mx) and not (self.impl and src == "angle")
                    out.append(
                        {
                            "dtype": dt,
                            "band_lo": lo,
                            "band_hi": hi,
                            "source": src,
                            "max": mx,
                            "mean": mean,
                            "max_ulps": mx / eps,
                            "mean_ulps": mean / eps,
                            "bound": bound,
                            "bound_policy": judge,
                            "careful": self.careful[dt],
                            "within_bound": bool(mx <= bound) if judged else None,
                        }
                    )
        return out

    def failures(self) -> list[dict[str, Any]]:
        """Rows where a careful policy (or a black-box implementation) exceeds its bound."""
        return [r for r in self.rows() if r["within_bound"] is False and (r["careful"] or self.impl)]

    def verdicts(self, source: str = "output") -> list[dict[str, Any]]:
        """Per dtype, how ``source`` compares with the bound over the bands (plot bins, finer than the table).

        ``expected``: "within" for a careful policy, "exceeds" for a careless one or a black
        box (what the error model is there to catch); ``held``: whether that came true;
        ``first_over``: the first (lo, hi) band over the bound (None if none); ``worst_ratio``
        and ``worst_band``: the largest error / bound and where (inf for a non-finite output).
        """
        out = []
        for dt in self.dtypes:
            agg = self.plot[dt][source]
            bound = error_bound(
                self.spec, dt, agg.edges[1:] - 1, kind=source, policy_name=self.judge(dt), device=self.device
            )
            with np.errstate(invalid="ignore"):
                ratio = agg.mx / bound
            over = np.nonzero(ratio > 1)[0]
            worst = int(np.nanargmax(ratio)) if np.isfinite(ratio).any() or np.isinf(ratio).any() else 0
            band = lambda b, edges=agg.edges: (int(edges[b]), int(edges[b + 1]))
            expected = "within" if self.careful[dt] else "exceeds"
            out.append(
                {
                    "dtype": dt,
                    "source": source,
                    "careful": self.careful[dt],
                    "bound_policy": self.judge(dt),
                    "expected": expected,
                    "held": (over.size == 0) == (expected == "within"),
                    "first_over": band(int(over[0])) if over.size else None,
                    "worst_ratio": float(ratio[worst]),
                    "worst_band": band(worst),
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: NaN (not measured) as null, an infinite error as the string "inf"."""
        return json_safe(
            {
                "target": self.target,
                "impl": self.impl,
                "spec": self.spec.to_dict(),
                "device": self.device,
                "dtypes": list(self.dtypes),
                "max_position": self.max_position,
                "careful": self.careful,
                "seconds": round(self.seconds, 3),
                "rows": self.rows(),
            }
        )


def json_safe(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def run_sweep(
    spec: RopeSpec,
    *,
    target: str,
    dtypes: tuple[str, ...],
    device: str = "cpu",
    max_position: int = 1 << 16,
    impl: Callable[..., Any] | None = None,
    progress: bool | None = None,
    chunk: int | None = None,
    workers: int | None = None,
) -> Sweep:
    """Measure ``target`` (a policy name, or the label of ``impl``) over [0, max_position).

    Args:
        spec: the RoPE spec.
        target: a built-in policy name (or a label, with ``impl``).
        dtypes: output dtypes to measure, e.g. ``("float32", "bfloat16", "float16")``.
        device: where the policy (or ``impl``) runs.
        max_position: every integer position in [0, max_position) is measured.
        impl: a black-box implementation under the canonical protocol instead of a policy.
        progress: a progress bar on stderr (default: only for sweeps of more than 8 chunks).
        chunk: positions per chunk (default: 2^11 on the CPU, 2^16 on a GPU). Each chunk reads its
            q/k from a pool drawn for that chunk size, so two sweeps see the same q/k at each position
            only with the same chunk size (compare devices with ``chunk`` given).
        workers: threads measuring chunks in parallel, each with one torch thread (default: 2 on
            the CPU when the machine has 2 cores or more, up to 8 on a GPU, where the threads
            form the next chunks' exact phases while the GPU measures; 1 for a single chunk).

    Example:
        >>> sw = run_sweep(RopeSpec(head_dim=32), target="fp32-angles", dtypes=("bfloat16",), max_position=256)
        >>> all(r["within_bound"] for r in sw.rows())
        True
    """

    dtypes = tuple(dtype_name(d) for d in dtypes)
    careful = {dt: (impl is None and policy(target).is_careful(dt)) for dt in dtypes}
    sw = Sweep(spec, target, careful, dtypes, device, max_position, impl=impl is not None)
    edges_t, edges_p = band_edges(max_position), band_edges(max_position, first=1, per_octave=PLOT_BINS_PER_OCTAVE)
    for dt in dtypes:
        sw.table[dt] = {s: _Agg.new(edges_t) for s in SOURCES}
        sw.plot[dt] = {s: _Agg.new(edges_p) for s in SOURCES}
    if chunk is None:
        chunk = CHUNK if device == "cpu" else DEVICE_CHUNK
    starts = list(range(0, max_position, chunk))
    if progress is None:
        progress = len(starts) > 8
    if workers is None:
        workers = 1 if len(starts) < 2 else min(2 if device == "cpu" else 8, os.cpu_count() or 1)
    run = _ChunkRun.new(spec, target, dtypes, device, max_position, impl, chunk)
    bar: Any = None
    advance: Callable[[], None] = lambda: None
    if progress:
        bar = _progress_bar()
        bar.start()
        task = bar.add_task(
            f"precision {target} ({len(dtypes)} dtypes, chunks of {chunk} positions)", total=len(starts)
        )
        advance = lambda: bar.advance(task)
    t0 = time.perf_counter()
    try:
        _measure_chunks(run, starts, workers, lambda pos, res: _fold(sw, pos, res), advance)
    finally:
        if bar is not None:
            bar.stop()
    sw.seconds = time.perf_counter() - t0
    return sw


_ChunkResult = dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]  # per dtype, per source: (max, mean)


@dataclass(frozen=True)
class _ChunkRun:
    """What measuring one chunk of a sweep needs: the same for every chunk, so threads share it."""

    spec: RopeSpec
    target: str
    dtypes: tuple[str, ...]
    device: str
    max_position: int
    impl: Callable[..., Any] | None
    chunk: int
    seq_len: int | None
    pool: Any  # random q/k (q/k, a/b, row, pair), float64 tensor: each chunk reads a window of it

    @classmethod
    def new(
        cls,
        spec: RopeSpec,
        target: str,
        dtypes: tuple[str, ...],
        device: str,
        max_position: int,
        impl: Callable[..., Any] | None,
        chunk: int,
    ) -> _ChunkRun:
        import torch  # heavy: imported when used

        seq_len = max_position if spec.depends_on_length else None
        # one pool of random q/k, each chunk a different window of it (x is rounded to D per dtype)
        pool = (
            torch.from_numpy(
                np.random.default_rng(0).standard_normal((2, 2, chunk + POOL_EXTRA, spec.half), dtype=np.float32)
            )
            .double()
            .to(device)
        )
        return cls(spec, target, dtypes, device, max_position, impl, chunk, seq_len, pool)

    def measure(self, i: int, start: int) -> tuple[np.ndarray, _ChunkResult]:
        """Chunk ``i`` (positions from ``start``), measured in every dtype."""
        pos = np.arange(start, min(start + self.chunk, self.max_position), dtype=np.int64)
        off = (i * 7919) % (POOL_EXTRA + 1)
        x = self.pool[:, :, off : off + pos.size]  # (q/k, a/b, position, pair)
        res: _ChunkResult = {}
        if self.impl is None:
            memo: dict[Any, Any] = {}
            for dt in self.dtypes:
                res[dt] = measure(
                    self.spec, self.target, dt, pos, device=self.device, x=x, memo=memo, seq_len=self.seq_len
                )
        else:
            for dt in self.dtypes:
                res[dt] = measure_impl(self.spec, self.impl, dt, pos, device=self.device, seed=i)
        return pos, res


def _fold(sw: Sweep, pos: np.ndarray, res: _ChunkResult) -> None:
    for dt, m in res.items():
        for src in SOURCES:
            sw.table[dt][src].add(pos, *m[src])
            sw.plot[dt][src].add(pos, *m[src])


def _measure_chunks(
    run: _ChunkRun,
    starts: list[int],
    workers: int,
    fold: Callable[[np.ndarray, _ChunkResult], None],
    advance: Callable[[], None],
) -> None:
    """Measure every chunk and fold each result in chunk order (so the sweep does not depend on ``workers``)."""
    if workers <= 1:
        with one_torch_thread():
            for i, start in enumerate(starts):
                fold(*run.measure(i, start))
                advance()
        return
    with one_torch_thread(), ThreadPoolExecutor(max_workers=workers) as ex:
        # in order, at most 2 * workers chunks in flight: the fold order (and the result) is fixed
        pending: list[Any] = []
        for i, start in enumerate(starts):
            pending.append(ex.submit(run.measure, i, start))
            if len(pending) >= 2 * workers:
                fold(*pending.pop(0).result())
                advance()
        for f in pending:
            fold(*f.result())
            advance()


def _progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


# ------------------------------------------------------------------------------ rendering


def render_csv(sw: Sweep) -> str:
    rows = sw.rows()
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return buf.getvalue()


def render_table(sw: Sweep, console: Any) -> None:
    """Print one table per dtype: for each position band and source, max/mean absolute and in ulps."""

    rows = sw.rows()
    for dt in sw.dtypes:
        t = Table(title=f"{sw.target} · {dt} · {sw.device} · {sw.spec.describe()}", show_edge=False)
        bound_col = "bound" if sw.careful[dt] else "careful bound"
        for col in ("positions", "source", "max", "mean", "max ulps", "mean ulps", bound_col, "≤ bound"):
            t.add_column(col, justify="left" if col in ("positions", "source") else "right", no_wrap=True)
        bands = sorted({(r["band_lo"], r["band_hi"]) for r in rows if r["dtype"] == dt})
        for lo, hi in bands:
            for r in (r for r in rows if r["dtype"] == dt and r["band_lo"] == lo):
                if r["within_bound"] is None:
                    mark = "—"
                elif r["within_bound"]:
                    mark = "yes"
                else:
                    mark = "[red]NO[/]" if (r["careful"] or sw.impl) else "over"
                t.add_row(
                    f"{lo}–{hi - 1}" if r["source"] == "angle" else "",
                    r["source"],
                    _fmt(r["max"]),
                    _fmt(r["mean"]),
                    _fmt(r["max_ulps"]),
                    _fmt(r["mean_ulps"]),
                    _fmt(r["bound"]),
                    mark,
                )
            t.add_section()
        console.print(t)
    console.print(
        "angle in rad; other sources relative to the pair norm (score: to |q||k|); ulps of 1 in the dtype; "
        f"careless policies and implementations against the careful bound of {CAREFUL_REFERENCE}"
    )


def _fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return "inf" if math.isinf(v) else f"{v:.1e}"


def _svg(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    import matplotlib.pyplot as plt  # heavy: imported when a plot is drawn

    plt.close(fig)
    return buf.getvalue()


def _mpl() -> Any:
    import matplotlib  # heavy: imported when a plot is drawn

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ropecheck"
    import matplotlib.pyplot as plt  # heavy: imported when a plot is drawn

    return plt


#: Significant digits of every measured figure written (plots here, CSV and JSON in :mod:`.pages`): the
#: last bits of a float32/fp16 statistic differ between CPUs (another libm, another vector width and
#: order of operations); four digits read the same on every machine and still show every difference the
#: pages discuss.
PLOT_DIGITS = 4


def stable_values(values: Any) -> np.ndarray:
    """Measured values rounded to :data:`PLOT_DIGITS` significant digits (non-finite ones kept).

    Example:
        >>> stable_values([0.0770601234, 3.0, float("inf")]).tolist()
        [0.07706, 3.0, inf]
    """
    a = np.asarray(values, dtype=np.float64)
    return np.array([float(f"{x:.{PLOT_DIGITS}g}") if math.isfinite(x) else x for x in a.ravel()]).reshape(a.shape)


def render_plot(sweeps: list[Sweep], source: str = "output") -> bytes:
    """Error vs position (log-log), one line per (policy, dtype); the careful bound dashed."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(9.5, 4.5) if len(sweeps) > 1 else (7.5, 4.5))
    for sw in sweeps:
        for dt in sw.dtypes:
            agg = sw.plot[dt][source]
            centres = np.maximum(agg.edges[1:] - 1, 1)
            ok = np.isfinite(agg.mx) & (agg.mx > 0)
            label = f"{sw.target} {dt}"
            if np.isinf(agg.mx).any():
                b = int(np.argmax(np.isinf(agg.mx)))
                label += f" (not finite in {int(agg.edges[b])}–{int(agg.edges[b + 1]) - 1})"
            ax.plot(centres[ok], stable_values(agg.mx[ok]), marker=".", label=label)
            if len(sweeps) == 1:
                ax.plot(
                    centres,
                    error_bound(sw.spec, dt, centres, kind=source, policy_name=sw.judge(dt), device=sw.device),
                    "--",
                    color="grey",
                    linewidth=0.8,
                )
    if len(sweeps) > 1:  # one bound per dtype: the loosest careful one, which careless policies are judged by
        for dt in dict.fromkeys(dt for sw in sweeps for dt in sw.dtypes):
            sw = sweeps[0]
            centres = np.maximum(sw.plot[dt][source].edges[1:] - 1, 1)
            ax.plot(
                centres,
                error_bound(sw.spec, dt, centres, kind=source, policy_name=CAREFUL_REFERENCE, device=sw.device),
                "--",
                color="black",
                linewidth=1.0,
                label=f"bound ({CAREFUL_REFERENCE}, {dt})",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("position m")
    ax.set_ylabel(f"max {source} error" + (" (rad)" if source == "angle" else " (relative to pair norm)"))
    ax.set_title(f"{source} error vs position (dashed: error-model bound)\n{sweeps[0].spec.describe()}", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    if len(sweeps) > 1:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _svg(fig)


def violation_plot(curve: dict[str, Any]) -> bytes:
    """The relative-position violation vs context length (log-log)."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for label, ys in curve["curves"].items():
        line = ax.plot(curve["lengths"], stable_values(ys), marker="o", label=label)[0]
        if label in curve.get("bounds", {}):
            ax.plot(
                curve["lengths"],
                curve["bounds"][label],
                "--",
                color=line.get_color(),
                linewidth=0.8,
                label=f"{label} bound",
            )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("context length L")
    ax.set_ylabel("max |s(m, m-1) - s(1, 0)| / (|q||k|)")
    ax.set_title("relative-position violation (fixed random q/k)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return _svg(fig)
