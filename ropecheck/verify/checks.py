"""The checks of :func:`ropecheck.verify.run.verify`: interface, identification, properties, precision.

Each ``check_name(report, impl, spec, ...)`` runs one family of checks on the target and records
:class:`~ropecheck.verify.Check` objects (and, for failures, findings) on the report. See
:mod:`ropecheck.verify` for the order and the meaning of each family; the position scenarios,
the call lengths and the checks past a schedule's original context are in :mod:`.scenarios`.

Design constraints: a target's exception is a failed check, never an exception out of here;
every comparison is made in float64 against the fp64 reference with a per-position bound from
the error model (:func:`~.probes.per_position_bound`); inputs are drawn from seeded
generators; every call stays inside the valid range (positions 0 .. ``max_position``, calls of
at most ``max_position + 1`` tokens; :mod:`.ranges`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..diagnosis import explain, is_protocol_error, sentence
from ..errors import TargetError, TargetMemoryError, UsageError
from ..gradients import check_backward
from ..properties import PROPERTIES, PropertyResult, draw_sample
from ..schedules import Default, LongRoPE
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF
from .compare import compare, describe_deviation, matrix_deviation
from .evidence import Deviation, against_reference, raised_check, usable_top
from .identify import Identification, identify, position_cap, probe_positions
from .model import Check, RunContext, VerifyReport
from .probes import random_x
from .scenarios import check_past_original, check_scenarios

__all__ = ["check_behaviour", "check_gradients", "check_identification", "check_interface", "check_precision"]

# --------------------------------------------------------------------------- the checks


def check_interface(report: VerifyReport, ctx: RunContext, dtype: str, rng: np.random.Generator) -> bool:
    """One raw call; returns False when the target cannot be called at all in this dtype."""
    impl, spec_d, device, allow_inplace = ctx.impl, ctx.head_dim, ctx.device, ctx.allow_inplace
    name = "interface"
    x64 = random_x(rng, (2, 5, 3, spec_d), dtype)
    positions = np.array([[0, 1, 2, 3, 4], [3, 4, 5, 6, 7]], dtype=np.int64)
    if impl.convention != "positions":
        positions = np.broadcast_to(np.arange(5)[None], (2, 5)).copy()
    try:  # settles numpy vs torch for "auto" targets
        impl.call(
            x64,
            dtype=dtype,
            device=device,
            positions=positions if impl.convention == "positions" else None,
            offset=0 if impl.convention == "offset" else None,
        )
    except TargetError as exc:
        if not getattr(exc, "output_problem", False):
            text = str(exc)
            hint = (
                "the target must accept the canonical protocol with x (batch, seq, heads, head_dim) in this dtype: "
                "fn(x, positions), or fn(x, offset) / fn(x) with --positions offset|implicit"
                if is_protocol_error(text)
                else "look at the target's own line above: it fails on a 2-row, 5-token call at positions 0..7"
            )
            report.add(Check(name, "interface", "fail", text, dtype, hint, "raised"))
            return False  # otherwise the raw call below says what is wrong with the output
    except UsageError as exc:
        report.add(Check(name, "interface", "skip", str(exc), dtype))
        return False
    except Exception:  # the output could not even be read back (e.g. a meta tensor): classify it below
        pass
    reply = impl.request(
        "interface",
        x=x64,
        dtype=dtype,
        device=device,
        positions=positions if impl.convention == "positions" else None,
        offset=0 if impl.convention == "offset" else None,
    )
    if reply.get("status") == "memory":
        raise TargetMemoryError(f"{impl.name} ran out of memory: {reply.get('error')}")
    if reply.get("status") != "ok":
        report.add(Check(name, "interface", "fail", f"{impl.name} raised {reply.get('error')}", dtype, "", "raised"))
        return False
    problems = interface_problems(reply, x64, positions if impl.convention == "positions" else None, dtype,
                                  allow_inplace)  # fmt: skip
    if problems:
        for code, msg, hint in problems:
            report.add(Check(f"interface:{code}", "interface", "fail", msg, dtype, hint, code))
        return not any(code in ("raised", "shape", "not_tensor", "device") for code, _, _ in problems)
    report.add(
        Check(name, "interface", "pass", f"returns x's shape and dtype on {device}, finite, input untouched", dtype)
    )
    return True


def interface_problems(
    facts: dict[str, Any], x64: np.ndarray, positions: np.ndarray | None, dtype: str, allow_inplace: bool
) -> list[tuple[str, str, str]]:
    """(code, what is wrong, how to fix it) for each problem the raw facts of one call show."""
    problems: list[tuple[str, str, str]] = []
    is_torch = str(facts.get("in_module", "")).startswith("torch")
    out_shape, out_dtype = facts.get("shape"), facts.get("dtype")
    if is_torch and not str(facts.get("module", "")).startswith("torch"):
        problems.append(("not_tensor", f"returned a {facts.get('type')}, expected a torch tensor", "return a tensor"))
    elif out_shape is None or out_dtype is None:
        problems.append(("not_tensor", f"returned a {facts.get('type')}, expected an array", "return an array"))
    else:
        in_shape = tuple(x64.shape)
        if tuple(out_shape) != in_shape:
            problems.append(
                ("shape", f"returned shape {tuple(out_shape)}, expected x's {in_shape}",
                 "return x's shape (batch, seq, heads, head_dim)")
            )  # fmt: skip
        if str(out_dtype) != str(facts.get("in_dtype")):
            fix = "cast the result back to x.dtype (out.type_as(x))"
            problems.append(("dtype", f"returned dtype {out_dtype} for {dtype} input", fix))
        moved = is_torch and str(facts.get("device")) != str(facts.get("in_device"))
        if moved:
            problems.append(
                ("device", f"returned a tensor on {facts.get('device')} for input on {facts.get('in_device')}",
                 "keep x's device")
            )  # fmt: skip
        out = facts.get("out")
        finite = moved or (isinstance(out, np.ndarray) and bool(np.isfinite(out).all()))
        if not finite:
            problems.append(
                ("nonfinite", "the output holds NaN or inf", "look for overflow in the cos/sin cache or a division")
            )
    after = facts.get("x_after")
    if not (isinstance(after, np.ndarray) and np.array_equal(after, x64)) and not allow_inplace:
        problems.append(
            (
                "mutation",
                "x was modified in place (the input changed during the call)",
                "return a new tensor (avoid x.mul_ / x[...] = ...), or pass --allow-inplace if in-place is intended",
            )
        )
    p_after = facts.get("positions_after")
    if positions is not None and not (isinstance(p_after, np.ndarray) and np.array_equal(p_after, positions)):
        problems.append(("mutation", "the positions tensor was modified in place", "do not write into positions"))
    return problems


def check_identification(report: VerifyReport, ctx: RunContext, dtype: str) -> RopeSpec | None:
    """Identify the target and compare it with ``ctx.spec`` (or, with none, build the spec it implements)."""
    spec = ctx.spec
    cap = position_cap(spec, ctx.top)
    ident = _identify(report, ctx.with_(top=cap), dtype)
    if ident is None:
        return spec
    report.identification = ident
    if ident.notes:
        report.notes.extend(ident.notes)
    top = max(ident.positions)
    cap = usable_top(report, cap)
    if top < cap:
        report.notes.append(
            f"identification probed positions up to {top} (a fn(x) target needs a call of length p+1 per position p)"
        )
    if spec is None:
        spec = _spec_from_identification(ident, report, dict(ctx.conventions), dtype)
        if spec is None:
            code, why = _unidentified(ident)
            report.add(
                Check(
                    "identification",
                    "identification",
                    "fail",
                    f"the target is {ident.describe()}",
                    dtype,
                    "give the spec (--head-dim/--base/--layout or --hf-config) to compare with",
                    code,
                ),
                f"the target is not a consistent RoPE ({why}): it is {ident.describe()}",
            )
            return None
        report.spec_source = "identified"
    discrepancies = compare(ident, spec)
    if not discrepancies:
        report.add(Check("identification", "identification", "pass", f"the target is {ident.describe()}", dtype))
    for d in discrepancies:
        report.add(
            Check(f"identification:{d.code}", "identification", "fail", d.message, dtype, d.hint, d.code, cause=d.cause)
        )
    _check_angles(report, ident, spec, dtype, explained=bool(discrepancies))
    return spec


def _identify(report: VerifyReport, ctx: RunContext, dtype: str) -> Identification | None:
    """The identification up to ``ctx.top``, or up to a table's end found below it (None: not identified)."""
    impl, head_dim, device, cap = ctx.impl, ctx.head_dim, ctx.device, ctx.top
    try:
        return identify(impl, head_dim, max_position=cap, dtype=dtype, device=device)
    except TargetError as exc:
        first = raised_check(report, ctx, Check("identification", "identification", "fail", str(exc), dtype))
    if first is None or first - 1 < 8:
        return None
    try:  # the table ends at `first`: identify what the target does before it
        return identify(impl, head_dim, max_position=first - 1, dtype=dtype, device=device)
    except TargetError:
        return None


