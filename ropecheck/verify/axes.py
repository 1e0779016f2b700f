"""Checks of :func:`ropecheck.verify.run.verify` across axes and dtypes: heads, batch rows, a cache shared by dtypes.

Two small comparisons of how the target reads x as (batch, seq, heads, head_dim), run before
identification (which puts one basis vector in each head and so relies on heads being
independent):

* **heads** -- one call with several heads against each head rotated alone. A target that
  reads x as (batch, heads, seq, head_dim), or broadcasts cos/sin on the wrong axis, rotates
  a head alone correctly and the batched heads with other positions' angles.
* **rows** -- rows with different positions in one call against each row alone (for
  ``fn(x, offset)``/``fn(x)`` targets, rows at one offset: batch independence). When they
  differ and every row matches the reference at the *first* row's positions, the finding says
  so (``positions[0]`` broadcast over the batch); when a dummy row reaching the same largest
  position explains it, the rotation depends on the call's length (dynamic NTK recomputed).

And **dtype state**: a float32 probe before the low-precision calls and after each of them
(the precision checks, then one long call per low-precision dtype). A cache of angles filled by a bf16/fp16
call (positions made in the input's dtype) and reused for float32 shows here.

Design constraints: a handful of small calls (well under 0.1 s); the target's exceptions are
left to the interface check (a raise here only skips this check); a heads/rows failure is a
:class:`~ropecheck.verify.Check` in the ``interface`` category, so the consequences it has
elsewhere (identification, precision, properties) are pruned from the findings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..diagnosis import length_dependence, sentence
from ..errors import TargetError, UsageError
from ..reference import apply_rope
from .identify import position_cap
from .model import Check, RunContext, VerifyReport
from .probes import per_position_bound, random_x

__all__ = ["check_heads", "check_rows", "check_dtype_state", "DtypeSentinel"]

_HINT_HEADS = (
    "x is (batch, seq, heads, head_dim): broadcast cos/sin as (batch, seq, 1, head_dim) (unsqueeze_dim=2), and "
    "transpose to (batch, heads, seq, head_dim) only together with cos/sin"
)
_HINT_ROWS = "index cos/sin with each row's own positions (positions[b]), never positions[0] for the whole batch"


def _bound(dtype: str, positions: np.ndarray, scale: float) -> np.ndarray:

    return per_position_bound(dtype, positions, scale)


def check_heads(report: VerifyReport, ctx: RunContext, dtype: str) -> bool:
    """Record the heads check; True when the heads are independent (identification can probe)."""
    impl, spec_d, device = ctx.impl, ctx.head_dim, ctx.device
    rng = np.random.default_rng(ctx.seed + 3)
    heads_ok = True
    # heads: positions 0..5 (every convention expresses them in one native call)
    x = random_x(rng, (1, 6, 4, spec_d), dtype)
    pos = np.arange(6, dtype=np.int64)[None]
    try:
        full = impl.run(x, pos, dtype=dtype, device=device)
        alone = np.stack([impl.run(x[:, :, h : h + 1], pos, dtype=dtype, device=device)[:, :, 0] for h in range(4)], 2)
    except (TargetError, UsageError):
        return True  # the interface and identification checks report a raising target
    scale = float(np.abs(x).max())
    bound = 2 * _bound(dtype, np.broadcast_to(pos[:, :, None, None], x.shape), scale)
    ratio = np.abs(full - alone) / bound
    if np.any(ratio > 1):
        _, s, h, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        report.add(
            Check(
                "axes:heads",
                "interface",
                "fail",
                f"heads are mixed: head {h} of a call with 4 heads differs from the same head rotated alone (token "
                f"{s}, dim {j}, by {float(np.abs(full - alone)[0, s, h, j]):.3g}); the target reads another axis of x "
                "as the heads (seq and heads swapped?)",
                dtype,
                _HINT_HEADS,
                "batch_head_mixing",
            )
        )
        heads_ok = False
    else:
        report.add(Check("axes:heads", "interface", "pass", "each head rotates as it does alone", dtype))
    return heads_ok


@dataclass(frozen=True)
class _Rows:
    """One call with several batch rows (``full``) and each row called alone (``alone``), with the bound."""

    x: np.ndarray
    pos: np.ndarray
    full: np.ndarray
    alone: np.ndarray
    bound: np.ndarray


def check_rows(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Record the rows check: rows in one call against each row alone, and each row against the reference.

    ``fn(x, positions)``: three rows at different positions (left padding, a later row) in one
    call. When they differ from the rows alone, the row is tried in a call with a dummy row
    that reaches the same largest position: if that explains it, the rotation depends on the
    call's largest position (dynamic NTK recomputed per call), not on the other rows' values.
    ``fn(x, offset)`` / ``fn(x)``: every row of a call has the same positions, so the rows share
    one native call (batch independence); per-row positions are emulated by per-row calls in
    the position scenarios.
    """
    impl, spec, device = ctx.impl, ctx.rope, ctx.device
    rng = np.random.default_rng(ctx.seed + 4)
    lo = min(ctx.top, 64)
    x = random_x(rng, (3, 6, 1, spec.head_dim), dtype)
    if impl.convention == "positions":
        pos = np.array([[0, 1, 2, 3, 4, 5], [0, 0, 0, 1, 2, 3], [lo - 5, lo - 4, lo - 3, lo - 2, lo - 1, lo]], np.int64)
    else:
        pos = np.broadcast_to(np.arange(lo - 5, lo + 1, dtype=np.int64)[None], (3, 6)).copy()
        if impl.convention == "none":
            pos = np.broadcast_to(np.arange(6, dtype=np.int64)[None], (3, 6)).copy()
    try:
        full = impl.run(x, pos, dtype=dtype, device=device)
        alone = np.concatenate([impl.run(x[b : b + 1], pos[b : b + 1], dtype=dtype, device=device) for b in range(3)])
    except (TargetError, UsageError):
        return
    scale = max(spec.attention_factor, 1.0) * float(np.abs(x).max())
    bound = 2 * _bound(dtype, np.broadcast_to(pos[:, :, None, None], x.shape), scale)
    rows = _Rows(x, pos, full, alone, bound)
    if np.any(np.abs(full - alone) / bound > 1):
        _rows_differ(report, ctx, dtype, rows)
    else:
        _rows_pass(report, ctx, dtype, rows)


