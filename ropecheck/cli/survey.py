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
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..inputs import read_input
from ..io import is_stdout, replace_tree, write_output
from ..survey.diffusers_discover import diffusers_version, discover_diffusers
from ..survey.discover import Family, discover, transformers_version
from ..survey.expected import EXPECTED_LIMIT, EXPECTED_PATH, Expected, compare, expected_document, load_expected
from ..survey.render import cells, counts, render_index, render_pages, render_roots_across, roots_across, survey_data
from ..survey.run import DEFAULT_MAX_POSITION, FamilyResult, run_survey
from ..survey.timm_discover import discover_timm, timm_version
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
    p.add_argument(
        "--library",
        action="append",
        default=[],
        choices=LIBRARIES,
        help="survey this library (repeat; default: every one installed): transformers' model families, "
        "diffusers' and timm's rotary classes",
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


#: The libraries the survey knows, in the order they are surveyed.
LIBRARIES = ("transformers", "diffusers", "timm")
#: Each library after transformers: its version and its discovery (``ImportError`` when it is not installed).
_DISCOVER: dict[str, tuple[Callable[[], str], Callable[[], dict[str, Family]]]] = {
    "diffusers": (diffusers_version, discover_diffusers),
    "timm": (timm_version, discover_timm),
}


#: How to install a library the survey reads, where ``pip install NAME`` is not it: timm requires torchvision,
#: whose only wheel for this torch build is a CUDA one that breaks ``import torchvision``; its rotary code needs
#: torch alone.
_INSTALL = {"timm": "pip install --no-deps timm"}


@dataclass
class _Library:
    """One library to survey: what was found, its version and its reviewed expected findings."""

    name: str
    version: str
    found: dict[str, Family]
    expected: Expected
    families: list[Family] = field(default_factory=list)


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _libraries(args: argparse.Namespace) -> list[_Library]:
    """The libraries asked for (default: every one installed), each discovered, with its expected findings."""
    names = list(dict.fromkeys(args.library)) or [n for n in LIBRARIES if _installed(n)] or ["transformers"]
    out = []
    for name in names:
        if name == "transformers":
            version = transformers_version()
            expected = load_expected(version, args.expected)
            try:
                found = discover()
            except ImportError as exc:
                raise UsageError(f"transformers is not installed ({exc}): pip install transformers") from exc
        else:
            version_of, discover_library = _DISCOVER[name]
            version = version_of()
            expected = load_expected(version, args.expected, library=name)
            try:
                found = discover_library()
            except ImportError as exc:
                raise UsageError(
                    f"{name} is not installed ({exc}): {_INSTALL.get(name, f'pip install {name}')}"
                ) from exc
        out.append(_Library(name, version, found, expected))
    return out


def _families(args: argparse.Namespace, libraries: list[_Library]) -> None:
    """Each library's families to survey: the ``--family`` names it holds (every one when none is asked)."""
    asked = [n.strip() for item in args.family for n in item.split(",") if n.strip()]
    known = {name for lib in libraries for name in lib.found}
    for name in asked:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else " (ropecheck survey --list shows them)"
            where = " or ".join(f"{lib.name} {lib.version}" for lib in libraries)
            raise UsageError(f"--family: no rotary-embedding family {name!r} in {where}{hint}")
    for lib in libraries:
        lib.families = (
            [lib.found[n] for n in dict.fromkeys(asked) if n in lib.found] if asked else list(lib.found.values())
        )


def run(args: argparse.Namespace) -> int:
    dtypes = tuple(dict.fromkeys(dtype_name(t.strip()) for t in args.dtype.split(",") if t.strip()))
    if not dtypes:
        raise UsageError("--dtype needs at least one dtype")
    check_int_range("-j", args.jobs, 1, 256)
    check_int_range("--max-position", args.max_position, 64, 1 << 31)
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout:g}")
    t0 = time.perf_counter()
    libraries = _libraries(args)
    _families(args, libraries)
    libraries = [lib for lib in libraries if lib.families or len(libraries) == 1]
    if args.list:
        for lib in libraries:
            for f in lib.families:
                print(f"{f.model_type}\t{f.module}\t{','.join(f.rotary_classes or f.apply_functions) or '-'}")
        return EXIT_OK
    documents, ok = {}, True
    base = None
    if args.write_expected:
        base = json.loads(read_input(args.expected or EXPECTED_PATH, name="--expected", limit=EXPECTED_LIMIT))
    for lib in libraries:
        t_lib = time.perf_counter()
        results = _run(lib.families, dtypes, args)
        actual = {r.name: cells(r, dtypes) for r in results if r.status == "driven" or r.structural}
        mismatches = compare(actual, lib.expected, dtypes=dtypes)
        lib_ok = not mismatches and not any(r.status == "error" for r in results)
        ok = ok and lib_ok
        flag = "" if lib.name == "transformers" else f" --library {lib.name}"
        invocation = f"`ropecheck survey{flag} --dtype {','.join(dtypes)} --max-position {args.max_position}`"
        options = {
            "max_position": args.max_position,
            "jobs": args.jobs,
            "families": [f.model_type for f in lib.families],
        }
        seconds = time.perf_counter() - (t0 if lib is libraries[0] else t_lib)
        report: dict[str, Any] = dict(results=results, dtypes=dtypes, mismatches=mismatches, expected=lib.expected)
        data = survey_data(**report, transformers=lib.version, options=options, library=lib.name)
        data["seconds"] = round(seconds, 1)
        documents[lib.name] = data
        if args.out:
            _write_pages(args.out, lib, report, invocation, options, nested=lib.name != libraries[0].name)
        if base is not None:
            base = expected_document(lib.version, actual, base, library=lib.name)
        if not (args.json and is_stdout(args.json)):
            _summary(results, dtypes, mismatches, lib, invocation, seconds, args.out)
    if len(documents) > 1:
        if not (args.json and is_stdout(args.json)):
            _roots_summary(documents)
        if args.out:
            write_output(os.path.join(args.out, "roots.md"), render_roots_across(documents))
    if args.json:
        if len(documents) == 1:
            write_json(next(iter(documents.values())), args.json)
        else:
            doc = {"schema": "ropecheck.survey-set/1", "ok": ok, "libraries": documents}
            write_json({**doc, "root_causes": roots_across(documents)}, args.json)
    if base is not None:
        write_output(args.write_expected, json.dumps(base, indent=2) + "\n")
    return EXIT_OK if ok else EXIT_FAIL


