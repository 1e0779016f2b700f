"""``ropecheck survey``: every rotary embedding in the installed transformers, verified from its own config.

Exit codes: 0 every driven family conforms or fails only with its reviewed expected findings
(``ropecheck/survey/expected.json``); 1 a finding is new, an expected one vanished, or a
family could not be judged (error); 2 a usage error (an unknown ``--family`` is named with
the closest known ones), checked before any work.

Design constraints: argument checks, the progress display and file writing only; the work is
:mod:`ropecheck.survey`. The progress bar goes to stderr and only when stderr is a terminal;
it refreshes only when told (no display thread while workers fork).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import time
from typing import Any

from ..errors import UsageError
from ..inputs import read_input
from ..io import is_stdout, replace_tree, write_output
from ..survey.discover import Family, discover, transformers_version
from ..survey.expected import EXPECTED_LIMIT, EXPECTED_PATH, compare, expected_document, load_expected
from ..survey.render import cells, counts, render_index, render_pages, survey_data
from ..survey.run import DEFAULT_MAX_POSITION, FamilyResult, run_survey
from ..tolerance import dtype_name
from .args import EXIT_FAIL, EXIT_OK, check_int_range, write_json

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "survey",
        help="verify every rotary embedding of the installed transformers, each from its own config",
        description="Find every model family of the installed transformers whose modeling code defines a rotary "
        "embedding, drive each with its own config class, rotary module and apply function, and verify it in "
        "each dtype, built in float32 and cast with module.to(dtype). Exit 0: every driven family conforms or "
        "fails only with its reviewed expected findings; 1: a new finding, a vanished one, or an error; 2: usage.",
    )
    p.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="NAME",
        help="survey only this model_type (repeat, or comma-separate; default: every family found)",
    )
    p.add_argument("--dtype", default="float32,bfloat16,float16", help="comma-separated dtypes (default: %(default)s)")
    p.add_argument("--json", metavar="PATH", help="the survey as JSON (schema ropecheck.survey/1; - for stdout)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write README.md, survey.json and families/<model_type>.md there (a new or empty folder, or one "
        "ropecheck wrote)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: the number of CPUs, %(default)s)",
    )
    p.add_argument(
        "--max-position",
        type=int,
        default=DEFAULT_MAX_POSITION,
        help="the valid range of every verdict: positions 0..N-1 (default: %(default)s)",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per verdict (default: %(default)s)")
    p.add_argument(
        "--expected",
        metavar="PATH",
        default=None,
        help=f"the reviewed expected findings (default: the packaged {EXPECTED_PATH.name})",
    )
    p.add_argument(
        "--write-expected",
        metavar="PATH",
        help="write the findings of this run as the expected ones of this transformers version "
        "(other versions and the explanations kept): review every line before committing it",
    )
    p.add_argument("--list", action="store_true", help="only list the families found (no verification)")
    p.set_defaults(
        run=run,
        outputs=[
            ("--json", "json", False, None),
            ("--out", "out", "tree", None),
            ("--write-expected", "write_expected", False, None),
        ],
    )


def _families(args: argparse.Namespace, found: dict[str, Family]) -> list[Family]:
    asked = [n.strip() for item in args.family for n in item.split(",") if n.strip()]
    for name in asked:
        if name not in found:
            close = difflib.get_close_matches(name, list(found), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else " (ropecheck survey --list shows them)"
            raise UsageError(
                f"--family: no rotary-embedding family {name!r} in transformers {transformers_version()}{hint}"
            )
    return [found[n] for n in dict.fromkeys(asked)] if asked else list(found.values())


def run(args: argparse.Namespace) -> int:
    dtypes = tuple(dict.fromkeys(dtype_name(t.strip()) for t in args.dtype.split(",") if t.strip()))
    if not dtypes:
        raise UsageError("--dtype needs at least one dtype")
    check_int_range("-j", args.jobs, 1, 256)
    check_int_range("--max-position", args.max_position, 64, 1 << 31)
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout:g}")
    version = transformers_version()
    expected = load_expected(version, args.expected)
    t0 = time.perf_counter()
    try:
        found = discover()
    except ImportError as exc:
        raise UsageError(f"transformers is not installed ({exc}): pip install transformers") from exc
    families = _families(args, found)
    if args.list:
        for f in families:
            print(f"{f.model_type}\t{f.module}\t{','.join(f.rotary_classes) or '-'}")
        return EXIT_OK
    results = _run(families, dtypes, args)
    actual = {r.name: cells(r, dtypes) for r in results if r.status == "driven"}
    mismatches = compare(actual, expected, dtypes=dtypes)
    seconds = time.perf_counter() - t0
    options = {"max_position": args.max_position, "jobs": args.jobs, "families": [f.model_type for f in families]}
    invocation = f"`ropecheck survey --dtype {','.join(dtypes)} --max-position {args.max_position}`"
    ok = not mismatches and not any(r.status == "error" for r in results)
    if args.json:
        data = survey_data(
            results, dtypes=dtypes, mismatches=mismatches, expected=expected, transformers=version, options=options
        )
        data["seconds"] = round(seconds, 1)
        write_json(data, args.json)
    if args.out:
        pages = render_pages(
            results,
            dtypes=dtypes,
            mismatches=mismatches,
            expected=expected,
            transformers=version,
            invocation=invocation,
            options=options,
        )
        # the survey's own files are replaced (a family gone loses its page); anything else there stays
        replace_tree(
            args.out,
            pages,
            keep=lambda rel: not (rel in ("README.md", "survey.json") or rel.startswith("families/")),
            flag="--out",
        )
    if args.write_expected:
        base = json.loads(read_input(args.expected or EXPECTED_PATH, name="--expected", limit=EXPECTED_LIMIT))
        write_output(args.write_expected, json.dumps(expected_document(version, actual, base), indent=2) + "\n")
    if not (args.json and is_stdout(args.json)):
        _summary(results, dtypes, mismatches, expected, version, invocation, seconds, args.out)
    return EXIT_OK if ok else EXIT_FAIL


def _summary(
    results: list[FamilyResult],
    dtypes: tuple[str, ...],
    mismatches: Any,
    expected: Any,
    version: str,
    invocation: str,
    seconds: float,
    out: str | None,
) -> None:
    text = render_index(
        results,
        dtypes=dtypes,
        mismatches=mismatches,
        expected=expected,
        transformers=version,
        invocation=invocation,
        links=False,
    )
    # the terminal gets the summary, the root causes and the skips; the matrix and the pages are in --out / --json
    head, _, rest = text.partition("\n## Families")
    print(head.rstrip())
    if "\n## Not driven" in rest:
        print("\n## Not driven" + rest.split("\n## Not driven", 1)[1].rstrip())
    c = counts(results, dtypes, mismatches)
    verdict = "OK" if not mismatches and not c["errors"] else "DIFFERS FROM THE EXPECTED FINDINGS"
    print(
        f"\n{verdict}: {c['driven']}/{c['found']} families driven, {c['conforming']} conform, "
        f"{c['expected_findings_only']} only expected findings, {c['unexpected']} unexpected, "
        f"{c['errors']} errors ({seconds:.1f} s){'; pages in ' + out if out else ''}"
    )


def _run(families: list[Family], dtypes: tuple[str, ...], args: argparse.Namespace) -> list[FamilyResult]:
    if not sys.stderr.isatty():
        return run_survey(families, dtypes=dtypes, max_position=args.max_position, jobs=args.jobs, timeout=args.timeout)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("survey"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        auto_refresh=False,
        transient=True,
    )
    task = bar.add_task("", total=len(families))

    def done(r: FamilyResult) -> None:
        if not bar.live.is_started:
            bar.start()
        bar.update(task, advance=1, description=f"{r.name}: {r.status}")
        bar.refresh()

    try:
        return run_survey(
            families, dtypes=dtypes, max_position=args.max_position, jobs=args.jobs, timeout=args.timeout, done=done
        )
    finally:
        bar.stop()