def _rows_pass(report: VerifyReport, ctx: RunContext, dtype: str, rows: _Rows) -> None:
    """The rows are independent: say so, and whether each is rotated by its own positions."""
    conv = ctx.impl.convention
    own = bool(np.all(np.abs(rows.alone - apply_rope(rows.x, rows.pos[..., None], ctx.rope)) <= rows.bound))
    if conv != "positions":
        name = "fn(x, offset)" if conv == "offset" else "fn(x)"
        ev = (
            f"each batch row rotates as it does alone ({name}: every row of a call has the same positions; "
            "per-row positions are checked through per-row calls in the position scenarios)"
        )
    elif own:
        ev = "each batch row rotates by its own positions"
    else:  # independent rows, but not at their positions: identification says what they are rotated by
        ev = "each batch row rotates as it does alone (not by the spec's rotation at its positions: see findings)"
    report.add(Check("axes:rows", "interface", "pass", ev, dtype))


def _rows_differ(report: VerifyReport, ctx: RunContext, dtype: str, rows: _Rows) -> None:
    """A row differs from the same row alone: the first row's positions, the call's largest position, or mixing."""
    spec, x, pos, full, alone, bound = ctx.rope, rows.x, rows.pos, rows.full, rows.alone, rows.bound
    positions = ctx.impl.convention == "positions"
    b, s, _, j = np.unravel_index(int(np.argmax(np.abs(full - alone) / bound)), full.shape)
    by = float(np.abs(full - alone)[b, s, 0, j])
    first_row = np.broadcast_to(pos[:1], pos.shape)
    if positions and np.all(np.abs(full - apply_rope(x, first_row[..., None], spec)) <= bound):
        msg, _ = sentence("positions_from_row0", row=int(b), position=int(pos[b, s]), as_position=int(pos[0, s]))
        ev = (
            f"every batch row is rotated at the first row's positions: row {b}'s token at position {pos[b, s]} "
            f"is rotated as position {pos[0, s]} (positions[0] broadcast over the batch)"
        )
        report.add(
            Check("axes:rows", "interface", "fail", ev, dtype, _HINT_ROWS, "positions", cause="positions_from_row0"),
            msg,
        )
        return
    if positions and _depends_on_largest_position(ctx, dtype, rows, int(b)):
        detail = (
            f"row {b} (positions up to {int(pos[b].max())}) rotates differently when another row of the call reaches "
            f"position {int(pos.max())} (token {s}, dim {j}, by {by:.3g})"
        )
        msg, hint, cause = length_dependence(
            spec,
            detail + ", below the original context",
            otherwise=(
                f"a token's rotation depends on the largest position in the call: {detail}",
                "frequencies must not change with the call's largest position (inside the schedule's fixed range)",
            ),
        )
        report.add(Check("axes:rows", "interface", "fail", msg, dtype, hint, "length_dependence", cause=cause), msg)
        return
    what = "rows at different positions" if positions else "several rows"
    report.add(
        Check(
            "axes:rows",
            "interface",
            "fail",
            f"batch rows are mixed: row {b} of a call with {what} differs from the row rotated alone (token {s}, "
            f"dim {j}, by {by:.3g})",
            dtype,
            _HINT_ROWS,
            "batch_head_mixing",
        )
    )