def _check_angles(report: VerifyReport, ident: Identification, spec: RopeSpec, dtype: str, *, explained: bool) -> None:
    """The matrices position by position against the spec's; where they stop agreeing, in words unless
    ``explained`` (a structural difference already says why)."""
    top = max(ident.positions)
    first_bad, rows = matrix_deviation(ident, spec)
    worst = max(rows, key=lambda r: r[1] / r[2])
    details = {"positions": [r[0] for r in rows], "max_abs_err": [r[1] for r in rows], "bound": [r[2] for r in rows]}
    if first_bad is None:
        report.add(
            Check(
                "angles",
                "identification",
                "pass",
                f"M(p) matches the spec at all {len(rows)} probed positions up to {top} "
                f"(worst {worst[1]:.2g} vs bound {worst[2]:.2g} at {worst[0]})",
                dtype,
                details=details,
            )
        )
        return
    d = describe_deviation(ident, first_bad, spec)
    err = next(r for r in rows if r[0] == first_bad)
    ev = f"M(p) deviates from the spec from position {first_bad} on ({err[1]:.3g} > bound {err[2]:.3g})" + (
        "" if explained else f": {d.message}"
    )
    report.add(
        Check(
            "angles",
            "identification",
            "fail",
            ev,
            dtype,
            d.hint,
            None if explained else d.code,
            details=details,
            cause=None if explained else d.cause,
        ),
        None if explained else d.message,
    )


