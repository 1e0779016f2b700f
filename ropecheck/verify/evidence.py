"""Evidence the verifier's checks share: outputs against the reference, deviations as checks, a raise explained.

* :func:`against_reference` -- the target's output, its error against the fp64 reference and
  the error model's bound, per element;
* :func:`record_deviation` -- a pass/fail :class:`~ropecheck.verify.model.Check` from those,
  naming the first position off and the worst element;
* :func:`raised_check` -- a target that raised, as a finding that says why when it can: a
  table shorter than the valid range (bisected to the first position that raises, with the
  target's own exception there), or a call the target cannot take at all (the protocol);
* :func:`usable_top` -- the last position the remaining checks may use once a table's end
  has been found inside the range.

Design constraints: no check order here, only evidence; single-token probes for the bisection
(at most ~2 log2(R) calls); every call goes through the protocol, so exceptions are
:class:`~ropecheck.errors.TargetError`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..diagnosis import is_protocol_error, sentence
from ..errors import TargetError, UsageError
from ..reference import apply_rope
from .model import Check, RunContext, VerifyReport
from .probes import per_position_bound

__all__ = ["Deviation", "against_reference", "first_raising_position", "raised_check", "record_deviation", "usable_top"]

_PROTOCOL_HINT = (
    "the target must accept fn(x, positions) with x (batch, seq, heads, head_dim) and positions int64 (batch, seq) "
    "-- or fn(x, offset) / fn(x): pass --positions offset|implicit -- and return x's shape, dtype and device"
)


def usable_top(report: VerifyReport, top: int) -> int:
    """``top``, or the last position before the one the target was found to raise from."""
    if report.raises_from is not None:
        return max(min(top, report.raises_from - 1), 0)
    return top


@dataclass(frozen=True)
class Deviation:
    """The target's output against the fp64 reference, per element: the output, its error, the error model's
    bound, and the position."""

    got: np.ndarray
    err: np.ndarray
    bound: np.ndarray
    positions: np.ndarray


def against_reference(
    ctx: RunContext, x: np.ndarray, positions: np.ndarray, dtype: str, *, seq_len: int | None = None
) -> Deviation:
    """The target's output for ``x`` at ``positions`` against the reference (``ctx``'s target, spec and device)."""
    spec = ctx.rope
    got = ctx.impl.run(x, positions, dtype=dtype, device=ctx.device)
    want = apply_rope(x, positions[..., None], spec, seq_len=seq_len)
    scale = max(spec.attention_factor, 1.0) * max(float(np.abs(x).max(initial=0.0)), 1e-30)
    pos_b = np.broadcast_to(positions[:, :, None, None], x.shape)
    bound = per_position_bound(dtype, pos_b, scale)
    err = np.abs(got - want)
    err = np.where(np.isfinite(err), err, np.inf)
    return Deviation(got, err, bound, pos_b)


def record_deviation(report: VerifyReport, failed: Check, dev: Deviation, *, passed: str | None = None) -> bool:
    """A check of ``dev``'s error against its bound; True when it passed.

    ``failed`` is the check as it reads when it fails (name, category, dtype, hint, code), its
    evidence the words for what was compared; the numbers are appended.
    """
    what, err, bound, pos = failed.evidence, dev.err, dev.bound, dev.positions
    ratio = err / bound
    bad = ratio > 1
    if not bad.any():
        ok = passed or f"{what}: within the bound (worst {float(ratio.max(initial=0.0)):.2g} of it)"
        report.add(Check(failed.name, failed.category, "pass", ok, failed.dtype))
        return True
    first_pos = int(pos[bad].min())
    i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    ev = (
        f"{what}: {int(bad.sum())} of {bad.size} elements off; first at position {first_pos}; worst "
        f"{float(err[i]):.3g} (bound {float(bound[i]):.3g}) at position {int(pos[i])}, row {i[0]}, dim {i[3]}"
    )
    report.add(replace(failed, evidence=ev))
    return False


def first_raising_position(ctx: RunContext, dtype: str) -> tuple[int, str] | None:
    """(P, the exception at P) when one token at each position p >= P raises and below P does not, else None.

    Bisected with one-token calls at positions 0 .. ``ctx.top`` (a table that ends raises for every
    later position; a target that raises at 0 too, or not at ``top``, is not that).
    """
    impl, head_dim, device, top = ctx.impl, ctx.head_dim, ctx.device, ctx.top
    x = np.zeros((1, 1, 1, head_dim))
    x[0, 0, 0, 0] = 1.0

    def error_at(p: int) -> str | None:
        try:
            impl.run(x, np.array([[p]], dtype=np.int64), dtype=dtype, device=device)
        except (TargetError, UsageError) as exc:
            return str(exc)
        return None

    if top < 1 or error_at(0) is not None:
        return None
    err_hi = error_at(top)
    if err_hi is None:
        return None
    lo, hi = 0, top
    while hi - lo > 1:
        mid = (lo + hi) // 2
        err = error_at(mid)
        if err is None:
            lo = mid
        else:
            hi, err_hi = mid, err
    return hi, err_hi


def raised_check(report: VerifyReport, ctx: RunContext, failed: Check) -> int | None:
    """Record that the target raised in a check; returns the position it raises from when a table ends there.

    ``failed`` is the check as it reads without an explanation (name, category, dtype, the exception as its
    evidence); the table's end is looked for from ``ctx.top`` (or the end already found) down.
    """
    name, category, text, dtype = failed.name, failed.category, failed.evidence, failed.dtype or ""
    top = usable_top(report, ctx.top)
    found = first_raising_position(ctx.with_(top=top), dtype)
    if found is not None:
        first, error = found
        shown = error.split(" raised ", 1)[-1]
        limit = report.max_position
        msg, hint = sentence("table_too_short", first=first, limit=limit, error=shown, source=report.range_source)
        hint = (
            f"build the cos/sin table for the whole range ({limit} positions), or, if the model is served with at "
            f"most {first} positions, declare that range with --max-position {first}"
        )
        report.add(
            Check(name, category, "fail", f"{text} -- {msg}", dtype, hint, "raised", cause="table_too_short"),
            msg,
        )
        report.raises_from = first if report.raises_from is None else min(report.raises_from, first)
        return first
    shown = text
    hint = (
        _PROTOCOL_HINT
        if is_protocol_error(text)
        else (
            "the target raised (its exception and own line are quoted): it must accept any batch size, sequence "
            "length and positions in the valid range"
        )
    )
    report.add(Check(name, category, "fail", shown, dtype, hint, "raised"))
    return None
