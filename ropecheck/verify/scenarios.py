"""Position scenarios of real inference, call lengths, and calls past a schedule's original context.

* :func:`check_scenarios` -- left padding and arbitrary per-row positions, KV-cache decode
  (one token at a large position, a different one per row), the same token in calls of
  lengths around common cache sizes, and the short call again after the longest one. An
  ``fn(x, offset)`` target gets per-row positions through per-row calls (one call per run
  of consecutive positions; :meth:`~ropecheck.protocol.Implementation.run`); an ``fn(x)``
  target takes no positions, so the per-row scenarios are skipped with that reason.
* :func:`check_past_original` -- for schedules whose frequencies depend on the call (dynamic
  NTK, LongRoPE): a one-token decode and a prefill whose largest position is the original
  context L0 (and the range's end), each after a short call (transformers' dynamic NTK keeps
  the largest frequencies seen until a call fits L0 again), against the reference for that
  call's length. This is where a threshold off by one, or a length taken from the token count,
  shows: every other comparison stays below L0, where the frequencies are fixed.

Design constraints: every call inside the valid range (positions <= ``top``, calls of at
most ``top + 1`` tokens); a scenario that cannot be expressed there is a SKIP with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..diagnosis import Diagnosis, explain, length_dependence
from ..errors import TargetError, UsageError
from ..reference import apply_rope
from ..schedules import DynamicNTK, LongRoPE
from ..spec import RopeSpec
from .evidence import against_reference, raised_check, record_deviation
from .identify import position_cap
from .model import Check, RunContext, VerifyReport
from .probes import per_position_bound, random_x

__all__ = ["check_past_original", "check_scenarios"]

_ROW_HINT = "use each row's own positions as given (int64 (batch, seq)), for any values in the range"


def check_scenarios(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Left padding, per-row positions, decode, call lengths and the state after a long call."""
    impl, spec = ctx.impl, ctx.rope
    rng = np.random.default_rng(ctx.seed + 1)
    d = spec.head_dim
    top = position_cap(spec, ctx.top)
    ctx = ctx.with_(top=top)
    length_cap = top + 1
    if spec.depends_on_length:
        length_cap = min(length_cap, spec.scaling.original_max_position_embeddings)  # type: ignore[union-attr]
    scen: list[tuple[str, str, np.ndarray | None, str]] = []
    # left padding: rows start at different points; pads at position 0 (HF) or 1
    pad = np.array([[0, 0, 0, 0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5, 6, 7], [1, 1, 1, 2, 3, 4, 5, 6]], dtype=np.int64)
    scen.append(("left_padding", "per-row positions with left padding", pad, ""))
    if min(top, 4096) + 1 >= 16:
        nc = np.sort(rng.choice(min(top, 4096) + 1, size=(2, 8), replace=False), axis=1).astype(np.int64)
        scen.append(("noncontiguous", "non-contiguous, different positions per row", nc, ""))
    else:
        scen.append(
            (
                "noncontiguous",
                "non-contiguous, different positions per row",
                None,
                f"needs 16 distinct positions; the valid range has {top + 1}",
            )
        )
    dec = np.array([[top], [max(top // 2, 1)], [min(top, 4097)]], dtype=np.int64)
    scen.append(("decode", "KV-cache decode: seq 1 at a large offset, a different one per row", dec, ""))
    for key, what, pos, skip in scen:
        if impl.convention == "none":
            skip = (
                "an fn(x) target takes no positions (always 0..seq-1): per-row positions, left padding and decode "
                "cannot be given to it"
            )
        if pos is None or skip:
            report.add(Check(f"positions:{key}", "behaviour", "skip", f"{what}: {skip}", dtype))
            continue
        x = random_x(rng, (pos.shape[0], pos.shape[1], 2, d), dtype)
        try:
            dev = against_reference(ctx, x, pos, dtype)
        except (TargetError, UsageError) as exc:
            raised_check(report, ctx, Check(f"positions:{key}", "behaviour", "fail", f"{what}: {exc}", dtype))
            continue
        via = " (per-row calls: the target takes one offset per call)" if impl.convention == "offset" else ""
        failed = Check(f"positions:{key}", "behaviour", "fail", what + via, dtype, _ROW_HINT, "positions")
        record_deviation(report, failed, dev)
    _lengths(report, ctx, dtype, rng, length_cap)


def _lengths(report: VerifyReport, ctx: RunContext, dtype: str, rng: np.random.Generator, length_cap: int) -> None:
    """The same token at the same position in calls of different lengths; the short call again after the longest."""
    impl, spec = ctx.impl, ctx.rope
    d = spec.head_dim
    lengths = sorted({n for n in (1, 7, 2047, 2049, 4097, 8193) if n <= length_cap} | {min(length_cap, 8193)})
    if impl.convention == "none":
        lengths = [n for n in lengths if n * d <= 1 << 22]
    probe = random_x(rng, (1, 1, 1, d), dtype)
    outs = []
    x = np.zeros((1, 1, 1, d))
    for n in lengths:
        x = np.zeros((1, n, 1, d))
        x[0, :, 0] = probe[0, 0, 0]
        try:
            got = impl.run(x, np.arange(n, dtype=np.int64)[None], dtype=dtype, device=ctx.device)
        except (TargetError, UsageError) as exc:
            raised_check(
                report,
                ctx.with_(top=n - 1),
                Check("lengths", "behaviour", "fail", f"a call of length {n}: {exc}", dtype),
            )
            return
        outs.append(got[0, :, 0])
    if not _state_after_longest(report, ctx, dtype, np.ascontiguousarray(x[:, : lengths[0]]), outs[0], lengths):
        return
    scale = max(spec.attention_factor, 1.0) * float(np.abs(probe).max())
    _length_verdict(report, spec, dtype, lengths, outs, scale)


def _state_after_longest(
    report: VerifyReport,
    ctx: RunContext,
    dtype: str,
    short: np.ndarray,
    first: np.ndarray,
    lengths: list[int],
) -> bool:
    """The short call ``short`` again after the longest one must give ``first`` again; False when the target raised."""
    scale = max(ctx.rope.attention_factor, 1.0) * float(np.abs(short).max())  # every token of ``short`` is the probe
    try:
        again = ctx.impl.run(short, np.arange(lengths[0], dtype=np.int64)[None], dtype=dtype, device=ctx.device)
    except (TargetError, UsageError) as exc:
        report.add(Check("state", "behaviour", "fail", f"a call after a long one: {exc}", dtype, "", "raised"))
        return False
    diff = float(np.abs(again[0, :, 0] - first).max(initial=0.0))
    if diff > 3 * float(per_position_bound(dtype, np.array([lengths[0]]), scale)[0]):
        report.add(
            Check(
                "state",
                "behaviour",
                "fail",
                f"a call of length {lengths[0]} gives a different result after a call of length {lengths[-1]} "
                f"(differs by {diff:.3g})",
                dtype,
                "do not keep frequencies or caches from an earlier, longer call",
                "state",
            ),
            f"a token's rotation changed after an earlier call of length {lengths[-1]}: state carried between calls",
        )
    else:
        report.add(
            Check(
                "state", "behaviour", "pass", f"the same result before and after a call of length {lengths[-1]}", dtype
            )
        )
    return True


def _length_verdict(
    report: VerifyReport, spec: RopeSpec, dtype: str, lengths: list[int], outs: list[np.ndarray], scale: float
) -> None:
    """A token must rotate the same in calls of every length: the worst pair of consecutive lengths, in words."""
    worst, where = 0.0, None
    for k in range(1, len(lengths)):
        m = min(lengths[k - 1], lengths[k])
        diff_k = np.abs(outs[k][:m] - outs[k - 1][:m]).max(axis=1)
        bound = per_position_bound(dtype, np.arange(m), scale) * 3
        ratio = diff_k / bound
        j = int(np.argmax(ratio))
        if ratio[j] > worst:
            worst, where = float(ratio[j]), (lengths[k - 1], lengths[k], j, float(diff_k[j]))
    if worst <= 1.0:
        report.add(
            Check("lengths", "behaviour", "pass", f"a token rotates the same in calls of lengths {lengths}", dtype)
        )
        return
    a, b, j, e = where  # type: ignore[misc]
    msg = (
        f"the token at position {j} rotates differently in a call of length {a} and one of length {b} "
        f"(differs by {e:.3g})"
    )
    text, hint, cause = length_dependence(
        spec,
        msg + ", below the original context where dynamic NTK is fixed",
        otherwise=(
            msg,
            "frequencies must not depend on the call's length (caches must not be rebuilt differently past a "
            "threshold)",
        ),
    )
    report.add(Check("lengths", "behaviour", "fail", msg, dtype, hint, "length_dependence", cause=cause), text)


@dataclass(frozen=True)
class _Reach:
    """The calls that reach position ``p`` past L0 (``decode``, ``prefill``), and how far each is off.

    ``toks`` are the compared tokens at ``probe`` positions, ``bound`` their bound, ``ratios`` each call's
    error over it.
    """

    p: int
    l0: int
    calls: dict[str, np.ndarray]
    ratios: dict[str, np.ndarray]
    toks: np.ndarray
    probe: np.ndarray
    bound: np.ndarray

    @property
    def bad(self) -> set[str]:
        return {k for k, r in self.ratios.items() if r.max() > 1}


def check_past_original(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """For dynamic NTK and LongRoPE: calls whose largest position is L0 or the range's end, against the reference."""
    spec = ctx.rope
    if not isinstance(spec.scaling, (DynamicNTK, LongRoPE)):
        return
    l0 = spec.scaling.original_max_position_embeddings
    name = "past_original"
    top = ctx.top
    if top < l0:
        report.add(
            Check(
                name,
                "behaviour",
                "skip",
                f"calls reaching original_max_position_embeddings ({l0}) need positions up to {l0}; the valid range "
                f"ends at {top}",
                dtype,
            )
        )
        return
    rng = np.random.default_rng(ctx.seed + 7)
    short = random_x(rng, (1, 8, 2, spec.head_dim), dtype)
    checked: list[str] = []
    for p in sorted({l0, top}):
        try:
            reach = _reach(ctx, dtype, rng, short, p)
        except (TargetError, UsageError) as exc:
            raised_check(report, ctx, Check(name, "behaviour", "fail", f"a call reaching position {p}: {exc}", dtype))
            return
        checked.append(f"{' and '.join(reach.calls)} at {p}")
        if reach.bad:
            _past_original_finding(report, spec, dtype, reach)
            return
    report.add(
        Check(
            name,
            "behaviour",
            "pass",
            f"past the original context ({l0}) the frequencies are the spec's for each call: {'; '.join(checked)} "
            "(each after a short call)",
            dtype,
        )
    )


def _reach(ctx: RunContext, dtype: str, rng: np.random.Generator, short: np.ndarray, p: int) -> _Reach:
    """A decode step at ``p`` and a prefill of ``p + 1`` tokens, each after the ``short`` call, vs the reference."""
    impl, spec, device, d = ctx.impl, ctx.rope, ctx.device, ctx.rope.head_dim
    probe = np.array(sorted({p // 2, p - 1, p}), dtype=np.int64)  # where the prefill's tokens are compared
    toks = random_x(rng, (1, len(probe), 2, d), dtype)
    want = apply_rope(toks, probe[None, :, None], spec, seq_len=p + 1)
    scale = max(spec.attention_factor, 1.0) * float(np.abs(toks).max())
    bound = per_position_bound(dtype, np.broadcast_to(probe[None, :, None, None], toks.shape), scale)
    calls: dict[str, np.ndarray] = {}
    if impl.convention != "none":  # a decode step: one token at p, after a short call
        impl.run(short, np.arange(8)[None], dtype=dtype, device=device)
        calls["decode"] = impl.run(toks[:, -1:], np.array([[p]]), dtype=dtype, device=device)
    if p + 1 <= 16384 or impl.convention == "none":  # a prefill of p + 1 tokens, after a short call
        impl.run(short, np.arange(8)[None], dtype=dtype, device=device)
        seq = np.zeros((1, p + 1, 2, d))
        seq[0, probe] = toks[0]
        calls["prefill"] = impl.run(seq, np.arange(p + 1)[None], dtype=dtype, device=device)[:, probe]
    ratios = {
        k: np.abs(v - (want[:, -1:] if k == "decode" else want)) / (bound[:, -1:] if k == "decode" else bound)
        for k, v in calls.items()
    }
    assert isinstance(spec.scaling, (DynamicNTK, LongRoPE))
    return _Reach(p, spec.scaling.original_max_position_embeddings, calls, ratios, toks, probe, bound)


def _past_original_finding(report: VerifyReport, spec: RopeSpec, dtype: str, reach: _Reach) -> None:
    """The finding for calls past L0 that are off: which call decides, a stale cache, or the frequencies named."""
    name = "past_original"
    p, calls, ratios, bad = reach.p, reach.calls, reach.ratios, reach.bad
    kind = "dynamic NTK" if isinstance(spec.scaling, DynamicNTK) else "LongRoPE"
    ev = "; ".join(f"{k} off by up to {float(ratios[k].max()):.3g}x the bound" for k in calls) + (
        f" (a call reaching position {p}, after a short call)"
    )
    if len(bad) < len(calls):  # one way of reaching p is right, the other is not: the call decides
        right = next(k for k in calls if k not in bad)
        wrong = next(iter(bad))
        detail = (
            f"a token at position {p} rotates as the spec says in a {right} but not in a {wrong} "
            f"({'one token' if wrong == 'decode' else f'{p + 1} tokens'}): the frequencies follow the call's token "
            "count, not its largest position"
        )
        msg, hint, cause = length_dependence(
            spec,
            detail,
            otherwise=(
                f"{kind} factors chosen from the call, not its largest position: {detail}",
                "choose the factors from max(position_ids) + 1 of each call",
            ),
        )
        report.add(Check(name, "behaviour", "fail", ev, dtype, hint, "length_dependence", cause=cause), msg)
        return
    key = "prefill" if "prefill" in bad else next(iter(bad))
    diag = _explain_reach(spec, dtype, reach, key)
    if diag is not None and diag.cause == "ntk_length_wrong" and diag.where.get("length", 0) > p + 1:
        msg = (
            f"a call reaching position {p} (after a short call) is rotated with the dynamic-NTK frequencies of an "
            f"earlier, longer call (length {diag.where['length']}): the frequency cache is not reset"
        )
        hint = "recompute (or reset) the frequencies when a call fits the original context again, as transformers does"
        report.add(Check(name, "behaviour", "fail", ev, dtype, hint, "state"), msg)
        return
    if diag is not None:
        report.add(
            Check(name, "behaviour", "fail", ev, dtype, diag.hint, "frequencies", cause=diag.cause), diag.message
        )
        return
    r = ratios[key]
    positions = reach.probe[None, -1:] if key == "decode" else reach.probe[None]
    first = int(positions[0][np.nonzero((r > 1).any(axis=(0, 2, 3)))[0][0]])
    msg = (
        f"past original_max_position_embeddings ({reach.l0}) the frequencies are not the spec's {kind} ones for the "
        f"call: in a call reaching position {p}, the token at position {first} is off by {float(r.max()):.3g}x the "
        "bound"
    )
    hint = f"follow the spec's {kind} schedule for calls past {reach.l0}"
    report.add(Check(name, "behaviour", "fail", ev, dtype, hint, "frequencies"), msg)


def _explain_reach(spec: RopeSpec, dtype: str, reach: _Reach, key: str) -> Diagnosis | None:
    """The frequency cause that explains call ``key``'s output: the call's other tokens first (the token at p
    itself may be off in another way too), then every token."""
    p, got = reach.p, reach.calls[key]
    tokens, positions, bnd = (
        (reach.toks[:, -1:], reach.probe[None, -1:], reach.bound[:, -1:])
        if key == "decode"
        else (reach.toks, reach.probe[None], reach.bound)
    )
    below = positions[0] < p
    for keep in ([below] if below.any() else []) + [np.ones_like(below)]:
        diag = explain(
            got[:, keep],
            tokens[:, keep],
            positions[:, keep],
            spec,
            dtype=dtype,
            bound=bnd[:, keep],
            seq_len=p + 1,
            families=frozenset({"frequencies"}),
        )
        if diag is not None:
            return diag
    return None