def _unidentified(ident: Identification) -> tuple[str, str]:
    """(finding code, reason) for a target that is no RoPE of any spec (the no-spec path)."""
    if not ident.is_rotation:
        return ("nonfinite" if "NaN" in ident.rotation_problem else "not_rotation"), ident.rotation_problem
    if not ident.pairs:
        return "positions", "no dim is rotated at any position"
    if ident.layout not in ("half", "interleaved"):
        shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:3])
        return "layout", f"pairs {shown}, ...: neither interleaved nor half-split"
    if not ident.rotary_prefix and not ident.rotary_suffix:
        return "rotary_dim", "the rotated dims are neither the leading nor the trailing ones"
    if ident.direction not in ("standard", "reversed"):
        return "direction", f"the rotation direction is {ident.direction}"
    return "phase", "position 0 is not the identity"


_NICE_BASES = (10000.0, 500000.0, 1000000.0, 100000.0, 50000.0, 20000.0, 160000.0, 5e6, 1e7, 75000.0, 25000.0)


def _spec_from_identification(
    ident: Identification, report: VerifyReport, conventions: dict[str, Any], dtype: str
) -> RopeSpec | None:
    """The spec the target implements, when it is a consistent RoPE (the ``--layout auto`` path).

    A convention it recognises (rotation by -theta, the rotated dims at the end of the head) is
    reported as that convention -- accepted when it was declared (``conventions``), else a
    finding that says which flag accepts it -- and the rest is checked under it.
    """
    if not ident.is_rotation or not ident.pairs or ident.layout not in ("half", "interleaved"):
        return None
    if not (ident.rotary_prefix or ident.rotary_suffix) or ident.direction not in ("standard", "reversed"):
        return None
    if ident.phase0 and max(abs(v) for v in ident.phase0) > 1e-3:
        return None
    direction = -1 if ident.direction == "reversed" else 1
    rotary_dims = "last" if ident.rotary_suffix else "first"
    declared_dir = int(conventions.get("direction", 1))
    declared_dims = str(conventions.get("rotary_dims", "first"))
    if direction != declared_dir:
        if direction < 0:
            msg = (
                "a consistent RoPE rotating by -theta (each pair turns by -m*theta_i); pass --direction=-1 to accept "
                "it if the model was trained this way"
            )
            hint = "pass --direction -1 (a model trained with the mirrored rotation), or fix the sign of sin"
        else:
            msg = "a consistent RoPE rotating by +theta, but --direction -1 was declared"
            hint = "drop --direction -1"
        report.add(Check("identification:direction", "identification", "fail", msg, dtype, hint, "direction"))
    if rotary_dims != declared_dims:
        r, d = ident.rotary_dim, ident.head_dim
        if rotary_dims == "last":
            msg = (
                f"a consistent RoPE on the last {r} of {d} dims (dims {d - r}-{d - 1}, as DeepSeek MLA's "
                "cat(q_nope, q_pe)); pass --rotary-dims last to accept it"
            )
        else:
            msg = f"a consistent RoPE on the first {r} dims, but --rotary-dims last was declared"
        report.add(
            Check(
                "identification:rotary_dim",
                "identification",
                "fail",
                msg,
                dtype,
                "declare where the rotated dims are with --rotary-dims first|last",
                "rotary_dim",
                cause="rotary_dims_misplaced",
            )
        )
    scale = 1.0 if ident.scale is None else float(ident.scale)
    common: dict[str, Any] = {
        "head_dim": ident.head_dim,
        "rotary_dim": ident.rotary_dim,
        "layout": ident.layout,
        "direction": direction,
        "rotary_dims": rotary_dims,
    }
    if not ident.geometric or ident.base is None or ident.index_shift or abs(scale - 1.0) > 1e-4:
        # a scaled schedule: check the target against its own frequencies (per-pair factors over base 10000)
        default = RopeSpec(head_dim=ident.head_dim, rotary_dim=ident.rotary_dim).inv_freq()
        factors = tuple(float(f) for f in default / np.asarray(ident.inv_freq))
        report.notes.append(
            "no spec given and the schedule is not base^(-2i/r): checked against the target's own identified "
            "frequencies" + (f" and scale {scale:.6g}" if abs(scale - 1.0) > 1e-4 else "")
        )
        return RopeSpec(scaling=LongRoPE(factors, factors, 1 << 30, factor=1.0, attention=scale), **common)
    base = ident.base
    for nice in _NICE_BASES:
        if abs(base / nice - 1) < 1e-4:
            base = nice
    return RopeSpec(base=base, scaling=Default(), **common)


