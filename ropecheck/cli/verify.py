"""``ropecheck verify TARGET`` and ``ropecheck adapters``: judge an implementation, list the adapters.

Exit codes (the CI contract, :class:`~ropecheck.errors.ExitCode`): 0 the target conforms;
1 it does not (including: it raised, exited, crashed, ran out of memory, hung past
``--timeout``, returned the wrong shape/dtype/device, NaN/inf, mutated its input, or
deviates); 2 a usage error (bad flags, unwritable output path, target not importable or not
callable), checked before any work; 70 a bug in ropecheck.

Design constraints: argument checks and file writing only. The target is imported in a child
process that only calls it (:func:`ropecheck.verify.supervise.verify_isolated`); the verdict is
computed here, and whatever the target does, this process writes it and every requested output.
The child runs torch on one CPU thread unless ``OMP_NUM_THREADS`` says otherwise: the probes
are small tensors, where intra-op threads only add overhead.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from ..adapters import ADAPTERS, get_adapter
from ..errors import TargetError, UsageError
from ..io import is_stdout, replace_tree, write_output
from ..qk import build_rotary, find_rotary, pair_from_cos_sin, qk_kind
from ..spec import RopeSpec
from ..target import load_target, split_target
from ..tolerance import dtype_name
from ..verify.model import DEFAULT_DTYPES, POSITION_MODES
from ..verify.probes import check_own_memory
from ..verify.supervise import Loaded, verify_isolated

if TYPE_CHECKING:
    from ..verify.batch import AdapterVerdict

# The checks, the renderers and rich are imported where they are used, after the target's process has
# started: it imports torch and the target while this process imports them (one torch import per verdict).
from .args import (
    EXIT_FAIL,
    EXIT_OK,
    MAX_HEAD_DIM,
    MAX_VERIFY_POSITION,
    add_spec_arguments,
    check_int_range,
    conventions_from_args,
    hf_config_from_args,
    parse_size,
    spec_from_args,
    write_json,
)

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
    _add_target_arguments(p)
    _add_verification_arguments(p)
    _add_output_arguments(p)
    p.set_defaults(
        run=run,
        outputs=[
            ("--json", "json", False, None),
            ("--junit", "junit", False, None),
            ("--markdown", "markdown", False, None),
            ("--report-dir", "report_dir", "tree", None),
        ],
    )
    _add_adapters_parser(sub)


def _add_target_arguments(p: Any) -> None:
    """What is verified (a target, one adapter or all of them) and against which spec."""
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


def _add_verification_arguments(p: Any) -> None:
    """How the target is called and judged: dtypes, device, range, convention, limits."""
    g = p.add_argument_group("verification")
    g.add_argument(
        "--dtype",
        default=None,
        metavar="LIST",
        help="comma-separated dtypes (default: float32,bfloat16,float16; with --adapter, those the adapter is "
        "judged in)",
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
        choices=("tensor", "offset", "implicit", "axes"),
        help="calling convention fn(x, positions) / fn(x, offset) / fn(x) (default: from the signature); "
        "axes: fn(x, positions) with one position per axis, (axes, batch, seq), for multi-axis RoPE "
        "(M-RoPE, 2-D axial; the spec's axes)",
    )
    g.add_argument(
        "--rotary",
        metavar="TARGET",
        help="for an apply(q, k, cos, sin) target: the rotary module that makes cos and sin (module:attr or "
        "file.py:attr; an instance, a class built from the spec or --hf-config, or a function returning one); "
        "default: the one defined beside the apply function",
    )
    g.add_argument("--allow-inplace", action="store_true", help="do not fail a target that modifies x in place")
    g.add_argument(
        "--no-backward",
        dest="backward",
        action="store_false",
        help="skip the backward checks (the gradient against the transpose of the rotation; run by default where "
        "the target supports autograd)",
    )
    g.add_argument(
        "--compile",
        action="store_true",
        help="verify the target wrapped in torch.compile (inductor with a C++ compiler, else aot_eager) and say "
        "where the compiled verdict differs from the eager one",
    )
    g.add_argument(
        "--compile-backend", metavar="NAME", help="the torch.compile backend for --compile (default: see --compile)"
    )
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    g.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="stop a target that hangs and report it as a failure (default %(default)g; 0 disables)",
    )
    g.add_argument(
        "--memory-limit",
        default="8G",
        metavar="SIZE",
        help="memory the target may add (private writable mappings), e.g. 512M, 8G; 0: no limit (default %(default)s)",
    )


def _add_output_arguments(p: Any) -> None:
    """Which reports are written and how much is printed."""
    o = p.add_argument_group("output")
    o.add_argument("--json", metavar="PATH", help="write the JSON verdict to PATH ('-' for stdout)")
    o.add_argument("--junit", metavar="PATH", help="write a JUnit XML report to PATH")
    o.add_argument("--markdown", metavar="PATH", help="write a Markdown verdict to PATH")
    o.add_argument("-v", "--verbose", action="store_true", help="show every check's full evidence")
    o.add_argument("-q", "--quiet", action="store_true", help="print only the verdict line")


def _add_adapters_parser(sub: Any) -> None:
    """`ropecheck adapters`: registered here because it lists what `verify --adapter` accepts."""
    a = sub.add_parser(
        "adapters",
        help="list the built-in adapters, with installed/not",
        description="List the adapters of ropecheck.adapters: library, spec, installed or not, CUDA needed.",
    )
    a.add_argument("--json", metavar="PATH", help="write the list as JSON to PATH ('-' for stdout)")
    a.set_defaults(run=run_adapters, outputs=[("--json", "json", False, None)])


def _parse_dtypes(text: str) -> tuple[str, ...]:

    names = tuple(dtype_name(t.strip()) for t in text.split(",") if t.strip())
    if not names:
        raise UsageError("--dtype needs at least one dtype")
    return names


def _spec_flags_given(args: argparse.Namespace) -> bool:
    return any(getattr(args, k) is not None for k in ("hf_config", "head_dim", "rotary_dim", "base", "rope_scaling"))


def _load(args: argparse.Namespace) -> Loaded:
    """Import the target -- run in the child process, never in ropecheck's own."""
    if args.adapter:
        fn, _ = get_adapter(args.adapter).load()
        return Loaded(fn, f"adapter:{args.adapter}", args.positions)
    fn = load_target(args.target)
    if qk_kind(fn) == "cos_sin":  # the Hugging Face pair: the rotary module makes cos and sin
        fn = pair_from_cos_sin(fn, _rotary(args, fn))
    elif args.rotary:
        raise UsageError("--rotary is for an apply(q, k, cos, sin) target; this target computes its own cos and sin")
    return Loaded(fn, args.target, args.positions)


