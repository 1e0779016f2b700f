"""``ropecheck claim``: decide a claimed RoPE identity -- PROVED, REFUTED or UNDECIDED.

Exit codes: 0 PROVED, 1 REFUTED (a counterexample is printed), 3 UNDECIDED (also: a limit of
:mod:`ropecheck.symbolic.readers.limits` was reached -- the time limit ``--timeout``, the memory limit,
an exponent, a number, a matrix size or power, the expansion size -- and the output names
it), 2 a claim that cannot be parsed or is too long or too deeply nested to read, or a bad
flag (one line on stderr, with the column of the problem in the claim).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..symbolic import (
    CLAIM_MEMORY_LIMIT,
    CLAIM_TIMEOUT,
    DOMAINS,
    MAX_CLAIM_CHARS,
    MAX_EXPONENT,
    MAX_MATRIX_POWER,
    MAX_MATRIX_SIZE,
    MAX_NESTING,
    MAX_TERMS,
    MAX_TIMEOUT,
    check_claim,
    expr_text,
    parse_domain_flags,
    render_counterexample_text,
)
from .args import write_json

__all__ = ["add_domain_arguments", "add_parser", "domains_from_args", "run"]

_EPILOG = f"""examples:
  ropecheck claim "R(a).T * R(b) == R(b - a)"                            # PROVED
  ropecheck claim "re((q0+I*q1)*(k0-I*k1)*exp(I*(m-n)*t)) == (q0*k0 + q1*k1)*cos((m-n)*t)"
                                                  # REFUTED: the sin((m-n)t) term is missing
  ropecheck claim '\\cos(m\\theta)\\cos(n\\theta) + \\sin(m\\theta)\\sin(n\\theta) = \\cos((m-n)\\theta)'

  ropecheck claim --complex z "conjugate(z) == z"                        # REFUTED: z = 1 + I
  ropecheck claim 'q, k \\in \\mathbb{{C}}: \\Re[q k^*] = q k'               # REFUTED over C (PROVED over R)

SymPy syntax ('==', or one '='): I, re, im, conjugate, Abs, exp, cos, sin, tan, sqrt, log,
pi, E, eye(n), Matrix, R(phi) (the 2x2 rotation),
diag(A, B, ...) (block-diagonal, multi-axis RoPE) and inner(u, v) are known; '^' is a power;
M.T, M.H (conjugate transpose), u.dot(v), <u, v> (real inner product) and v[0] are read;
a call of a name close to a known one (Re(x), cosine(x)) is an error naming it; other f(x)
are undefined functions; matrices compare entrywise.
LaTeX (any claim with a backslash or braces): one '=' between the sides; i is the
imaginary unit, e is Euler's number; \\begin{{pmatrix}} (matrix, bmatrix, \\left( ... \\right)),
tuples (a, b)^T, \\langle a, b\\rangle and <a, b>, \\Re[...]/Re[...]/\\operatorname{{Re}},
k^*/\\bar{{k}}/\\overline{{k}}, ^T/^\\top, ^H, \\odot/\\otimes (elementwise), cos(x) without a
backslash, e^{{i m\\theta}} and \\sum_{{i=0}}^{{N}} x_i are understood; \\cdots is refused, and a
trig argument without parentheses that two readings tell apart is refused as ambiguous.
domains: free names are real unless stated: --complex q,k --integer m,n --positive theta
(--real, --natural too), or a leading clause 'q, k \\in \\mathbb{{C}}:' / 'q, k in C:'; the
verdict lists the domains it was decided under.
limits: a claim over {MAX_CLAIM_CHARS} characters or nested over {MAX_NESTING} deep is not read (exit 2);
exponents over {MAX_EXPONENT}, matrices over {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}, matrix powers over {MAX_MATRIX_POWER},
an expansion over about {MAX_TERMS} terms, the time limit (--timeout) and a memory limit of
{CLAIM_MEMORY_LIMIT >> 30} GiB make it UNDECIDED, naming the limit (exit 3).
exit codes: 0 PROVED, 1 REFUTED, 3 UNDECIDED, 2 the claim cannot be read or a flag is wrong."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "claim",
        help="decide a claimed identity: PROVED, REFUTED with a counterexample, or UNDECIDED",
        description="Decide a claimed identity written in SymPy syntax ('LHS == RHS') or LaTeX ('LHS = RHS'). "
        "A proof is an exact rewrite of LHS - RHS to 0; a refutation is an exact counterexample.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("claim", nargs="?", metavar="CLAIM", help='the identity, e.g. "R(a).T * R(b) == R(b - a)"')
    g = p.add_mutually_exclusive_group()
    g.add_argument("--latex", dest="syntax", action="store_const", const="latex", help="read CLAIM as LaTeX")
    g.add_argument("--sympy", dest="syntax", action="store_const", const="sympy", help="read CLAIM as SymPy syntax")
    p.add_argument(
        "--json", nargs="?", const="-", metavar="PATH", help="write the verdict as JSON to PATH (stdout with no PATH)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=CLAIM_TIMEOUT,
        metavar="SECONDS",
        help=f"stop reading and deciding after this many seconds: UNDECIDED (default {CLAIM_TIMEOUT:g}, "
        f"at most {MAX_TIMEOUT:g})",
    )
    add_domain_arguments(p)
    p.set_defaults(run=run, syntax="auto", outputs=[("--json", "json", False, None)])


