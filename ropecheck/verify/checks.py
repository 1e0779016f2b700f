"""The checks of :func:`ropecheck.verify.run.verify`: interface, identification, behaviour, precision.

Each ``_name(report, impl, spec, ...)`` runs one family of checks on the target and records
:class:`~ropecheck.verify.Check` objects (and, for failures, findings) on the report. See
:mod:`ropecheck.verify` for the order and the meaning of each family.

Design constraints: a target's exception is a failed check, never an exception out of here;
every comparison is made in float64 against the fp64 reference with a per-position bound from
the error model (:func:`_per_position_bound`); inputs are drawn from seeded generators.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import TargetError, UsageError
from ..properties import PROPERTIES, draw_sample
from ..protocol import Implementation, is_out_of_memory
from ..reference import apply_rope
from ..schedules import Default, LongRoPE
from ..spec import RopeSpec
from ..tolerance import UNIT_ROUNDOFF
from .identify import (
    Identification,
    compare,
    describe_deviation,
    identify,
    matrix_deviation,
    position_cap,
    probe_positions,
)
from .model import Check, VerifyReport
from .probes import per_position_bound, random_x, torch_module

__all__ = ["check_behaviour", "check_identification", "check_interface", "check_precision"]

# --------------------------------------------------------------------------- the checks


def check_interface(
    report: VerifyReport,
    impl: Implementation,
    spec_d: int,
    dtype: str,
    device: str,
    allow_inplace: bool,
    rng: np.random.Generator,
) -> bool:
    """One raw call; returns False when the target cannot be called at all in this dtype."""
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
        if not getattr(exc, "output_problem", False):  # the raw call below says what is wrong with an output
            report.add(
                Check(
                    name,
                    "interface",
                    "fail",
                    str(exc),
                    dtype,
                    "the target must accept fn(x, positions) with x (batch, seq, heads, head_dim) in this dtype",
                    "raised",
                )
            )
            return False
    except UsageError as exc:
        report.add(Check(name, "interface", "skip", str(exc), dtype))
        return False
    except Exception:  # the output could not even be read back (e.g. a meta tensor): classify it below
        pass
    xin = impl._wrap(x64, dtype, device)
    pin = impl._positions(positions, device)
    x_before = xin.clone() if hasattr(xin, "clone") else xin.copy()
    p_before = pin.clone() if hasattr(pin, "clone") else pin.copy()
    try:
        if impl.convention == "positions":
            out = impl.fn(xin, pin)
        elif impl.convention == "offset":
            out = impl.fn(xin, 0)
        else:
            out = impl.fn(xin)
    except MemoryError:
        raise
    except Exception as exc:
        if is_out_of_memory(exc):
            raise MemoryError(f"{impl.name} ran out of memory: {exc}") from exc
        report.add(Check(name, "interface", "fail", f"raised {type(exc).__name__}: {exc}", dtype, "", "raised"))
        return False
    problems: list[tuple[str, str, str]] = []
    is_torch = type(xin).__module__.startswith("torch")
    if is_torch and not type(out).__module__.startswith("torch"):
        problems.append(("not_tensor", f"returned a {type(out).__name__}, expected a torch tensor", "return a tensor"))
    elif not hasattr(out, "shape") or not hasattr(out, "dtype"):
        problems.append(("not_tensor", f"returned a {type(out).__name__}, expected an array", "return an array"))
    else:
        if tuple(out.shape) != tuple(xin.shape):
            problems.append(
                (
                    "shape",
                    f"returned shape {tuple(out.shape)}, expected x's {tuple(xin.shape)}",
                    "return x's shape (batch, seq, heads, head_dim)",
                )
            )
        if str(out.dtype) != str(xin.dtype):
            problems.append(
                (
                    "dtype",
                    f"returned dtype {str(out.dtype).replace('torch.', '')} for {dtype} input",
                    "cast the result back to x.dtype (out.type_as(x))",
                )
            )
        if is_torch and str(out.device) != str(xin.device):
            problems.append(
                ("device", f"returned a tensor on {out.device} for input on {xin.device}", "keep x's device")
            )
        finite = (is_torch and str(out.device) != str(xin.device)) or bool(
            torch_module()
            .isfinite(out.double() if is_torch else torch_module().as_tensor(np.asarray(out, np.float64)))
            .all()
        )
        if not finite:
            problems.append(
                ("nonfinite", "the output holds NaN or inf", "look for overflow in the cos/sin cache or a division")
            )
    same_x = bool((xin == x_before).all()) if is_torch else bool(np.array_equal(xin, x_before))
    if not same_x and not allow_inplace:
        problems.append(
            (
                "mutation",
                "x was modified in place (the input changed during the call)",
                "return a new tensor (avoid x.mul_ / x[...] = ...), or pass --allow-inplace if in-place is intended",
            )
        )
    if hasattr(pin, "shape") and impl.convention == "positions":
        same_p = bool((pin == p_before).all()) if is_torch else bool(np.array_equal(pin, p_before))
        if not same_p:
            problems.append(("mutation", "the positions tensor was modified in place", "do not write into positions"))
    if problems:
        for code, msg, hint in problems:
            report.add(Check(f"interface:{code}", "interface", "fail", msg, dtype, hint, code))
        return not any(code in ("raised", "shape", "not_tensor", "device") for code, _, _ in problems)
    report.add(
        Check(name, "interface", "pass", f"returns x's shape and dtype on {device}, finite, input untouched", dtype)
    )
    return True


def check_identification(
    report: VerifyReport,
    impl: Implementation,
    spec: RopeSpec | None,
    head_dim: int,
    dtype: str,
    device: str,
    max_position: int,
) -> RopeSpec | None:
    cap = position_cap(spec, max_position)
    try:
        ident = identify(impl, head_dim, max_position=cap, dtype=dtype, device=device)
    except TargetError as exc:
        report.add(Check("identification", "identification", "fail", str(exc), dtype, "", "raised"))
        return spec
    report.identification = ident
    if ident.notes:
        report.notes.extend(ident.notes)
    top = max(ident.positions)
    if top < cap:
        report.notes.append(
            f"identification probed positions up to {top} (a fn(x) target needs a call of length p+1 per position p)"
        )
    if spec is None:
        spec = _spec_from_identification(ident, report)
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
        report.add(Check(f"identification:{d.code}", "identification", "fail", d.message, dtype, d.hint, d.code))
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
    else:
        d = describe_deviation(ident, first_bad)
        explained = bool(discrepancies)
        err = next(r for r in rows if r[0] == first_bad)
        ev = f"M(p) deviates from the spec from position {first_bad} on ({err[1]:.3g} > bound {err[2]:.3g})" + (
            "" if explained else f": {d.message}"
        )
        report.add(
            Check(
                "angles", "identification", "fail", ev, dtype, d.hint, None if explained else d.code, details=details
            ),
            None if explained else d.message,
        )
    return spec


def _unidentified(ident: Identification) -> tuple[str, str]:
    """(finding code, reason) for a target that is no RoPE of any spec (the no-spec path)."""
    if not ident.is_rotation:
        return ("nonfinite" if "NaN" in ident.rotation_problem else "not_rotation"), ident.rotation_problem
    if not ident.pairs:
        return "positions", "no dim is rotated at any position"
    if ident.layout not in ("half", "interleaved"):
        shown = ", ".join(f"({a}, {b})" for a, b in ident.pairs[:3])
        return "layout", f"pairs {shown}, ...: neither interleaved nor half-split"
    if not ident.rotary_prefix:
        return "rotary_dim", "the rotated dims are not the leading ones"
    if ident.direction != "standard":
        return "direction", f"the rotation direction is {ident.direction}"
    return "phase", "position 0 is not the identity"


def _spec_from_identification(ident: Identification, report: VerifyReport) -> RopeSpec | None:
    """The spec the target implements, when it is a default-schedule RoPE (the --layout auto path)."""
    if (
        not ident.is_rotation
        or not ident.pairs
        or ident.layout not in ("half", "interleaved")
        or not ident.rotary_prefix
    ):
        return None
    if ident.direction != "standard" or (ident.phase0 and max(abs(v) for v in ident.phase0) > 1e-3):
        return None
    scale = 1.0 if ident.scale is None else float(ident.scale)
    if not ident.geometric or ident.base is None or ident.index_shift or abs(scale - 1.0) > 1e-4:
        # a scaled schedule: check the target against its own frequencies (per-pair factors over base 10000)

        default = RopeSpec(head_dim=ident.head_dim, rotary_dim=ident.rotary_dim).inv_freq()
        factors = tuple(float(f) for f in default / np.asarray(ident.inv_freq))
        report.notes.append(
            "no spec given and the schedule is not base^(-2i/r): checked against the target's own identified "
            "frequencies" + (f" and scale {scale:.6g}" if abs(scale - 1.0) > 1e-4 else "")
        )
        return RopeSpec(
            head_dim=ident.head_dim,
            rotary_dim=ident.rotary_dim,
            layout=ident.layout,  # type: ignore[arg-type]
            scaling=LongRoPE(factors, factors, 1 << 30, factor=1.0, attention=scale),
        )
    base = ident.base
    for nice in (10000.0, 500000.0, 1000000.0, 100000.0, 50000.0, 1e4 * 2, 160000.0, 5e6, 1e7, 75000.0, 25000.0):
        if abs(base / nice - 1) < 1e-4:
            base = nice
    return RopeSpec(
        head_dim=ident.head_dim,
        rotary_dim=ident.rotary_dim,
        base=base,
        layout=ident.layout,  # type: ignore[arg-type]
        scaling=Default(),
    )


_PROPERTY_CODES = {
    "relative_position": "relative_position",
    "translation_invariance_attention": "relative_position",
    "head_batch_independence": "batch_head_mixing",
    "consistency": "length_dependence",
    "passthrough": "rotary_dim",
    "identity_at_zero": "positions",
    "norm_preservation": "scale",
}


def check_behaviour(
    report: VerifyReport, impl: Implementation, spec: RopeSpec, dtype: str, device: str, seed: int, max_position: int
) -> None:

    limit = min(max_position, 4095)
    sample = draw_sample(spec, seed, max_position=limit)
    # the property's long call (2 * 4095 + 2 tokens) must fit the model's context
    long_ok = (
        spec.max_position_embeddings is None or spec.max_position_embeddings >= 2 * 4095 + 2 or spec.depends_on_length
    )
    for name, code in _PROPERTY_CODES.items():
        if name == "consistency" and not long_ok:
            continue
        res = PROPERTIES[name](impl, spec, dtype=dtype, device=device, sample=sample)
        c = code
        if name == "consistency" and res.context.get("check") == "state":
            c = "state"
        raised = not res.passed and tuple(res.tolerance) == (0.0, 0.0) and " raised " in res.evidence
        if raised:
            report.add(Check(f"property:{name}", "behaviour", "fail", res.evidence, dtype, res.hint, "raised"))
            continue
        ctx = res.context
        where = ", ".join(
            f"{k} {ctx[k]}" for k in ("position", "positions", "pair", "head", "batch", "shift") if k in ctx
        )
        evidence = (
            res.evidence
            if res.passed
            else (
                f"{res.evidence} max abs err {res.max_abs_err:.3g} (allowed {res.tolerance[1]:.3g})"
                + (f" at {where}" if where else "")
            )
        )
        msg = None
        if not res.passed:
            msg = {
                "batch_head_mixing": "batch rows or heads are mixed: a row/head rotated alone differs from the "
                "batched call "
                f"({where})",
                "length_dependence": (
                    f"a token's rotation depends on the other tokens or the call's length ({res.evidence})"
                ),
                "state": "a token's rotation changed after an earlier, longer call: state/cache carried between calls",
                "relative_position": f"scores are not a function of the relative position only ({res.evidence})",
                "positions": "position 0 is not the identity: positions are shifted",
                "scale": "the norm of the rotated dims is not preserved (a stray scale on cos/sin)",
                "rotary_dim": "the pass-through dims (past rotary_dim) are modified",
            }[c]
        report.add(
            Check(
                f"property:{name}",
                "behaviour",
                "pass" if res.passed else "fail",
                evidence,
                dtype,
                res.hint,
                c,
                details={"max_abs_err": res.max_abs_err, "tolerance": list(res.tolerance)},
            ),
            msg,
        )
    _scenarios(report, impl, spec, dtype, device, seed, max_position)


def _against_reference(
    impl: Implementation,
    spec: RopeSpec,
    x: np.ndarray,
    positions: np.ndarray,
    dtype: str,
    device: str,
    *,
    seq_len: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(error, bound, positions per element) of impl vs the reference."""
    got = impl.run(x, positions, dtype=dtype, device=device)
    want = apply_rope(x, positions[..., None], spec, seq_len=seq_len)
    scale = max(spec.attention_factor, 1.0) * max(float(np.abs(x).max(initial=0.0)), 1e-30)
    pos_b = np.broadcast_to(positions[:, :, None, None], x.shape)
    bound = per_position_bound(dtype, pos_b, scale)
    err = np.abs(got - want)
    err = np.where(np.isfinite(err), err, np.inf)
    return err, bound, pos_b


