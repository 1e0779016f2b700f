"""``ropecheck audit FILE``: decide every step of a derivation written in Markdown or LaTeX.

Reads the document's display equations, cuts chains into steps, carries the document's
definitions into later steps and decides each step (PROVED, REFUTED with a counterexample,
UNDECIDED, or UNREAD with why) within a time limit per step. Text on stdout; ``--md``,
``--html`` and ``--json`` write reports. Exit codes: 0 no step REFUTED, 1 a step REFUTED,
2 a usage error (a missing or unreadable file, a bad flag) -- one line on stderr.

Design constraints: reading and deciding are :mod:`ropecheck.symbolic.audit`, rendering
:mod:`ropecheck.symbolic.auditrender`; this module reads the file, shows progress on stderr
(per step, when stderr is a terminal or with ``-v``) and writes the outputs.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..io import write_output
from ..report.render import CSS
from ..symbolic import MAX_TIMEOUT
from ..symbolic.audit import STEP_TIMEOUT, AuditStep, audit_document
from ..symbolic.auditrender import render_audit_html, render_audit_markdown, render_audit_text
from .args import write_json
from .claim import add_domain_arguments, domains_from_args

__all__ = ["MAX_AUDIT_BYTES", "add_parser", "read_document", "run"]

#: The largest document audited: a derivation is a few pages, not a book.
MAX_AUDIT_BYTES = 4 << 20

_EPILOG = """examples:
  ropecheck audit notes/rope.md                          # text on stdout
  ropecheck audit paper/appendix.tex --md audit.md --html audit.html --json audit.json
  ropecheck audit notes/rope.md --complex q,k --timeout 10

What is read: $$...$$, \\[...\\], \\begin{equation|align|gather|multline}, ```math fences;
chains A = B = C and rows that start with '=' (or '&=') are consecutive steps. A name the
document defines (q = q^{(1)} + i q^{(2)}, \\theta_i = 10000^{-2(i-1)/d}, f_q(x_m, m) = ...,
R_m = \\begin{pmatrix}...) stands for its definition in later steps. Names are real, m and n
integers, unless declared (flags, or 'q, k \\in \\mathbb{C}' in the document).
verdicts: PROVED (a rewrite reduced it to 0), REFUTED (a counterexample, checked exactly),
UNDECIDED (neither, or a limit), UNREAD (the reader could not read it; never REFUTED).
exit codes: 0 no step REFUTED, 1 a step REFUTED, 2 a usage error (missing or unreadable file)."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "audit",
        help="decide every step of a derivation in a Markdown or LaTeX file",
        description="Read every display equation of FILE, split chains into steps, carry the document's "
        "definitions forward and decide each step: PROVED, REFUTED (with a counterexample), UNDECIDED or UNREAD.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="a Markdown (.md) or LaTeX (.tex) document")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--latex", dest="latex", action="store_const", const=True, help="read FILE as LaTeX")
    g.add_argument("--markdown", dest="latex", action="store_const", const=False, help="read FILE as Markdown")
    p.add_argument("--md", metavar="PATH", help="also write the report as Markdown ('-' for stdout)")
    p.add_argument("--html", metavar="PATH", help="also write the report as one self-contained HTML page")
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON ('-' for stdout)")
    p.add_argument(
        "--timeout",
        type=float,
        default=STEP_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit of each step: past it the step is UNDECIDED (default {STEP_TIMEOUT:g}, "
        f"at most {MAX_TIMEOUT:g})",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="progress per step on stderr; full steps and domains")
    add_domain_arguments(p)
    p.set_defaults(
        run=run,
        latex=None,
        outputs=[("--md", "md", False, None), ("--html", "html", False, None), ("--json", "json", False, None)],
    )


def read_document(path: str) -> str:
    """The document's text, or a one-line :class:`UsageError` saying why it cannot be read."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file")
    if p.is_dir():
        raise UsageError(f"{path}: is a folder; give a Markdown or LaTeX file")
    try:
        size = p.stat().st_size
        if size > MAX_AUDIT_BYTES:
            raise UsageError(f"{path}: {size} bytes; the limit is {MAX_AUDIT_BYTES >> 20} MiB (split the document)")
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def run(args: argparse.Namespace) -> int:
    if not (0 < args.timeout <= MAX_TIMEOUT) or math.isnan(args.timeout):
        raise UsageError(f"--timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {args.timeout:g}")
    domains = domains_from_args(args)
    text = read_document(args.file)
    to_stdout = "-" in (args.md, args.json, args.html)
    show_progress = args.verbose or sys.stderr.isatty()

    def progress(step: AuditStep, number: int) -> None:
        print(f"step {number}, line {step.lines}: {step.status} ({step.seconds:.2f} s)", file=sys.stderr, flush=True)

    result = audit_document(
        text, path=args.file, latex=args.latex, domains=domains, timeout=args.timeout,
        progress=progress if show_progress else None,
    )  # fmt: skip
    report = render_audit_text(result, verbose=args.verbose)
    print(report, end="", file=sys.stderr if to_stdout else sys.stdout)
    if args.json:
        write_json(result.to_dict(), args.json)
    if args.md:
        write_output(args.md, render_audit_markdown(result))
    if args.html:
        write_output(args.html, render_audit_html(result, css=CSS))
    return result.exit_code