_PROPERTY_CODES = {
    "relative_position": "relative_position",
    "translation_invariance_attention": "relative_position",
    "head_batch_independence": "batch_head_mixing",
    "consistency": "length_dependence",
    "passthrough": "rotary_dim",
    "identity_at_zero": "positions",
    "norm_preservation": "scale",
}


def _where(res: PropertyResult) -> str:
    ctx = res.context
    return ", ".join(f"{k} {ctx[k]}" for k in ("position", "positions", "pair", "head", "batch") if k in ctx)


def _property_sentence(name: str, code: str, res: PropertyResult) -> str:
    """One sentence for a failed property, with the numbers and where (no raw comparison text)."""
    where = _where(res)
    ev = f"by {res.max_abs_err:.3g}, allowed {res.tolerance[1]:.3g}" + (f"; at {where}" if where else "")
    check = res.context.get("check")
    if code == "state":
        return f"a token's rotation changed after an earlier, longer call ({ev}): state carried between calls"
    if name == "consistency":
        if check == "other tokens":
            return f"a token's output depends on the other tokens in the call ({ev})"
        return f"a token rotates differently alone (a call of length 1) and within a longer call ({ev})"
    return {
        "relative_position": f"attention scores depend on absolute positions, not only their difference ({ev})",
        "translation_invariance_attention": (
            f"attention scores change when every position shifts by t={res.context.get('shift')} ({ev})"
        ),
        "head_batch_independence": f"a row or head rotated alone differs from the batched call ({ev})",
        "passthrough": f"the pass-through dims (outside the rotated ones) are modified ({ev})",
        "identity_at_zero": f"position 0 is not the identity ({ev}): positions are shifted",
        "norm_preservation": f"the norm of the rotated dims is not preserved ({ev}): a stray scale on cos/sin",
    }[name]


