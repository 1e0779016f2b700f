"""``ropecheck verify TARGET`` and ``ropecheck adapters``: judge an implementation, list the adapters.

Exit codes (the CI contract): 0 the target conforms; 1 it does not (including: it raised,
hung past ``--timeout``, returned the wrong shape/dtype/device, NaN/inf, mutated its input,
or deviates); 2 a usage error (bad flags, target not importable or not callable).

Design constraints: argument parsing and file writing only -- the work is
:func:`ropecheck.verify.run.verify`, the text is :mod:`ropecheck.verify.render`. The timeout is
enforced twice: SIGALRM inside ``verify`` stops Python-level hangs, and a watchdog thread
ends the process with exit 1 shortly after if the target is stuck where signals cannot reach.
The process runs torch on one CPU thread unless ``OMP_NUM_THREADS`` says otherwise: the
probes are small tensors, where intra-op threads only add overhead (5-15x slower verdicts on
a busy 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from ..adapters import ADAPTERS, get_adapter
from ..errors import UsageError
from ..io import replace_tree, write_output
from ..protocol import as_implementation
from ..target import load_target
from ..tolerance import dtype_name
from ..verify.batch import AdapterVerdict, render_adapter_pages, verify_adapters
from ..verify.identify import identify
from ..verify.model import POSITION_MODES
from ..verify.render import render_junit, render_markdown, render_terminal, verdict_line
from ..verify.run import verify
from .args import EXIT_FAIL, EXIT_OK, add_spec_arguments, conventions_from_args, spec_from_args, write_json

__all__ = ["add_parser", "run", "run_adapters"]

DEFAULT_TIMEOUT = 300.0


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="judge a RoPE implementation (black box) against a spec; exit 0 conforms, 1 not, 2 usage",
        description="Verify a RoPE implementation under the canonical protocol fn(x, positions) / fn(x, offset) / "
        "fn(x), x of shape (batch, seq, heads, head_dim). TARGET is package.module:attr or path/to/file.py:attr. "
        "Exit 0: conforms; 1: does not (raised, hung, wrong shape/dtype/device, NaN/inf, mutated input, deviates); "
        "2: usage error.",
    )
    p.add_argument("target", nargs="?", metavar="TARGET", help="package.module:attr or path/to/file.py:attr")
    p.add_argument(
        "--adapter",
        metavar="NAME",
        help="verify a library's RoPE through a built-in adapter (see `ropecheck adapters`)",
    )
    p.add_argument(
        "--all-adapters",
        action="store_true",
        help="verify every installed adapter; with --report-dir, write one verdict per adapter and an index",
    )
    p.add_argument(
        "--report-dir", metavar="DIR", help="with --all-adapters: where to write <adapter>.md/.json and README.md"
    )
    add_spec_arguments(p)
    for action in p._actions:
        if action.dest == "layout":
            action.choices = ("interleaved", "half", "auto")
            action.help = (
                "pairing: interleaved, half, or auto (take it from the target; with no other spec flags: "
                "identify the target)"
            )
    g = p.add_argument_group("verification")
    g.add_argument(
        "--dtype",
        default="float32,bfloat16,float16",
        metavar="LIST",
        help="comma-separated dtypes (default: %(default)s)",
    )
    g.add_argument("--device", choices=("cpu", "cuda"), help="default: cuda when available, else cpu")
    g.add_argument(
        "--max-position",
        type=int,
        metavar="N",
        help="the valid range: positions 0..N-1 and calls of at most N tokens, e.g. a table's size (default: the "
        "model's context or scaled context, else 131072); checks that cannot run inside it are skipped",
    )
    g.add_argument(
        "--positions",
        choices=("tensor", "offset", "implicit"),
        help="calling convention fn(x, positions) / fn(x, offset) / fn(x) (default: from the signature)",
    )
    g.add_argument("--allow-inplace", action="store_true", help="do not fail a target that modifies x in place")
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    g.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="stop a target that hangs and report it as a failure (default %(default)g; 0 disables)",
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", metavar="PATH", help="write the JSON verdict to PATH ('-' for stdout)")
    o.add_argument("--junit", metavar="PATH", help="write a JUnit XML report to PATH")
    o.add_argument("--markdown", metavar="PATH", help="write a Markdown verdict to PATH")
    o.add_argument("-v", "--verbose", action="store_true", help="show every check's full evidence")
    o.add_argument("-q", "--quiet", action="store_true", help="print only the verdict line")
    p.set_defaults(run=run)

    a = sub.add_parser(
        "adapters",
        help="list the built-in adapters, with installed/not",
        description="List the adapters of ropecheck.adapters: library, spec, installed or not, CUDA needed.",
    )
    a.add_argument("--json", metavar="PATH", help="write the list as JSON to PATH ('-' for stdout)")
    a.set_defaults(run=run_adapters)


def _parse_dtypes(text: str) -> tuple[str, ...]:

    names = tuple(dtype_name(t.strip()) for t in text.split(",") if t.strip())
    if not names:
        raise UsageError("--dtype needs at least one dtype")
    return names


def _spec_flags_given(args: argparse.Namespace) -> bool:
    return any(getattr(args, k) is not None for k in ("hf_config", "head_dim", "rotary_dim", "base", "rope_scaling"))


def _resolve(args: argparse.Namespace) -> tuple[Any, Any, int | None, str, str | None]:
    """(callable, spec or None, head_dim for identification, name, positions mode)."""

    mode = args.positions
    if args.adapter:
        if args.target:
            raise UsageError("give either TARGET or --adapter, not both")

        adapter = get_adapter(args.adapter)
        fn, spec = adapter.load()
        if _spec_flags_given(args):
            spec = spec_from_args(_with_layout(args))
        elif conventions_from_args(args):
            spec = spec.with_(**conventions_from_args(args))
        return fn, spec, spec.head_dim, f"adapter:{adapter.name}", mode
    if not args.target:
        raise UsageError("give TARGET (package.module:attr or path/to/file.py:attr) or --adapter NAME")
    fn = load_target(args.target)
    auto = args.layout == "auto"
    if auto and args.hf_config is None and args.base is None and args.rope_scaling is None and args.rotary_dim is None:
        if args.head_dim is None:
            raise UsageError("--layout auto needs --head-dim (or --hf-config) to identify the target")
        return fn, None, args.head_dim, args.target, mode
    spec = spec_from_args(_with_layout(args))
    if auto:
        spec = _layout_from_target(fn, spec, mode, args)
    return fn, spec, spec.head_dim, args.target, mode


def _with_layout(args: argparse.Namespace) -> argparse.Namespace:
    ns = argparse.Namespace(**vars(args))
    if ns.layout == "auto":
        ns.layout = None
    return ns


def _layout_from_target(fn: Any, spec: Any, mode: str | None, args: argparse.Namespace) -> Any:
    """--layout auto with a spec: take the pairing the target uses (when it is one of the two)."""

    impl = as_implementation(fn, convention=POSITION_MODES.get(mode) if mode else None)
    try:
        limit = args.max_position or spec.max_position_embeddings or 65  # inside the valid range
        ident = identify(
            impl, spec.head_dim, max_position=min(64, limit - 1), dtype="float32", device=args.device or "cpu"
        )
    except Exception:
        return spec
    if ident.layout in ("half", "interleaved"):
        return spec.with_(layout=ident.layout)
    return spec


def run(args: argparse.Namespace) -> int:
    dtypes = _parse_dtypes(args.dtype)
    restore = _one_thread()
    try:
        return _run(args, dtypes)
    finally:
        restore()


def _run(args: argparse.Namespace, dtypes: tuple[str, ...]) -> int:

    if args.all_adapters:
        return _run_all_adapters(args, dtypes)
    if args.max_position is not None and args.max_position < 8:
        raise UsageError(f"--max-position must be >= 8, got {args.max_position}")
    if args.timeout is not None and args.timeout < 0:
        raise UsageError(f"--timeout must be >= 0, got {args.timeout}")
    fn, spec, head_dim, name, mode = _resolve(args)
    timeout = args.timeout or None
    watchdog = _watchdog(timeout, name) if timeout else None
    try:
        report = verify(
            fn,
            spec,
            head_dim=head_dim,
            dtypes=dtypes,
            device=args.device,
            max_position=args.max_position,
            positions_mode=mode,
            allow_inplace=args.allow_inplace,
            seed=args.seed,
            timeout=timeout,
            name=name,
            context=args.max_position_embeddings if spec is None else None,
            conventions=conventions_from_args(args) if spec is None else None,
        )
    finally:
        if watchdog is not None:
            watchdog.cancel()
    if args.json:
        write_json(report.to_dict(), args.json)
    if args.junit:
        write_output(args.junit, render_junit(report))
    if args.markdown:
        write_output(args.markdown, render_markdown(report))
    if args.json != "-":
        if args.quiet:
            print(verdict_line(report))
        else:
            console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
            for item in render_terminal(report, verbose=args.verbose):
                console.print(item)
    return EXIT_OK if report.conforms else EXIT_FAIL


def _one_thread() -> Callable[[], None]:
    """One intra-op torch thread, unless the user chose a number with OMP_NUM_THREADS; returns the undo."""
    if "OMP_NUM_THREADS" in os.environ:
        return lambda: None
    import torch  # heavy: imported when used

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    return lambda: torch.set_num_threads(before)


def _watchdog(timeout: float, name: str) -> threading.Timer:
    """Last resort when SIGALRM cannot interrupt the target (stuck in C code, or in a thread): exit 1."""

    def fire() -> None:
        sys.stderr.write(
            f"ropecheck verify: {name} did not finish within {timeout:g} s and was stopped (DOES NOT CONFORM)\n"
        )
        sys.stderr.flush()
        os._exit(EXIT_FAIL)

    t = threading.Timer(timeout + 10.0, fire)
    t.daemon = True
    t.start()
    return t


def run_adapters(args: argparse.Namespace) -> int:

    rows = [a.info() for a in ADAPTERS.values()]
    if args.json:
        write_json(rows, args.json)
        return EXIT_OK

    table = Table(show_edge=False)
    for col in ("adapter", "library", "installed", "CUDA", "spec"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["name"],
            r["library"],
            "yes" if r["installed"] else "no",
            "needed" if r["requires_cuda"] else "-",
            r["spec_short"],
        )
    Console(highlight=False, width=None if sys.stdout.isatty() else 160).print(table)
    return EXIT_OK


def _run_all_adapters(args: argparse.Namespace, dtypes: tuple[str, ...]) -> int:
    """Verify every adapter that can run here; the exit code is 1 if any does not conform."""

    if args.target or args.adapter:
        raise UsageError("--all-adapters takes no TARGET or --adapter")

    def done(v: AdapterVerdict) -> None:
        print(verdict_line(v.report) if v.report is not None else f"SKIPPED: adapter:{v.name} -- {v.reason}")

    verdicts = verify_adapters(
        dtypes=dtypes,
        devices=(args.device,),
        max_position=args.max_position,
        seed=args.seed,
        timeout=args.timeout or None,
        done=done,
    )
    if args.report_dir:
        options = [f"--dtype {','.join(dtypes)}"] + [
            f"--{k.replace('_', '-')} {v}"
            for k, v in (("device", args.device), ("max_position", args.max_position), ("seed", args.seed))
            if v is not None
        ]
        pages = render_adapter_pages(
            verdicts, dtypes, invocation=f"`ropecheck verify --all-adapters {' '.join(options)}`"
        )
        # the folder is replaced as a whole: a page whose adapter was skipped this time goes away;
        # files that are not adapter pages stay
        ours = {f"{name}{sfx}" for name in ADAPTERS for sfx in (".md", ".json")} | {"README.md"}
        replace_tree(
            args.report_dir,
            pages,
            keep=lambda rel: rel not in ours and not rel.endswith(("-cuda.md", "-cuda.json")),
        )
    return EXIT_FAIL if any(v.report is not None and not v.report.conforms for v in verdicts) else EXIT_OK
