"""``ropecheck audit FILE``: decide every step of a derivation written in Markdown or LaTeX.

Reads the document's display equations, cuts chains into steps, carries the document's
definitions into later steps and decides each step (PROVED, REFUTED with a counterexample,
UNDECIDED, or UNREAD with why) within a time limit per step (``--timeout``) and a time limit
for the whole document (``--document-timeout``, default 600 s): once that is reached, every
step left is UNDECIDED ("document time limit reached") and the output says how many. FILE is
a regular file of at most :data:`MAX_AUDIT_BYTES` (a FIFO, a device, a socket or a folder is
refused without blocking). Text on stdout; ``--md``, ``--html`` and ``--json`` write reports.
Exit codes: 0 no step REFUTED, 1 a step REFUTED, 2 a usage error (a missing or unreadable
file, a bad flag) -- one line on stderr.

Design constraints: reading and deciding are :mod:`ropecheck.symbolic.audit.steps`, rendering
:mod:`ropecheck.symbolic.audit.render`; this module reads the file, shows progress on stderr
(per step, when stderr is a terminal or with ``-v``) and writes the outputs.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from ..errors import UsageError
from ..inputs import read_input
from ..io import write_output
from ..report.render import CSS
from ..symbolic import MAX_TIMEOUT
from ..symbolic.audit.render import render_audit_html, render_audit_markdown, render_audit_text
from ..symbolic.audit.run import audit_document
from ..symbolic.audit.steps import DOCUMENT_TIMEOUT, STEP_TIMEOUT, AuditResult, AuditStep
from .args import write_json
from .claim import add_domain_arguments, domains_from_args

__all__ = ["MAX_AUDIT_BYTES", "add_parser", "read_document", "run", "time_limit_line"]

#: The largest document audited: a derivation is a few pages, not a book.
MAX_AUDIT_BYTES = 4 << 20

_EPILOG = """examples:
  ropecheck audit notes/rope.md                          # text on stdout
  ropecheck audit paper/appendix.tex --md audit.md --html audit.html --json audit.json
  ropecheck audit notes/rope.md --complex q,k --timeout 10
  ropecheck audit book.tex --document-timeout 3600       # a long document: up to an hour in all

What is read: $$...$$, \\[...\\], \\begin{equation|align|gather|multline}, ```math fences;
chains A = B = C and rows that start with '=' (or '&=') are consecutive steps. A name the
document defines (q = q^{(1)} + i q^{(2)}, \\theta_i = 10000^{-2(i-1)/d}, f_q(x_m, m) = ...,
R_m = \\begin{pmatrix}...) stands for its definition in later steps. Names are real, m and n
integers, unless declared (flags, or 'q, k \\in \\mathbb{C}' in the document); a name written
conjugated (\\bar q, q^*) is complex in the whole document unless declared.
verdicts: PROVED (a rewrite reduced it to 0), REFUTED (a counterexample, checked exactly),
UNDECIDED (neither, or a limit), UNREAD (the reader could not read it; never REFUTED).
limits: --timeout per step, --document-timeout for the whole document (default 600 s, 0 for
none): steps left when it is reached are UNDECIDED ("document time limit reached"), never
decided, and the summary says how many. FILE is a regular file of at most 4 MiB.
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
    p.add_argument(
        "--document-timeout",
        type=float,
        default=DOCUMENT_TIMEOUT,
        metavar="SECONDS",
        help="time limit of the whole document: past it every step left is UNDECIDED (default "
        f"{DOCUMENT_TIMEOUT:g}; 0 for no limit)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="progress per step on stderr; full steps and domains")
    add_domain_arguments(p)
    p.set_defaults(
        run=run,
        latex=None,
        outputs=[("--md", "md", False, None), ("--html", "html", False, None), ("--json", "json", False, None)],
    )


def read_document(path: str) -> str:
    """The document's text, or a one-line :class:`UsageError` naming FILE and saying why it cannot be read."""
    raw = read_input(path, name="FILE", limit=MAX_AUDIT_BYTES, hint="split the document")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"FILE {path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def time_limit_line(result: AuditResult) -> str | None:
    """The line that says the document's time limit was reached and how many steps it left; None if not."""
    left = result.left_by_time_limit
    if not left or result.document_timeout is None:
        return None
    return (
        f"document time limit of {result.document_timeout:g} s reached: {left} of {len(result.steps)} steps left "
        "undecided (not proved, not refuted); raise --document-timeout (0 for no limit) to decide them"
    )


def run(args: argparse.Namespace) -> int:
    if not (0 < args.timeout <= MAX_TIMEOUT) or math.isnan(args.timeout):
        raise UsageError(f"--timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {args.timeout:g}")
    if not (math.isfinite(args.document_timeout) and args.document_timeout >= 0):
        raise UsageError(
            f"--document-timeout must be a finite number of seconds >= 0 (0: no limit), got {args.document_timeout:g}"
        )
    domains = domains_from_args(args)
    text = read_document(args.file)
    to_stdout = "-" in (args.md, args.json, args.html)
    show_progress = args.verbose or sys.stderr.isatty()

    def progress(step: AuditStep, number: int) -> None:
        print(f"step {number}, line {step.lines}: {step.status} ({step.seconds:.2f} s)", file=sys.stderr, flush=True)

    result = audit_document(
        text, path=args.file, latex=args.latex, domains=domains, timeout=args.timeout,
        progress=progress if show_progress else None, document_timeout=args.document_timeout or None,
    )  # fmt: skip
    report = render_audit_text(result, verbose=args.verbose)
    print(report, end="", file=sys.stderr if to_stdout else sys.stdout)
    stopped = time_limit_line(result)
    if stopped is not None:
        print(stopped, file=sys.stderr if to_stdout else sys.stdout)
    if args.json:
        write_json(result.to_dict(), args.json)
    if args.md:
        write_output(args.md, render_audit_markdown(result))
    if args.html:
        write_output(args.html, render_audit_html(result, css=CSS))
    return result.exit_code