def _rotary(args: argparse.Namespace, apply: Any) -> Any:
    """The rotary module for an apply(q, k, cos, sin) target: --rotary, or the one beside the function."""
    spec = spec_from_args(_with_layout(args))
    config = hf_config_from_args(args) if args.hf_config else None
    if args.rotary:
        obj = load_target(args.rotary)
        return build_rotary(obj, spec, config, sys.modules.get(getattr(obj, "__module__", "") or ""))
    module = sys.modules.get(getattr(apply, "__module__", "") or "")
    if module is None:
        raise UsageError("cannot find the module of the apply function: name its rotary module with --rotary")
    rotary, _ = find_rotary(module, spec, config)
    return rotary


def _spec_in_parent(args: argparse.Namespace) -> RopeSpec | None:
    """The spec the flags describe, or the adapter's (no target code runs for it); None to identify the target."""
    if args.adapter:
        if _spec_flags_given(args):
            return spec_from_args(_with_layout(args))
        spec = get_adapter(args.adapter).spec
        return spec.with_(**conventions_from_args(args)) if conventions_from_args(args) else spec
    identify_only = args.hf_config is None and args.base is None and args.rope_scaling is None
    if args.layout == "auto" and identify_only and args.rotary_dim is None:
        if args.head_dim is None:
            raise UsageError("--layout auto needs --head-dim (or --hf-config) to identify the target")
        check_int_range("--head-dim", args.head_dim, 2, MAX_HEAD_DIM)
        return None
    return spec_from_args(_with_layout(args))


def _with_layout(args: argparse.Namespace) -> argparse.Namespace:
    ns = argparse.Namespace(**vars(args))
    if ns.layout == "auto":
        ns.layout = None
    return ns


