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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._spec import RopeSpec
from .precision import SOURCES, U, error_bound, measure, measure_impl, phases, policy

__all__ = ["Sweep", "band_edges", "render_csv", "render_plot", "render_table", "run_sweep", "violation_plot"]

CHUNK = 1 << 11  # positions per chunk: 2k x 64 pairs x 8 B = 1 MiB per fp64 table (cache-sized: fastest measured)
PLOT_BINS_PER_OCTAVE = 4


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
        idx = np.searchsorted(self.edges, pos, side="right") - 1
        for b in np.unique(idx):
            sel = idx == b
            v = mx[sel]
            if np.isnan(v).all():
                continue
            self.mx[b] = np.nanmax([np.nanmax(v), self.mx[b]]) if not np.isnan(self.mx[b]) else np.nanmax(v)
            self.sm[b] += float(np.nansum(mean[sel]))
            self.cnt[b] += int(sel.sum())


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
    table: dict[str, dict[str, _Agg]] = field(default_factory=dict)
    plot: dict[str, dict[str, _Agg]] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        """One row per (dtype, band, source): max/mean absolute, in ulps of the dtype, and the bound."""
        out = []
        for dt in self.dtypes:
            eps = 2 * U[dt]  # ulp of 1 in the dtype
            for src in SOURCES:
                agg = self.table[dt][src]
                for b in range(len(agg.edges) - 1):
                    lo, hi = int(agg.edges[b]), int(agg.edges[b + 1])
                    mx = float(agg.mx[b])
                    mean = float(agg.sm[b] / agg.cnt[b]) if agg.cnt[b] else float("nan")
                    bound = float(error_bound(self.spec, dt, hi - 1, kind=src, policy_name=self.target)) if self.careful[dt] else float("nan")
                    out.append({"dtype": dt, "band_lo": lo, "band_hi": hi, "source": src, "max": mx, "mean": mean,
                                "max_ulps": mx / eps, "mean_ulps": mean / eps, "bound": bound,
                                "within_bound": (mx <= bound) if self.careful[dt] and not math.isnan(mx) else None})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "spec": self.spec.to_dict(), "device": self.device, "dtypes": list(self.dtypes),
                "max_position": self.max_position, "careful": self.careful, "seconds": round(self.seconds, 3), "rows": self.rows()}


def run_sweep(
    spec: RopeSpec,
    *,
    target: str,
    dtypes: tuple[str, ...],
    device: str = "cpu",
    max_position: int = 1 << 16,
    impl: Callable[..., Any] | None = None,
    progress: bool | None = None,
    chunk: int = CHUNK,
) -> Sweep:
    """Measure ``target`` (a policy name, or the label of ``impl``) over [0, max_position)."""
    careful = {dt: (impl is None and policy(target).is_careful(dt)) for dt in dtypes}
    sw = Sweep(spec, target, careful, dtypes, device, max_position)
    edges_t, edges_p = band_edges(max_position), band_edges(max_position, first=1, per_octave=PLOT_BINS_PER_OCTAVE)
    for dt in dtypes:
        sw.table[dt] = {s: _Agg.new(edges_t) for s in SOURCES}
        sw.plot[dt] = {s: _Agg.new(edges_p) for s in SOURCES}
    starts = list(range(0, max_position, chunk))
    bar: Any = None
    if progress is None:
        progress = len(starts) > 8
    if progress:
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(console=Console(stderr=True), transient=True)
        bar.start()
        task = bar.add_task(f"precision {target}", total=len(starts))
    t0 = time.perf_counter()
    h = spec.rotary_dim // 2
    try:
        for i, start in enumerate(starts):
            pos = np.arange(start, min(start + chunk, max_position), dtype=np.int64)
            phi = phases(spec, pos)
            x = np.random.default_rng(i).standard_normal((pos.size, 2, h, 2), dtype=np.float32).astype(np.float64)
            trig = (np.cos(phi), np.sin(phi))
            memo: dict[Any, Any] = {}
            for dt in dtypes:
                if impl is None:
                    m = measure(spec, target, dt, pos, device=device, phi=phi, x=x, trig=trig, memo=memo)
                else:
                    m = measure_impl(spec, impl, dt, pos, device=device, seed=i, phi=phi)
                for src in SOURCES:
                    sw.table[dt][src].add(pos, *m[src])
                    sw.plot[dt][src].add(pos, *m[src])
            if bar is not None:
                bar.advance(task)
    finally:
        if bar is not None:
            bar.stop()
    sw.seconds = time.perf_counter() - t0
    return sw


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
    from rich.table import Table

    rows = sw.rows()
    for dt in sw.dtypes:
        t = Table(title=f"{sw.target} · {dt} · {sw.device} · {sw.spec.describe()}", show_edge=False)
        for col in ("positions", "source", "max", "mean", "max ulps", "mean ulps", "bound", "≤ bound"):
            t.add_column(col, justify="left" if col in ("positions", "source") else "right", no_wrap=True)
        bands = sorted({(r["band_lo"], r["band_hi"]) for r in rows if r["dtype"] == dt})
        for lo, hi in bands:
            for r in (r for r in rows if r["dtype"] == dt and r["band_lo"] == lo):
                mark = "—" if r["within_bound"] is None else ("yes" if r["within_bound"] else "[red]NO[/]")
                t.add_row(f"{lo}–{hi - 1}" if r["source"] == "angle" else "", r["source"], _fmt(r["max"]), _fmt(r["mean"]),
                          _fmt(r["max_ulps"]), _fmt(r["mean_ulps"]), _fmt(r["bound"]), mark)
            t.add_section()
        console.print(t)
    console.print("angle in rad; other sources relative to the pair norm (score: to |q||k|); ulps of 1 in the dtype")


def _fmt(v: float) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1e}"


def _svg(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    return buf.getvalue()


def _mpl() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ropecheck"
    import matplotlib.pyplot as plt

    return plt


def render_plot(sweeps: list[Sweep], source: str = "output") -> bytes:
    """Error vs position (log-log), one line per (policy, dtype); the careful bound dashed."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for sw in sweeps:
        for dt in sw.dtypes:
            agg = sw.plot[dt][source]
            centres = np.maximum(agg.edges[1:] - 1, 1)
            ok = ~np.isnan(agg.mx) & (agg.mx > 0)
            ax.plot(centres[ok], agg.mx[ok], marker=".", label=f"{sw.target} {dt}")
            if sw.careful[dt] and len(sweeps) == 1:
                ax.plot(centres, error_bound(sw.spec, dt, centres, kind=source, policy_name=sw.target), "--", color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("position m")
    ax.set_ylabel(f"max {source} error" + (" (rad)" if source == "angle" else " (relative to pair norm)"))
    ax.set_title(f"{source} error vs position (dashed: error-model bound)\n{sweeps[0].spec.describe()}", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return _svg(fig)


def violation_plot(curve: dict[str, Any]) -> bytes:
    """The relative-position violation vs context length (log-log)."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for label, ys in curve["curves"].items():
        ax.plot(curve["lengths"], ys, marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("context length L")
    ax.set_ylabel("max |s(m, m-1) - s(1, 0)| / (|q||k|)")
    ax.set_title("relative-position violation (fixed random q/k)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return _svg(fig)
