"""``ropecheck report``: the main job -- prove, check, verify, measure, and write ``reports/``.

Runs every collector (:mod:`ropecheck.report.collect`, :mod:`ropecheck.report.engines`)
under a live progress display, then renders the report (pure) and writes the folder as one
atomic replacement (:func:`ropecheck.io.replace_tree`): ``README.md``, ``index.html``,
``report.json``, the detail pages, the SVG plots and the reference pages generated from the
code (``reference/``: :mod:`ropecheck.report.reference`). Exit 0 only if every expected verdict
held.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy
import sympy
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..errors import UsageError
from ..io import replace_tree
from ..report import collect as rc
from ..report import engines as re_
from ..report.axes import collect_axes
from ..report.model import Report, Section
from ..report.reference import REFERENCE_FOLDER, reference_pages
from ..report.render import page_bodies, render_html, render_json, render_readme
from ..report.survey import collect_survey, collect_survey_diffusers, collect_survey_timm
from ..version import __version__
from .args import EXIT_FAIL, EXIT_OK
from .main import build_parser

__all__ = [
    "COLLECTORS",
    "SECTION_FOLDERS",
    "SUMMARY_FILES",
    "add_parser",
    "build_report",
    "report_files",
    "run",
    "write_report",
]

#: The sections, in report order: key, progress label, collector.
COLLECTORS: tuple[tuple[str, str, Callable[..., Section]], ...] = (
    ("reference", "fp64 reference", rc.collect_reference),
    ("schedules", "schedules and layouts", rc.collect_schedules),
    ("proofs", "symbolic proofs", re_.collect_proofs),
    ("certificates", "Coq certificates", re_.collect_certificates),
    ("properties", "property checks", re_.collect_properties),
    ("verify", "verify adapters", re_.collect_verify),
    ("axes", "multi-axis RoPE", collect_axes),
    ("precision", "precision sweeps", re_.collect_precision),
    ("survey", "survey of transformers", collect_survey),
    ("survey_diffusers", "survey of diffusers", collect_survey_diffusers),
    ("survey_timm", "survey of timm", collect_survey_timm),
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="run every proof, check, verification and sweep and write reports/ (the main job)",
        description="Run every proof, the property checks on the reference, verify on every installed adapter and "
        "the precision sweeps, then write reports/: README.md, index.html (self-contained), report.json, "
        "detail pages and SVG plots. Exit 0 only if every expected verdict held.",
    )
    p.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="output folder (default: reports): new, empty, or one ropecheck wrote",
    )
    p.add_argument("--only", metavar="KEYS", help="comma-separated sections to run (default: all)")
    p.set_defaults(run=run, outputs=[("--out", "out", "tree", None)])


def _versions() -> dict[str, str]:
    out = {
        "ropecheck": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "sympy": sympy.__version__,
    }
    try:
        import torch  # heavy: imported when used

        out["torch"] = torch.__version__
        out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu only (no CUDA)"
    except ImportError:  # pragma: no cover - torch is a core dependency
        out["torch"] = "not installed"
    return out


def build_report(progress_factory: Callable[[str, str], Callable[[str], None]], only: set[str] | None = None) -> Report:
    """Run the collectors; ``progress_factory(key, label)`` gives each its progress callback."""
    sections, timings = [], {}
    start = time.perf_counter()
    for key, label, collect in COLLECTORS:
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


#: The folder each section owns under the report folder (sections without one own only their pages).
SECTION_FOLDERS: dict[str, str] = {
    "proofs": "proofs/",
    "verify": "verify/",
    "precision": "precision/",
    "survey": "survey/",
    "survey_diffusers": "survey_diffusers/",
    "survey_timm": "survey_timm/",
}
#: Folders of the report folder that another command writes (with its own manifest), kept as they are by every
#: report run: ``gpu/`` is written by the GPU run (:mod:`ropecheck.report.gpu`), on a machine with CUDA.
OTHER_WRITERS: tuple[str, ...] = ("gpu/",)
#: The summary files every run writes at the top of the report folder.
SUMMARY_FILES = ("README.md", "index.html", "report.json")


def report_files(report: Report) -> dict[str, str | bytes]:
    """Every file of the report: relative path -> content (rendering only, nothing written)."""
    files: dict[str, str | bytes] = {}
    for section in report.sections:
        if section.carried:  # its files stay on disk as they are
            continue
        for page in section.pages:
            files[page.path] = page.markdown
        for plot in section.plots:
            files[plot.file] = plot.svg.rstrip("\n") + "\n"
        files.update(section.files)
    files.update(reference_pages(build_parser()))  # generated from the code: cheap, so every run writes them
    files["README.md"] = render_readme(report)
    files["report.json"] = render_json(report)
    files["index.html"] = render_html(report)
    return files


def _previously_owned(out: Path, keys: set[str]) -> set[str]:
    """The files the last report in ``out`` listed for the sections being rerun (from its report.json)."""
    try:
        old = json.loads((out / "report.json").read_text(encoding="utf-8"))
        sections = [s for s in old.get("sections", []) if s.get("key") in keys]
        return {
            p
            for s in sections
            for p in [
                *(x["path"] for x in s.get("pages", [])),
                *(x["file"] for x in s.get("plots", [])),
                *s.get("files", []),
            ]
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return set()


def carry_over(report: Report, out: Path) -> Report:
    """A partial run's report with the other sections of the report already in ``out`` carried over.

    ``ropecheck report --only proofs`` must not turn a full report's summary pages into
    partial ones: the sections it did not run keep their rows, plots and pages (from the old
    ``report.json``, the files, and the page bodies of the old ``index.html``), in report order.
    """
    try:
        old = json.loads((out / "report.json").read_text(encoding="utf-8"))
        entries = {e["key"]: e for e in old["sections"]}
    except (OSError, ValueError, KeyError, TypeError):
        return report  # nothing (readable) to carry over
    try:
        bodies = page_bodies((out / "index.html").read_text(encoding="utf-8"))
    except OSError:
        bodies = {}

    def read(rel: str) -> str | None:
        try:
            return (out / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    ran = {s.key: s for s in report.sections}
    merged: list[Section] = []
    for key, _, _ in COLLECTORS:
        if key in ran:
            merged.append(ran[key])
        elif key in entries:
            try:
                section = Section.from_dict(entries[key], read)
            except (KeyError, TypeError):
                continue
            section.pages = [dataclasses.replace(page, html=bodies.get(page.path)) for page in section.pages]
            merged.append(section)
    carried = [s.title for s in merged if s.carried]
    header = dict(report.header)
    if carried:
        header["partial run"] = (
            f"ran {', '.join(s.title for s in merged if not s.carried)}; carried over from the report of "
            f"{old.get('header', {}).get('generated', 'an earlier run')}: {', '.join(carried)}"
        )
    return Report(header=header, sections=merged)


def write_report(report: Report, out: Path) -> list[str]:
    """Write the report into ``out`` as one atomic replacement of the folder; returns the paths written.

    Only a folder ropecheck can tell is its own is replaced (:func:`ropecheck.io.replace_tree`),
    and in it only the files ropecheck wrote: a full run replaces all of them, so a page whose
    adapter was skipped this time is removed rather than left behind; a partial run replaces
    the summary files and every file the previous report listed for the sections that ran,
    and keeps the files of the sections carried over, wherever they are (``proofs/certificates.md``
    belongs to the certificates section). Files ropecheck did not write (``benchmarks/``, a
    user's notes) are kept as they are.
    """
    files = report_files(report)
    keys = {s.key for s in report.sections if not s.carried}
    partial = any(s.carried for s in report.sections)
    stale = _previously_owned(out, keys)

    def keep(rel: str) -> bool:  # the reference pages are always rewritten: a page no longer written goes
        if rel.startswith(OTHER_WRITERS):
            return True
        return partial and rel not in SUMMARY_FILES and rel not in stale and not rel.startswith(REFERENCE_FOLDER)

    replace_tree(out, files, keep=keep)
    return sorted(files)


def run(args: argparse.Namespace) -> int:
    only = None
    if args.only:
        only = {k.strip() for k in args.only.split(",") if k.strip()}
        known = {k for k, _, _ in COLLECTORS}
        if not only:
            raise UsageError(f"--only needs at least one section; known: {', '.join(k for k, _, _ in COLLECTORS)}")
        if not only <= known:
            raise UsageError(
                f"--only: unknown section(s) {', '.join(sorted(only - known))}; known: {', '.join(sorted(known))}"
            )
    console = Console(stderr=True)
    total = len(only) if only else len(COLLECTORS)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} sections"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
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
    if only:
        report = carry_over(report, out)
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
                out_console.print(
                    Text.assemble(
                        ("unexpected", "red"),
                        f" {s.title}: {r.name}: {r.verdict} (expected {r.expected}) — {r.evidence}",
                    )
                )
    out_console.print(f"wrote {len(written)} files to {out}/ in {report.header['timings']['whole run']:.1f} s")
    return EXIT_OK if report.held else EXIT_FAIL