def check_behaviour(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """The properties of :mod:`ropecheck.properties`, then the position scenarios, inside the valid range."""
    impl, spec = ctx.impl, ctx.rope
    top = usable_top(report, ctx.top)
    ctx = ctx.with_(top=top)
    limit = min(top, 4095)
    sample = draw_sample(spec, ctx.seed, max_position=limit)
    for name, code in _PROPERTY_CODES.items():
        res = PROPERTIES[name](impl, spec, dtype=dtype, device=ctx.device, sample=sample, max_length=top + 1)
        c = code
        if name == "consistency" and res.context.get("check") == "state":
            c = "state"
        raised = not res.passed and tuple(res.tolerance) == (0.0, 0.0) and " raised " in res.evidence
        if raised:
            raised_check(report, ctx, Check(f"property:{name}", "behaviour", "fail", res.evidence, dtype))
            continue
        where = _where(res)
        evidence = (
            res.evidence
            if res.passed
            else f"{_property_sentence(name, c, res)}" + (f" -- {res.diagnosis}" if res.diagnosis else "")
        )
        report.add(
            Check(
                f"property:{name}",
                "behaviour",
                "pass" if res.passed else "fail",
                evidence,
                dtype,
                res.hint,
                c,
                details={"max_abs_err": res.max_abs_err, "tolerance": list(res.tolerance), "where": where},
            ),
        )
    check_scenarios(report, ctx, dtype)
    check_past_original(report, ctx, dtype)


def check_precision(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """Outputs against the fp64 reference up to the range's end, per position, with the error model's bound."""
    impl, spec = ctx.impl, ctx.rope
    rng = np.random.default_rng(ctx.seed + 2)
    top = position_cap(spec, usable_top(report, ctx.top))
    grid = np.array(probe_positions(top), dtype=np.int64)
    if impl.convention == "none":  # one native call of positions 0..L-1 (emulating each would need a call per position)
        length = int(min(top + 1, max(16, (1 << 21) // (2 * spec.head_dim))))
        pos = np.arange(length, dtype=np.int64)[None, :]
        x = random_x(rng, (1, length, 2, spec.head_dim), dtype)
    else:
        extra = rng.integers(0, top + 1, size=24) if top > 0 else np.zeros(0, np.int64)
        pos = np.unique(np.concatenate([grid, extra]))[None, :]
        x = random_x(rng, (1, pos.shape[1], 4, spec.head_dim), dtype)
    try:
        dev = against_reference(ctx, x, pos, dtype)
    except (TargetError, UsageError) as exc:
        raised_check(report, ctx.with_(top=top), Check("precision", "precision", "fail", str(exc), dtype))
        return
    if np.isinf(dev.err).any():
        _nonfinite(report, dev, pos, dtype)
        return
    per_pos = (dev.err / dev.bound).max(axis=(0, 2, 3))
    if not (per_pos > 1).any():
        k = int(np.argmax(per_pos))
        report.add(
            Check(
                "precision",
                "precision",
                "pass",
                f"error vs fp64 reference within the error model's bound at {pos.shape[1]} positions up to {top} "
                f"(worst {per_pos[k]:.2g} of the bound at position {int(pos[0, k])})",
                dtype,
                details={"positions": pos[0].tolist(), "error_over_bound": per_pos.tolist()},
            )
        )
        return
    _precision_failure(report, spec, dev, x, dtype)


def _nonfinite(report: VerifyReport, dev: Deviation, pos: np.ndarray, dtype: str) -> None:
    """The output holds NaN/inf from some position on (and where the finite error crossed the bound before)."""
    bad = (dev.err / dev.bound).max(axis=(0, 2, 3)) > 1
    inf_pos = np.isinf(dev.err).any(axis=(0, 2, 3))
    first = int(pos[0][inf_pos][0])
    finite_bad = bad & ~inf_pos
    before = (
        f"; before that the error already crosses the bound at position {int(pos[0][finite_bad][0])}"
        if finite_bad.any()
        else ""
    )
    report.add(
        Check(
            "precision",
            "precision",
            "fail",
            f"the output holds NaN/inf from position {first} on ({int(inf_pos.sum())} of {pos.shape[1]} "
            f"positions){before}",
            dtype,
            f"large positions overflow in {dtype} (max 65504 in float16): form positions and angles in float32",
            "nonfinite",
        ),
        f"the output holds NaN/inf in {dtype} from position {first} on",
    )


def _precision_failure(report: VerifyReport, spec: RopeSpec, dev: Deviation, x: np.ndarray, dtype: str) -> None:
    """The error crosses the bound: the low-precision cause that explains it, else how the error grows."""
    name = "precision"
    err, bound, pos = dev.err, dev.bound, dev.positions[:, :, 0, 0]
    per_pos = (err / bound).max(axis=(0, 2, 3))
    bad = per_pos > 1
    first = int(pos[0][bad][0])
    k = int(np.argmax(per_pos))
    err_pos = err.max(axis=(0, 2, 3))
    grows = bool(err_pos[bad].max() > 4 * max(err_pos[pos[0] <= 8].max(initial=0.0), 1e-300))
    details = {"positions": pos[0].tolist(), "error_over_bound": per_pos.tolist(), "first_position": first}
    worst = (
        f"worst {float(err_pos[k]):.3g} vs bound {float(bound[0, k].max()):.3g} at position {int(pos[0, k])}; "
        f"{int(bad.sum())} of {pos.shape[1]} positions over it"
    )
    diag = _explain_precision(dev, x, spec, dtype, bad)
    if diag is not None:
        msg, hint = sentence(diag.cause or diag.code, dtype=dtype, first=first) if diag.cause else (diag.message, "")
        if not hint:
            hint = diag.hint
        report.add(
            Check(name, "precision", "fail", f"{msg} ({worst})", dtype, hint, "precision", details, diag.cause), msg
        )
        return
    u = UNIT_ROUNDOFF[dtype]
    if dtype in ("bfloat16", "float16") and grows:
        cause = (
            f"the error grows with the position: angles (or inv_freq/cos/sin) rounded to {dtype} -- "
            f"{dtype} keeps only {int(round(-math.log2(u)))} significant bits of m*theta"
        )
        hint = (
            "compute inv_freq and m*theta in float32 (disable autocast there), take cos/sin in float32, "
            "round only the result"
        )
    elif grows:
        cause = "the error grows with the position: the angle is not m*theta_i of the spec at large positions"
        hint = "compute the angle as position * theta_i in float32 or better, for every position up to the maximum"
    else:
        cause = f"the error is large at every position: the rotation itself is off in {dtype}"
        hint = "rotate with cos/sin of the spec's angles; only the final result should be rounded to the dtype"
    ev = f"error crosses the bound at position {first} ({worst}): {cause}"
    report.add(Check(name, "precision", "fail", ev, dtype, hint, "precision", details=details))


def _explain_precision(dev: Deviation, x: np.ndarray, spec: RopeSpec, dtype: str, bad: np.ndarray) -> Any:
    """The low-precision cause (inv_freq, angles or positions rounded) that explains the output, on a subsample."""
    got, bound, pos = dev.got, dev.bound, dev.positions[:, :, 0, 0]
    n = pos.shape[1]
    keep = np.unique(
        np.concatenate([np.arange(min(n, 8)), np.nonzero(bad)[0][:40], np.linspace(0, n - 1, 24).astype(int)])
    )
    seq_len = int(pos.max()) + 1 if spec.depends_on_length else None
    sub = (got[:, keep], x[:, keep], pos[:, keep], bound[:, keep])
    diag = explain(
        sub[0], sub[1], sub[2], spec, dtype=dtype, bound=sub[3], seq_len=seq_len, families=frozenset({"precision"})
    )
    return diag


def check_gradients(report: VerifyReport, ctx: RunContext, dtype: str) -> None:
    """The backward checks (:mod:`ropecheck.gradients`) in one dtype: the gradient, then the double backward."""
    top = usable_top(report, ctx.top)
    for res in check_backward(ctx.impl, ctx.rope, dtype=dtype, device=ctx.device, seed=ctx.seed, top=top):
        code = "backward" if res.status == "fail" else None
        report.add(Check(res.name, "backward", res.status, res.evidence, dtype, res.hint, code, res.details, res.cause))