def _roots_summary(documents: dict[str, dict[str, Any]]) -> None:
    """The root causes of every library surveyed, side by side: the same mistake made in several libraries."""
    print("\nRoot causes across libraries:")
    for entry in roots_across(documents):
        where = "; ".join(f"{lib} {len(rows)}" for lib, rows in entry["libraries"].items())
        print(f"  {entry['cause']}: {where}")


def _write_pages(out: str, lib: _Library, report: dict[str, Any], invocation: str, options: Any, nested: bool) -> None:
    """The library's pages under ``out`` (a library after the first in its own sub-folder, ``out/diffusers/``)."""
    pages = render_pages(**report, transformers=lib.version, invocation=invocation, options=options, library=lib.name)
    folder = os.path.join(out, lib.name) if nested else out
    others = tuple(f"{n}/" for n in LIBRARIES if n != lib.name)
    # the survey's own files are replaced (a family gone loses its page); anything else there stays
    replace_tree(
        folder,
        pages,
        keep=lambda rel: (
            rel.startswith(others) or not (rel in ("README.md", "survey.json") or rel.startswith("families/"))
        ),
        flag="--out",
    )


def _summary(
    results: list[FamilyResult],
    dtypes: tuple[str, ...],
    mismatches: Any,
    lib: _Library,
    invocation: str,
    seconds: float,
    out: str | None,
) -> None:
    text = render_index(
        results,
        dtypes=dtypes,
        mismatches=mismatches,
        expected=lib.expected,
        transformers=lib.version,
        invocation=invocation,
        links=False,
        library=lib.name,
    )
    # the terminal gets the summary, the root causes and the skips; the matrix and the pages are in --out / --json
    head, _, rest = text.partition("\n## Families")
    print(head.rstrip())
    if "\n## Not driven" in rest:
        print("\n## Not driven" + rest.split("\n## Not driven", 1)[1].rstrip())
    c = counts(results, dtypes, mismatches)
    verdict = "OK" if not mismatches and not c["errors"] else "DIFFERS FROM THE EXPECTED FINDINGS"
    noun = "families" if lib.name == "transformers" else f"{lib.name} classes"
    print(
        f"\n{verdict}: {c['driven']}/{c['found']} {noun} driven, {c['conforming']} conform, "
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