def add_domain_arguments(p: argparse.ArgumentParser) -> None:
    """``--complex``, ``--real``, ``--integer``, ``--natural``, ``--positive``: comma-separated names."""
    g = p.add_argument_group("domains (every other free name is real)")
    for domain in DOMAINS:
        if " " in domain:
            continue
        g.add_argument(
            f"--{domain}",
            metavar="NAMES",
            action="append",
            help=f"comma-separated names that are {domain} numbers, e.g. --{domain} q,k",
        )


def domains_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The domain flags as one mapping (a name in two compatible flags: integer + positive)."""
    flags = {d: ",".join(getattr(args, d)) for d in DOMAINS if " " not in d and getattr(args, d, None)}
    return parse_domain_flags(**flags)


def run(args: argparse.Namespace) -> int:
    if args.claim is None:
        # `claim --json "LHS == RHS"`: the optional PATH of --json took the claim; JSON goes to stdout
        if args.json not in (None, "-"):
            args.claim, args.json = args.json, "-"
        else:
            raise UsageError('give the claim, e.g. ropecheck claim "R(a).T * R(b) == R(b - a)"')
    if not 0 < args.timeout <= MAX_TIMEOUT:  # also NaN
        raise UsageError(f"--timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {args.timeout:g}")
    domains = domains_from_args(args)
    result = check_claim(args.claim, syntax=args.syntax, timeout=args.timeout, domains=domains)
    if args.json is not None:
        write_json(result.to_dict(), args.json)
        return result.exit_code
    decided = result.verdict.value != "UNDECIDED" and result.method != "counterexample"
    why = f"  [{result.limit_message}]" if result.limit_message else ""
    print(f"{result.verdict.value}" + (f"  (decided by {result.method})" if decided else why))
    print(f"  claim ({result.syntax}): {result.text}")
    if result.lhs is not None:
        print(f"  read as: {expr_text(result.lhs)} == {expr_text(result.rhs)}")
    for reading in result.readings:  # each default reading of the notation this verdict rests on
        print(f"  reading: {reading}")
    if result.domains:
        print(f"  domains: {result.domains_text()}")
    if result.counterexample is not None:
        print("\n".join(render_counterexample_text(result.counterexample)))
    elif result.limit == "time":
        print("  stopped at the time limit; a longer --timeout may decide it; this is not a proof")
    elif result.limit is not None:
        print(f"  stopped at a limit ({result.limit}) before deciding; this is not a proof")
    elif result.verdict.value == "UNDECIDED":
        detail = f" ({result.method[6:-1]})" if result.method.startswith("none (") else ""
        print(f"  no rewrite reduced LHS - RHS to 0 and no counterexample was found{detail}; this is not a proof")
    return result.exit_code
