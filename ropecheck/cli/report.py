"""``ropecheck report``: the main job -- prove, check, verify, measure, and write ``reports/``.

Runs every collector (see ``_report_collect.py``) under a live progress display, then
renders the report (pure) and writes it atomically: ``README.md``, ``index.html``,
``report.json``, the detail pages and the SVG plots. Exit 0 only if every expected
verdict held.
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from .args import EXIT_FAIL, EXIT_OK
from ..version import __version__
from ..errors import UsageError
from ..io import write_text_atomic
from ..report import collect as rc
from ..report import engines as re_
from ..report.model import Report
from ..report.render import render_html, render_json, render_readme

__all__ = ["add_parser", "run", "build_report", "COLLECTORS"]


def _collectors() -> list[tuple[str, str, Callable[..., Any]]]:

    return [
        ("reference", "fp64 reference", rc.collect_reference),
        ("schedules", "schedules and layouts", rc.collect_schedules),
        ("proofs", "symbolic proofs", re_.collect_proofs),
        ("properties", "property checks", re_.collect_properties),
        ("verify", "verify adapters", re_.collect_verify),
        ("precision", "precision sweeps", re_.collect_precision),
    ]


COLLECTORS = _collectors


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="run every proof, check, verification and sweep and write reports/ (the main job)",
        description="Run every proof, the property checks on the reference, verify on every installed adapter and "
        "the precision sweeps, then write reports/: README.md, index.html (self-contained), report.json, "
        "detail pages and SVG plots. Exit 0 only if every expected verdict held.",
    )
    p.add_argument("--out", default="reports", metavar="DIR", help="output folder (default: reports)")
    p.add_argument("--only", metavar="KEYS", help="comma-separated sections to run (default: all)")
    p.set_defaults(run=run)


def _versions() -> dict[str, str]:
    import numpy
    import sympy


    out = {"ropecheck": __version__, "python": platform.python_version(), "numpy": numpy.__version__, "sympy": sympy.__version__}
    try:
        import torch

        out["torch"] = torch.__version__
        out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu only (no CUDA)"
    except ImportError:  # pragma: no cover - torch is a core dependency
        out["torch"] = "not installed"
    return out


def build_report(progress_factory: Callable[[str, str], Callable[[str], None]], only: set[str] | None = None) -> Any:
    """Run the collectors; ``progress_factory(key, label)`` gives each its progress callback."""
    import os


    sections, timings = [], {}
    start = time.perf_counter()
    for key, label, collect in _collectors():
        if only and key not in only:
            continue
        t0 = time.perf_counter()
        section = collect(progress_factory(key, label))
        sections.append(section)
        timings[label] = time.perf_counter() - t0
        timings.update(section.timings)
    timings["whole run"] = time.perf_counter() - start
    header = {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        **_versions(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {platform.system()} {platform.release()}",
        "timings": timings,
    }
    return Report(header=header, sections=sections)


def write_report(report: Any, out: Path) -> list[Path]:
    """Render and write every file of the report atomically; returns the paths written."""

    files: dict[Path, str] = {}
    for section in report.sections:
        for page in section.pages:
            files[out / page.path] = page.markdown
        for plot in section.plots:
            files[out / plot.file] = plot.svg.rstrip("\n") + "\n"
        for path, text in section.files.items():
            files[out / path] = text
    files[out / "README.md"] = render_readme(report)
    files[out / "report.json"] = render_json(report)
    files[out / "index.html"] = render_html(report)
    for path, text in files.items():
        write_text_atomic(path, text)
    return list(files)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    from rich.table import Table


    only = None
    if args.only:
        only = {k.strip() for k in args.only.split(",") if k.strip()}
        known = {k for k, _, _ in _collectors()}
        if not only <= known:
            raise UsageError(f"--only: unknown section(s) {', '.join(sorted(only - known))}; known: {', '.join(sorted(known))}")
    console = Console(stderr=True)
    total = len(only) if only else len(_collectors())
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} sections"), TimeElapsedColumn(), console=console, transient=False) as bar:
        task = bar.add_task("starting", total=total)

        def factory(key: str, label: str) -> Callable[[str], None]:
            bar.update(task, description=f"[bold]{label}[/]")

            def progress(message: str) -> None:
                bar.update(task, description=f"[bold]{label}[/]: {message[:70]}")

            return progress

        def advancing_factory(key: str, label: str) -> Callable[[str], None]:
            if bar.tasks[0].description != "starting":
                bar.advance(task)
            return factory(key, label)

        report = build_report(advancing_factory, only)
        bar.update(task, completed=total, description="[bold]done[/]")
    out = Path(args.out)
    written = write_report(report, out)
    summary = Table(title="ropecheck report", show_edge=False)
    for col in ("section", "verdicts", "held"):
        summary.add_column(col)
    for s in report.sections:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(s.counts().items()))
        summary.add_row(s.title, counts, "[green]yes[/]" if s.held else "[red]no[/]")
    out_console = Console()
    out_console.print(summary)
    for s in report.sections:
        for r in s.rows:
            if not r.held:
                out_console.print(f"[red]unexpected[/] {s.title}: {r.name}: {r.verdict} (expected {r.expected}) — {r.evidence}")
    out_console.print(f"wrote {len(written)} files to {out}/ in {report.header['timings']['whole run']:.1f} s")
    return EXIT_OK if report.held else EXIT_FAIL