def _scenarios(
    report: VerifyReport, impl: Implementation, spec: RopeSpec, dtype: str, device: str, seed: int, max_position: int
) -> None:
    rng = np.random.default_rng(seed + 1)
    d = spec.head_dim
    top = position_cap(spec, max_position)
    length_cap = top + 1
    if spec.depends_on_length:
        length_cap = spec.scaling.original_max_position_embeddings  # type: ignore[union-attr]
    conv = impl.convention
    scen: list[tuple[str, str, np.ndarray, str]] = []
    # left padding: rows start at different points; pads at position 0 (HF) or 1
    pad = np.array([[0, 0, 0, 0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5, 6, 7], [1, 1, 1, 2, 3, 4, 5, 6]], dtype=np.int64)
    scen.append(("left_padding", "per-row positions with left padding", pad, "positions"))
    nc = np.sort(rng.choice(min(top, 4096) + 1, size=(2, 8), replace=False), axis=1).astype(np.int64)
    scen.append(("noncontiguous", "non-contiguous, different positions per row", nc, "positions"))
    dec = np.array([[top], [max(top // 2, 1)], [min(top, 4097)]], dtype=np.int64)
    scen.append(("decode", "KV-cache decode: seq 1 at a large offset, a different one per row", dec, "positions"))
    if conv == "none":
        scen = [s for s in scen if s[0] == "decode"][:0]
    for key, what, pos, code in scen:
        x = random_x(rng, (pos.shape[0], pos.shape[1], 2, d), dtype)
        try:
            err, bound, pb = _against_reference(impl, spec, x, pos, dtype, device)
        except (TargetError, UsageError) as exc:
            report.add(Check(f"positions:{key}", "behaviour", "fail", f"{what}: {exc}", dtype, "", "raised"))
            continue
        _record(
            report,
            f"positions:{key}",
            what,
            err,
            bound,
            pb,
            dtype,
            code,
            "use each row's own positions as given (int64 (batch, seq)), for any values up to the maximum",
        )
    # the same token at the same position in calls of different lengths (around common cache sizes)
    lengths = sorted({n for n in (1, 7, 2047, 2049, 4097, 8193) if n <= length_cap} | {min(length_cap, 8193)})
    if conv == "none":
        lengths = [n for n in lengths if n * d <= 1 << 22]
    probe = random_x(rng, (1, 1, 1, d), dtype)
    outs = []
    for n in lengths:
        x = np.zeros((1, n, 1, d))
        x[0, :, 0] = probe[0, 0, 0]
        try:
            got = impl.run(x, np.arange(n, dtype=np.int64)[None], dtype=dtype, device=device)
        except (TargetError, UsageError) as exc:
            report.add(Check("lengths", "behaviour", "fail", f"a call of length {n}: {exc}", dtype, "", "raised"))
            return
        outs.append(got[0, :, 0])
    # state: the short call again after the longest one must give the same result
    try:
        again = impl.run(
            np.ascontiguousarray(x[:, : lengths[0]]),
            np.arange(lengths[0], dtype=np.int64)[None],
            dtype=dtype,
            device=device,
        )[0, :, 0]
    except (TargetError, UsageError) as exc:
        report.add(Check("state", "behaviour", "fail", f"a call after a long one: {exc}", dtype, "", "raised"))
        return
    diff = float(np.abs(again - outs[0]).max(initial=0.0))
    scale = max(spec.attention_factor, 1.0) * float(np.abs(probe).max())
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
    worst, where = 0.0, None
    scale = max(spec.attention_factor, 1.0) * float(np.abs(probe).max())
    for k in range(1, len(lengths)):
        m = min(lengths[k - 1], lengths[k])
        diff = np.abs(outs[k][:m] - outs[k - 1][:m]).max(axis=1)
        bound = per_position_bound(dtype, np.arange(m), scale) * 3
        ratio = diff / bound
        j = int(np.argmax(ratio))
        if ratio[j] > worst:
            worst, where = float(ratio[j]), (lengths[k - 1], lengths[k], j, float(diff[j]))
    if worst <= 1.0:
        report.add(
            Check("lengths", "behaviour", "pass", f"a token rotates the same in calls of lengths {lengths}", dtype)
        )
    else:
        a, b, j, e = where  # type: ignore[misc]
        report.add(
            Check(
                "lengths",
                "behaviour",
                "fail",
                f"the token at position {j} rotates differently in a call of length {a} and one of length {b} "
                f"(differs by {e:.3g})",
                dtype,
                "frequencies must not depend on the call's length (dynamic NTK must follow the spec, caches must "
                "not be rebuilt differently past a threshold)",
                "length_dependence",
            )
        )


def _record(
    report: VerifyReport,
    name: str,
    what: str,
    err: np.ndarray,
    bound: np.ndarray,
    pos: np.ndarray,
    dtype: str,
    code: str,
    hint: str,
    category: str = "behaviour",
) -> None:
    ratio = err / bound
    bad = ratio > 1
    if not bad.any():
        report.add(
            Check(name, category, "pass", f"{what}: within the bound (worst {float(ratio.max()):.2g} of it)", dtype)
        )
        return
    first_pos = int(pos[bad].min())
    i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    ev = (
        f"{what}: {int(bad.sum())} of {bad.size} elements off; first at position {first_pos}; worst "
        f"{float(err[i]):.3g} (bound {float(bound[i]):.3g}) at position {int(pos[i])}, row {i[0]}, dim {i[3]}"
    )
    report.add(Check(name, category, "fail", ev, dtype, hint, code))


def check_precision(
    report: VerifyReport, impl: Implementation, spec: RopeSpec, dtype: str, device: str, seed: int, max_position: int
) -> None:
    rng = np.random.default_rng(seed + 2)
    top = position_cap(spec, max_position)

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
        err, bound, pb = _against_reference(impl, spec, x, pos, dtype, device)
    except (TargetError, UsageError) as exc:
        report.add(Check("precision", "precision", "fail", str(exc), dtype, "", "raised"))
        return
    ratio = err / bound
    per_pos = ratio.max(axis=(0, 2, 3))
    bad = per_pos > 1
    name = "precision"
    inf_pos = np.isinf(err).any(axis=(0, 2, 3))
    if inf_pos.any():
        first = int(pos[0][inf_pos][0])
        finite_bad = bad & ~inf_pos
        before = (
            f"; before that the error already crosses the bound at position {int(pos[0][finite_bad][0])}"
            if finite_bad.any()
            else ""
        )
        report.add(
            Check(
                name,
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
        return
    if not bad.any():
        k = int(np.argmax(per_pos))
        report.add(
            Check(
                name,
                "precision",
                "pass",
                f"error vs fp64 reference within the error model's bound at {pos.shape[1]} positions up to {top} "
                f"(worst {per_pos[k]:.2g} of the bound at position {int(pos[0, k])})",
                dtype,
                details={"positions": pos[0].tolist(), "error_over_bound": per_pos.tolist()},
            )
        )
        return
    first = int(pos[0][bad][0])
    k = int(np.argmax(per_pos))
    err_pos = err.max(axis=(0, 2, 3))
    grows = bool(err_pos[bad].max() > 4 * max(err_pos[pos[0] <= 8].max(initial=0.0), 1e-300))
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
    ev = (
        f"error crosses the bound at position {first} ({int(bad.sum())} of {pos.shape[1]} positions over it; worst "
        f"{float(err_pos[k]):.3g} vs bound {float(bound[0, k].max()):.3g} at position {int(pos[0, k])}): {cause}"
    )
    report.add(
        Check(
            name,
            "precision",
            "fail",
            ev,
            dtype,
            hint,
            "precision" if dtype != "float32" or grows else "precision",
            details={"positions": pos[0].tolist(), "error_over_bound": per_pos.tolist(), "first_position": first},
        )
    )