def _depends_on_largest_position(ctx: RunContext, dtype: str, rows: _Rows, b: int) -> bool:
    """Row b beside a zero row that reaches the full call's largest position -- two different such rows, one
    before it and one after -- gives the full call's row b both times: the call's largest position decides."""
    x, pos, full, bound = rows.x, rows.pos, rows.full, rows.bound
    far = int(np.argmax(pos.max(axis=1)))
    if far == b:
        return False
    zero = np.zeros_like(x[b])
    flat = np.full_like(pos[far], pos.max())
    run = ctx.impl.run
    try:
        after = run(np.stack([x[b], zero]), np.stack([pos[b], pos[far]]), dtype=dtype, device=ctx.device)[0]
        before = run(np.stack([zero, x[b]]), np.stack([flat, pos[b]]), dtype=dtype, device=ctx.device)[1]
    except (TargetError, UsageError):
        return False
    return bool(np.all(np.abs(after - full[b]) <= bound[b]) and np.all(np.abs(before - full[b]) <= bound[b]))


class DtypeSentinel:
    """A small ``base_dtype`` probe taken before the low-precision calls and re-taken after each of them.

    A target whose cache is filled by a bf16/fp16 call and reused for float32 changes its
    float32 output after that call: :meth:`check` reports it once, naming the dtype.
    """

    def __init__(self, ctx: RunContext, base_dtype: str) -> None:
        spec = ctx.rope
        self.impl, self.spec, self.base_dtype, self.device = ctx.impl, spec, base_dtype, ctx.device
        cap = min(position_cap(spec, ctx.top), 4096)  # below L0 for dynamic NTK and LongRoPE: fixed frequencies there
        self.pos = np.unique(np.array([0, 1, 2, 3, 100, 257, 300, 1000, 2047, 4095, cap], np.int64).clip(0, cap))[None]
        self.x = random_x(np.random.default_rng(ctx.seed + 6), (1, self.pos.shape[1], 2, spec.head_dim), "bfloat16")
        want = apply_rope(self.x, self.pos[..., None], spec)
        scale = max(spec.attention_factor, 1.0) * float(np.abs(self.x).max())
        self.bound = 2 * _bound(base_dtype, np.broadcast_to(self.pos[:, :, None, None], self.x.shape), scale)
        self.want = want
        self.reported = False
        self.ok = self._fine()

    def _fine(self) -> bool:
        try:
            got = self.impl.run(self.x, self.pos, dtype=self.base_dtype, device=self.device)
        except (TargetError, UsageError):
            return False
        self.err = np.abs(got - self.want)
        return bool(np.all(self.err <= self.bound))

    def check(self, report: VerifyReport, dtype: str, what: str) -> None:
        """After calls in ``dtype`` (described by ``what``): is the base-dtype probe still right?"""
        if not self.ok or self.reported or dtype == self.base_dtype:
            return
        if self._fine():
            return
        self.reported = True
        first = int(self.pos[0][np.any(self.err > self.bound, axis=(0, 2, 3))][0])
        b = self.base_dtype
        report.add(
            Check(
                "state:dtype",
                "behaviour",
                "fail",
                f"{b} outputs were right before {what} and are wrong after it (from position {first} on, by up to "
                f"{float(self.err.max()):.3g}): a cache filled in {dtype} is reused for {b}",
                dtype,
                "keep caches in float32 and key them on dtype (or compute positions in float32, never x.dtype)",
                "state",
            ),
            f"a cache filled by a {dtype} call is reused by later {b} calls: after {what}, {b} outputs are off "
            f"from position {first} on",
        )


def check_dtype_state(report: VerifyReport, ctx: RunContext, dtypes: list[str], sentinel: DtypeSentinel) -> None:
    """A long call in each low-precision dtype, then the sentinel again (caches only a longer call refills).

    Run after the precision checks and before the behaviour checks, whose long float32 calls
    would fill such a cache first and hide it.
    """

    base_dtype = sentinel.base_dtype
    others = [dt for dt in dtypes if dt != base_dtype and dt in ("bfloat16", "float16")]
    if not others or not sentinel.ok or sentinel.reported:
        return
    # up to the common cache size, longer than every earlier call of a single position run
    impl, spec = ctx.impl, ctx.rope
    long = min(ctx.top + 1, 8192)
    if spec.depends_on_length:
        long = min(long, spec.scaling.original_max_position_embeddings)  # type: ignore[union-attr]
    x = random_x(np.random.default_rng(ctx.seed + 5), (1, long, 1, spec.head_dim), "bfloat16")
    for dt in others:
        try:
            impl.run(x, np.arange(long, dtype=np.int64)[None], dtype=dt, device=ctx.device)
        except (TargetError, UsageError):
            continue
        sentinel.check(report, dt, f"a {dt} call of length {long}")
    if not sentinel.reported:
        report.add(
            Check(
                "state:dtype",
                "behaviour",
                "pass",
                f"{base_dtype} results are the same before and after calls in {', '.join(others)}",
                base_dtype,
            )
        )
