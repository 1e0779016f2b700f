"""``ropecheck prove``: run the symbolic proofs and write ``reports/proofs/``.

Writes one Markdown page per theorem (every step in LaTeX, its verdict and the rewrite that
decided it) and ``index.md`` with the summary table (no times, so the page is the same on every run and
machine: they are printed, and ``--json`` adds the full data with every step's time). The pages are the ones
``ropecheck report`` writes, so either command leaves ``reports/proofs/`` consistent. Exit 0
when every theorem reaches its intended verdict (the intended refutations included), 1
otherwise, 2 for a usage error.

Design constraints: proving and rendering live in :mod:`ropecheck.symbolic`; this module
only selects, times and writes: every page is rendered first, then the folder is replaced in
one atomic step (:func:`ropecheck.io.replace_tree`; the pages of theorems not run this time are
kept), so a Ctrl-C or a kill leaves the old pages or the new ones, never a mix.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..io import replace_tree
from ..proofs import FAMILIES, run_proofs
from ..proofs.relative_position_general import MAX_CONCRETE_D
from ..symbolic import (
    decay_svg,
    proofs_to_json,
    render_certificates_markdown,
    render_index_markdown,
    render_proof_markdown,
)
from ..symbolic.coq.certify import (
    CertificateResult,
    certificate_files,
    certificate_index,
    certify,
    default_certificate_dir,
    find_coqc,
    missing_coqc_advice,
)
from ..symbolic.pages.latexdoc import render_proofs_latex
from ..version import __version__
from .args import EXIT_FAIL, EXIT_OK, json_text, write_json

__all__ = ["DEFAULT_OUT", "add_parser", "coq_href", "run"]

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
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"output folder (default {DEFAULT_OUT}): new, empty, or one ropecheck wrote",
    )
    p.add_argument(
        "--json", nargs="?", const="", metavar="PATH", help="also write JSON (default DIR/proofs.json; '-' for stdout)"
    )
    p.add_argument("--no-write", action="store_true", help="print the verdicts only; write nothing")
    p.add_argument("--list", action="store_true", help="list the families and theorems, then exit")
    p.add_argument(
        "--certify",
        action="store_true",
        help="also check the Coq certificates (proofs/coq/*.v) with coqc: CERTIFIED beside PROVED",
    )
    p.add_argument(
        "--certificates",
        nargs="+",
        metavar="PATH",
        help="with --certify: .v files or folders of them to check (default: the installed proofs/coq)",
    )
    p.set_defaults(run=run, outputs=[("--out", "out", "tree", "no_write"), ("--json", "json", False, None)])


def run(args: argparse.Namespace) -> int:

    if args.list:
        for family, (num, desc, builders) in FAMILIES.items():
            print(f"{num}. {family}: {desc} -- " + ", ".join(b.__name__ for b in builders))
        return EXIT_OK
    if args.all and args.names:
        raise UsageError("give theorem names or --all, not both")
    if not args.all and not args.names and args.d is None and not args.certify:
        raise UsageError("give theorem names, --all, --d N or --certify (see ropecheck prove --list)")
    if args.certificates and not args.certify:
        raise UsageError("--certificates goes with --certify")
    coq: tuple[str, list[Path]] | None = None
    if args.certify:
        exe = find_coqc()
        if exe is None:
            raise UsageError(f"--certify needs coqc: {missing_coqc_advice()}")
        files = _certificate_paths(args.certificates)  # a missing file or folder: a usage error, before any work
        coq = (exe, files)
    if args.d is not None and (args.d < 2 or args.d % 2 or args.d > MAX_CONCRETE_D):
        shown = str(args.d) if args.d.bit_length() < 1000 else "a number with hundreds of digits"
        raise UsageError(f"--d must be an even integer in 2..{MAX_CONCRETE_D}, got {shown}")
    t0 = time.perf_counter()
    names = None if args.all else list(args.names)
    proofs = run_proofs(names, d=args.d) if (args.all or names or args.d is not None) else []
    total = time.perf_counter() - t0
    numbers = {f: num for f, (num, _, _) in FAMILIES.items()}
    for p in proofs:
        print(
            f"{p.verdict.value:<9} {'' if p.as_intended else '(NOT AS INTENDED) '}{p.name:<28} "
            f"{p.scope or '?':<30} {p.seconds:7.3f} s"
            + "".join(f"  [{s.name}: {s.verdict.value}, as intended]" for s in p.intended_refutations if s.as_intended)
        )
    finite = [p.name for p in proofs if not p.every_d]
    if args.all:
        print(
            "every theorem holds for every head dimension"
            if not finite
            else f"{len(finite)} of {len(proofs)} rest on finitely many d or none: {', '.join(finite)}"
        )
    certified_ok = True
    index = _installed_index()
    pages: dict[str, str] = {}  # relative to --out; written in one step at the end
    if coq is not None:
        exe, files = coq
        t1 = time.perf_counter()
        results = certify(files, coqc=exe)
        print(f"coq: {len(results)} certificate(s) checked by coqc {results[0].coqc_version if results else '?'} "
              f"in {time.perf_counter() - t1:.1f} s")  # fmt: skip
        for r in results:
            where = f"  {r.file.name}:{r.error_line}: {r.error_message}" if r.error_line is not None else ""
            why = "" if not r.reasons else "  " + "; ".join(r.reasons)
            print(f"{r.status.value:<11} {r.file.name:<24} {r.seconds:6.1f} s{where}{why}")
        certified_ok = all(r.status.value == "CERTIFIED" for r in results)
        _print_twins(proofs, results, index)
        if not args.no_write:
            pages["certificates.md"] = render_certificates_markdown(
                results, index, families=list(FAMILIES), coq_href=coq_href(Path(args.out))
            )
    if not args.no_write and proofs:
        pages.update(_pages(proofs, Path(args.out), numbers, args.all, index))
    data = proofs_to_json(proofs, total_seconds=total) if args.json is not None else None
    if args.json == "" and not args.no_write:  # the default DIR/proofs.json goes with the pages
        pages["proofs.json"] = json_text(data)
    elif args.json is not None:
        write_json(data, args.json or str(Path(args.out) / "proofs.json"))
    if pages:
        replace_tree(args.out, pages, keep=lambda rel: True, flag="--out")
    if not args.no_write and proofs:
        print(f"wrote {len(proofs)} theorem page(s) and index.md to {args.out}")
    return EXIT_OK if all(p.as_intended for p in proofs) and certified_ok else EXIT_FAIL


def coq_href(out: Path) -> str:
    """The installed Coq folder relative to ``out``, as a page written there links it (``/`` separators)."""
    folder = default_certificate_dir()
    if folder is None:
        return "../../proofs/coq"  # where a checkout keeps it beside reports/proofs/
    return Path(os.path.relpath(folder.resolve(), out.resolve())).as_posix()


def _certificate_paths(paths: list[str] | None) -> list[Path]:
    """The .v files to check: the installed certificates, or the files and folders given."""
    if not paths:
        return certificate_files()
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.glob("*.v"))
            if not found:
                raise UsageError(f"--certificates {raw}: no .v files in that folder")
            files += found
        elif path.is_file() and path.suffix == ".v":
            files.append(path)
        else:
            raise UsageError(f"--certificates {raw}: not a .v file or a folder of them")
    return files


def _installed_index() -> list[dict[str, Any]]:
    """The certificates' index from the installed proofs/coq (empty where the folder is missing)."""
    try:
        return certificate_index()
    except UsageError:
        return []


