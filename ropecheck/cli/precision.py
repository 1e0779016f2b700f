"""``ropecheck precision``: measure RoPE error by source and position band, against the model.

Writes ``<out>/<name>.csv``, ``<out>/<name>.json`` and ``<out>/<name>-{output,angle}.svg``
(default out: ``reports/precision``); ``--reproduce`` also writes the reproductions of the
reported failures (``reproductions.json``, ``violation.svg``) and the folder's ``README.md``.
File names come from :mod:`ropecheck.precision.pages`, the folder's one writer; they are written
as one atomic replacement of the folder (which must be new, empty or ropecheck's own), every
other file in it kept. Exit code 0,
or 1 when a careful policy (or an ``--impl`` target) exceeds the error model's careful bound;
2 on a usage error.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from rich.console import Console

from ..errors import RopeCheckError, UsageError
from ..io import replace_tree
from ..isolate import describe_outcome, run_isolated
from ..precision import sweep as S
from ..precision.pages import collect as collect_reproductions
from ..precision.pages import reproduction_files, sweep_files
from ..precision.policies import POLICIES, policy
from ..precision.sweep import Sweep
from ..target import load_target, split_target
from ..tolerance import dtype_name
from .args import EXIT_FAIL, EXIT_OK, add_spec_arguments, check_flag_range, parse_size, spec_from_args, write_json

__all__ = ["MAX_SWEEP_POSITION", "add_parser", "run"]

#: The most positions a sweep measures (``--max-position``): 2^24, every position exactly
#: representable in fp32; about 6 minutes for the three dtypes on 2 CPU cores (the time is
#: linear: 2^22 positions x 3 dtypes took 87 s).
MAX_SWEEP_POSITION = 1 << 24


def _policy_help() -> str:

    lines = [f"  {p.name:<20} {p.summary}{' [careful]' if p.careful else ''}" for p in POLICIES.values()]
    return (
        "built-in policies ([careful]: held to their own bound; the others, and --impl targets, to the bound\n"
        "of input-dtype-cache, the loosest careful policy):\n"
        + "\n".join(lines)
        + "\n\nexit codes: 0 done; 1 a careful policy or an --impl target exceeds the error model; 2 usage error"
        "\nexample: ropecheck precision --policy bf16-inv-freq --dtype bf16 --max-position 65536 --out /tmp/prec"
    )


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "precision",
        help="measure fp32/bf16/fp16 RoPE error by source against the fp64 reference and the error model",
        description="Measure the error of a RoPE policy or implementation in fp32/bf16/fp16, split into "
        "angle, cos/sin rounding, rotation rounding and score / relative-position error, by position band, "
        "and compare careful policies with the error model's bound.",
        epilog=_policy_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--policy", metavar="NAME", help="a built-in policy (below); default fp32-angles")
    g.add_argument(
        "--impl",
        metavar="TARGET",
        help="an implementation, package.module:attr or path/to/file.py:attr, fn(x, positions)",
    )
    p.add_argument(
        "--dtype",
        nargs="+",
        default=["float32", "bfloat16", "float16"],
        metavar="DTYPE",
        help="output dtypes (float32 bfloat16 float16; fp32/bf16/fp16 too); default all three",
    )
    p.add_argument("--device", default="cpu", help="torch device (cpu, cuda); default cpu")
    p.add_argument(
        "--max-position",
        type=int,
        default=1 << 16,
        metavar="N",
        help="sweep positions 0..N-1 (default 65536, at most 2^24 = 16777216)",
    )
    p.add_argument(
        "--json", nargs="?", const="-", metavar="PATH", help="also write the JSON to PATH (stdout with no PATH)"
    )
    p.add_argument(
        "--out", default="reports/precision", metavar="DIR", help="folder for CSV/JSON/SVG (default reports/precision)"
    )
    p.add_argument("--no-files", action="store_true", help="print the table only; write nothing under --out")
    p.add_argument(
        "--reproduce", action="store_true", help="also run the reproductions and write the folder's README.md"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="with --impl: stop an implementation that hangs (default %(default)g; 0 disables)",
    )
    p.add_argument(
        "--memory-limit",
        default="8G",
        metavar="SIZE",
        help="with --impl: memory it may add, e.g. 8G; 0 for no limit (default %(default)s)",
    )
    add_spec_arguments(p)
    p.set_defaults(run=run, outputs=[("--json", "json", False, None), ("--out", "out", "tree", "no_files")])


def _impl_sweep(args: argparse.Namespace, sweep: Callable[[Any, str], Sweep], memory_limit: int | None) -> Sweep | None:
    """Import and sweep an implementation in a child process; None (after saying why) if it misbehaved."""

    def child() -> tuple[str, Any]:
        try:
            impl = load_target(args.impl)
        except RopeCheckError as exc:
            return ("usage", str(exc))
        return ("sweep", sweep(impl, args.impl))

    outcome = run_isolated(child, timeout=args.timeout or None, memory_limit=memory_limit)
    if outcome.ok:
        kind, value = outcome.value
        if kind == "usage":
            raise UsageError(value)
        return cast(Sweep, value)
    reason = describe_outcome(outcome, f"implementation {args.impl}")
    print(f"ropecheck precision: {reason} (DOES NOT CONFORM)", file=sys.stderr)
    if args.json is not None:
        write_json({"target": args.impl, "impl": True, "conforms": False, "failure": outcome.status,
                    "reason": reason}, args.json)  # fmt: skip
    return None


def run(args: argparse.Namespace) -> int:

    if args.head_dim is None and not args.hf_config:
        args.head_dim = 128
    check_flag_range("--max-position", args.max_position, 1, MAX_SWEEP_POSITION, " (2^24)")
    spec = spec_from_args(args)
    dtypes = tuple(dict.fromkeys(dtype_name(d) for d in args.dtype))
    if "float64" in dtypes:
        raise UsageError("--dtype float64 is the reference itself; choose among float32 bfloat16 float16")
    if args.device.startswith("cuda"):
        import torch  # heavy: imported when used

        if not torch.cuda.is_available():
            raise UsageError("--device cuda: CUDA is not available on this machine")
        index = args.device.partition(":")[2]
        if index and (not index.isdigit() or int(index) >= torch.cuda.device_count()):
            raise UsageError(f"--device {args.device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    elif args.device != "cpu":
        raise UsageError(f"--device must be cpu or cuda[:N], got {args.device!r}")
    if not math.isfinite(args.timeout) or args.timeout < 0:
        raise UsageError(f"--timeout must be a finite number of seconds >= 0 (0: no limit), got {args.timeout}")
    memory_limit = parse_size(args.memory_limit, "--memory-limit")

    def sweep(impl: Any, target: str) -> Sweep:
        return S.run_sweep(
            spec,
            target=target,
            dtypes=dtypes,
            device=args.device,
            max_position=args.max_position,
            impl=impl,
            progress=None if not args.no_progress else False,
        )

    if args.impl:
        split_target(args.impl)
        sw = _impl_sweep(args, sweep, memory_limit)
        if sw is None:
            return EXIT_FAIL
    else:
        sw = sweep(None, policy(args.policy or "fp32-angles").name)
    stderr = args.json == "-"  # the JSON alone on stdout
    console = Console(stderr=stderr)
    if not console.is_terminal:  # a pipe or a CI log: wide enough that no figure is cut
        console = Console(stderr=stderr, width=max(console.width, S.TABLE_WIDTH))
    S.render_table(sw, console)
    console.print(f"{args.max_position} positions × {len(dtypes)} dtypes in {sw.seconds:.1f} s")
    data = sw.to_dict()
    if args.json is not None:
        write_json(data, args.json)
    if not args.no_files:
        out = Path(args.out)
        files = sweep_files(sw, plots=True)
        if args.reproduce:
            console.print("running the reproductions of reported precision failures ...")
            files.update(reproduction_files(collect_reproductions()))
        # one atomic replacement: this sweep's files are new, every other file of the folder stays
        replace_tree(out, files, keep=lambda rel: True, flag="--out")
        console.print(f"wrote {', '.join(sorted(files))} to {out}/")
    exceeded = sw.failures()
    if exceeded:
        r = exceeded[0]
        what = f"implementation {args.impl}" if args.impl else f"careful policy {sw.target}"
        console.print(
            f"[red]{what} exceeds the error model[/]: {r['dtype']} {r['source']} "
            f"positions {r['band_lo']}–{r['band_hi'] - 1}: {r['max']:.3e} > bound {r['bound']:.3e} "
            f"({len(exceeded)} rows)",
            soft_wrap=True,
        )
        return EXIT_FAIL
    return EXIT_OK