def _layout_from_target(args: argparse.Namespace) -> Callable[[Any, Any], Any] | None:
    """--layout auto with a spec: take the pairing the target uses (when it is one of the two)."""
    if args.adapter or args.layout != "auto" or args.positions == "axes":
        return None

    def adjust(impl: Any, spec: Any) -> Any:
        from ..protocol import as_implementation
        from ..verify.identify import identify

        if spec is None:
            return None
        if args.positions:
            impl = as_implementation(impl, convention=POSITION_MODES.get(args.positions, args.positions))
        limit = args.max_position or spec.max_position_embeddings or 65  # inside the valid range
        try:
            ident = identify(
                impl, spec.head_dim, max_position=min(64, limit - 1), dtype="float32", device=args.device or "cpu"
            )
        except (TargetError, UsageError):  # the checks say what is wrong with the target
            return spec
        return spec.with_(layout=ident.layout) if ident.layout in ("half", "interleaved") else spec

    return adjust


def run(args: argparse.Namespace) -> int:
    return _run(args, _parse_dtypes(args.dtype or ",".join(DEFAULT_DTYPES)))


def _check_options(args: argparse.Namespace) -> int | None:
    """Every flag checked before any work (exit 2 naming the flag); returns the memory limit in bytes."""
    if args.max_position is not None:
        check_int_range("--max-position", args.max_position, 8, MAX_VERIFY_POSITION)
    if not math.isfinite(args.timeout) or args.timeout < 0:
        raise UsageError(f"--timeout must be a finite number of seconds >= 0 (0: no limit), got {args.timeout}")
    check_int_range("--seed", args.seed, 0, 2**32 - 1)
    return parse_size(args.memory_limit, "--memory-limit")


def _run(args: argparse.Namespace, dtypes: tuple[str, ...]) -> int:
    memory_limit = _check_options(args)
    if args.all_adapters:
        return _run_all_adapters(args, dtypes, memory_limit)
    if args.adapter and args.target:
        raise UsageError("give either TARGET or --adapter, not both")
    if not args.adapter and not args.target:
        raise UsageError("give TARGET (package.module:attr or path/to/file.py:attr) or --adapter NAME")
    if args.adapter:
        adapter = get_adapter(args.adapter)  # an unknown name is a usage error, before any work
        name = f"adapter:{args.adapter}"
        skipped = [d for d in dtypes if d not in adapter.dtypes]
        if skipped and args.dtype is not None:  # asked for by name: say why it cannot be judged
            raise UsageError(str(adapter.dtype_skip_reason(skipped[0])))
        for d in skipped:
            print(f"note: {adapter.dtype_skip_reason(d)}", file=sys.stderr)
        dtypes = adapter.judged_dtypes(dtypes)
    else:
        split_target(args.target)
        name = args.target
    spec = _spec_in_parent(args)
    check_own_memory(spec, args.head_dim, args.max_position, args.max_position_embeddings, memory_limit)
    report = verify_isolated(
        partial(_load, args),
        spec=spec,
        head_dim=None if spec is not None else args.head_dim,
        adjust=_layout_from_target(args),
        name=name,
        dtypes=dtypes,
        device=args.device,
        max_position=args.max_position,
        allow_inplace=args.allow_inplace,
        seed=args.seed,
        timeout=args.timeout or None,
        memory_limit=memory_limit,
        context=args.max_position_embeddings if spec is None else None,
        conventions=conventions_from_args(args) if spec is None else None,
        backward=args.backward,
        compile=args.compile,
        compile_backend=args.compile_backend,
    )
    from rich.console import Console

    from ..verify.render import render_junit, render_markdown, render_terminal, verdict_line

    if args.json:
        write_json(report.to_dict(), args.json)
    if args.junit:
        write_output(args.junit, render_junit(report))
    if args.markdown:
        write_output(args.markdown, render_markdown(report))
    if not is_stdout(args.json or ""):
        if args.quiet:
            print(verdict_line(report))
        else:
            console = Console(highlight=False, markup=False, width=None if sys.stdout.isatty() else 160)
            for item in render_terminal(report, verbose=args.verbose):
                console.print(item)
    return EXIT_OK if report.conforms else EXIT_FAIL


def run_adapters(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

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


def _run_all_adapters(args: argparse.Namespace, dtypes: tuple[str, ...], memory_limit: int | None) -> int:
    """Verify every adapter that can run here; the exit code is 1 if any does not conform."""

    from ..verify.batch import render_adapter_pages, verify_adapters
    from ..verify.render import verdict_line

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
        memory_limit=memory_limit,
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
            flag="--report-dir",
        )
    return EXIT_FAIL if any(v.report is not None and not v.report.conforms for v in verdicts) else EXIT_OK