def _print_twins(proofs: list[Any], results: list[CertificateResult], index: list[dict[str, Any]]) -> None:
    """Per SymPy theorem: PROVED beside CERTIFIED (or "no certificate")."""
    status = {r.file.name: r.status.value for r in results}
    for p in proofs:
        files = sorted({e["file"] for e in index for t in e["theorems"] if t["sympy_theorem"] == p.name})
        coq = ", ".join(f"{status.get(f, 'NOT_CHECKED')} by {f}" for f in files) or "no certificate"
        print(f"  {p.name:<28} {p.verdict.value} (SymPy); {coq}")


def _pages(
    proofs: list[Any], out: Path, numbers: dict[str, int], full_index: bool, index: list[dict[str, Any]]
) -> dict[str, str]:
    """Every page to write into ``out`` (relative name -> text); nothing is written here."""
    pages: dict[str, str] = {}
    for p in proofs:
        pages[f"{p.name}.md"] = render_proof_markdown(
            p, number=numbers.get(p.family), timings=False, certificates=index
        )
        if p.data.get("decay_curve"):
            pages["decay.svg"] = decay_svg(p.data["decay_curve"])
    if full_index or not (out / "index.md").exists():
        pages["index.md"] = render_index_markdown(proofs, numbers=numbers, timings=False)  # same on every run
    if full_index:  # the LaTeX document holds every theorem, so only a full run rewrites it
        pages["proofs.tex"] = render_proofs_latex(proofs, numbers=numbers, version=__version__)
    return pages
