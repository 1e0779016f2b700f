"""``ropecheck report``: the main job -- run every check ropecheck has and write ``reports/``.

The checks are collected from the engines (each returns named verdicts with evidence);
rendering is pure and files are written atomically, so an interrupted run leaves the
previous report intact.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._cli import EXIT_FAIL, EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="run every check and write the reports/ folder (the main job)",
        description="Run every check ropecheck has and write Markdown and JSON reports.",
    )
    p.add_argument("--out", default="reports", metavar="DIR", help="output folder (default: reports)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ._io import write_text_atomic
    from ._selfcheck import reference_checks, render_reference_markdown

    console = Console()
    out = Path(args.out)
    results = []
    with console.status("checking the fp64 reference") as status:
        for res in reference_checks():
            status.update(f"checked {res.name}")
            results.append(res)
    write_text_atomic(out / "reference.md", render_reference_markdown(results))
    table = Table(title="ropecheck report", show_edge=False)
    table.add_column("check")
    table.add_column("verdict")
    table.add_column("evidence")
    for res in results:
        table.add_row(res.name, "[green]PASS[/]" if res.passed else "[red]FAIL[/]", res.evidence)
    console.print(table)
    console.print(f"wrote {out / 'reference.md'}")
    return EXIT_OK if all(r.passed for r in results) else EXIT_FAIL
