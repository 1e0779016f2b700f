"""Backward checks: the gradient a RoPE target's autograd gives, against the transpose of the spec's rotation.

RoPE is linear in x for fixed positions: ``y = W R(theta) x`` (W the attention factor on the
rotated dims, 1 on the pass-through dims). The gradient of ``<fn(x, p), g>`` with respect to x
is therefore ``R(theta)^T W g = W R(-theta) g`` -- the rotation by -theta, times the attention
factor -- and exactly g on the pass-through dims. :func:`check_backward` takes one call with
autograd, compares the gradient with that fp64 reference, and names what is wrong:

Causes (family ``backward``, in :data:`ropecheck.diagnosis.CAUSES`):

* ``backward_dtype`` -- the gradient is not in x's dtype, or was computed in a lower one
  (it fits the error model of bfloat16/float16, not x's dtype's);
* ``backward_passthrough`` -- the rotated dims are right, the pass-through dims do not get g back;
* ``backward_direction`` -- the gradient is ``W R(+theta) g``: the forward rotation applied again;
* ``backward_attention_factor`` -- the gradient is the transpose up to a wrong factor;
* ``backward_not_transpose`` -- anything else that is not the transpose of the forward (checked
  with the adjoint identity ``<fn(x), g> = <x, grad>``, which needs no spec), and a double
  backward (the gradient of ``<grad, x>`` with respect to g) that is not the forward again.

A gradient that is the exact transpose of a forward that itself deviates from the spec passes
here: the forward checks name that deviation. Positions are int64, so no gradient flows to them.
A target without autograd (numpy, outputs without a graph, or a forward that refuses inputs
that require grad) is SKIP with the reason; so is a double backward that the target does not
support ("does not support double backward").

Tolerance: the backward of ``x*cos + rotate(x)*sin`` computed in the dtype is
``g*cos + rotate^T(g*sin)``: the same cos/sin values and the same three roundings per element
as the forward, so the forward's per-element bound (:mod:`ropecheck.tolerance`, the error
model's floor plus the angle term growing with the position) applies unchanged, with the
scale ``max|g|`` times the attention factor. Implementations that upcast to float32 and round
the result do better. The adjoint identity sums d products of two such errors: its bound is
``sqrt(d) (b_fwd |g| + b_bwd |x|)`` per token and head.

Design constraints: beside :mod:`ropecheck.properties` (the verifier and the pytest plugin use
it); torch (and jax, for JAX targets) imported on use; the target's exceptions are results,
never exceptions out of here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import TargetMemoryError
from .protocol import Implementation, round_to_dtype
from .reference import apply_rope
from .spec import RopeSpec
from .tolerance import UNIT_ROUNDOFF, dtype_name, tolerance

__all__ = ["BackwardResult", "backward_inputs", "check_backward", "gradient_bound"]

_HINTS = {
    "backward_direction": "the backward must rotate by -theta: grad = g*cos - rotate(g*sin) (the sign of sin flips)",
    "backward_attention_factor": "multiply the gradient by the same attention factor as cos/sin in the forward",
    "backward_passthrough": "return the incoming gradient unchanged on the dims the forward passes through",
    "backward_not_transpose": (
        "the backward of a rotation is its transpose: the same cos/sin, rotation by -theta; check the saved "
        "tensors and the pairing the backward uses"
    ),
    "backward_dtype": "compute the gradient in x's dtype (or float32) and return it in x's dtype",
}


@dataclass(frozen=True)
class BackwardResult:
    """One backward check: ``status`` pass/fail/skip, the cause when it failed, the sentence and the fix."""

    name: str
    status: str
    evidence: str
    dtype: str
    cause: str | None = None
    hint: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status != "fail"


def gradient_bound(dtype: str, positions: np.ndarray, scale: float) -> np.ndarray:
    """The error model's per-element bound for a gradient (the forward's: same cos/sin, same roundings)."""
    rtol, atol0 = tolerance(dtype, "rotation", max_position=0)
    _, atol1 = tolerance(dtype, "rotation", max_position=1)
    return ((rtol + atol0) + (atol1 - atol0) * np.abs(np.asarray(positions, dtype=np.float64))) * scale


def backward_inputs(
    impl: Implementation, spec: RopeSpec, dtype: str, seed: int, top: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """(x, g, positions (batch, seq), the native call's position argument) for one autograd call.

    Positions reach ``min(top, 4095)`` where the convention lets them (per-row positions, or
    an offset); ``fn(x)`` targets are called at 0 .. seq-1.
    """
    rng = np.random.default_rng(seed + 7)
    limit = max(min(int(top), 4095), 7)
    seq, d = 8, spec.head_dim
    shape = (2, seq, 2, d)
    x = round_to_dtype(np.clip(rng.standard_normal(shape), -4, 4), dtype)
    g = round_to_dtype(np.clip(rng.standard_normal(shape), -4, 4), dtype)
    if impl.convention == "positions":
        pos = np.stack([np.sort(rng.choice(limit + 1, seq, replace=False)) for _ in range(2)]).astype(np.int64)
        pos[0, 0] = 0
        arg: Any = pos
    elif impl.convention == "offset":
        start = int(max(limit - seq + 1, 0))
        pos = np.broadcast_to(start + np.arange(seq), (2, seq)).astype(np.int64)
        arg = start
    else:
        pos = np.broadcast_to(np.arange(seq), (2, seq)).astype(np.int64)
        arg = None
    return x, g, pos, arg


class _NoAutograd(Exception):
    """The target has no autograd path for this call: the check is skipped with this reason."""


def _vjp(
    impl: Implementation, x: np.ndarray, g: np.ndarray, arg: Any, dtype: str, device: str
) -> tuple[np.ndarray, np.ndarray, str, np.ndarray | None, str]:
    """(output, gradient, the gradient's dtype, double backward (d<grad, x>/dg) or None, why it is None).

    The autograd calls run where the target lives (:mod:`ropecheck.host`); only their values come back.
    """
    positions = arg if isinstance(arg, np.ndarray) else None
    offset = None if positions is not None or arg is None else int(arg)
    reply = impl.request("vjp", x=np.ascontiguousarray(x), g=np.ascontiguousarray(g), dtype=dtype, device=device,
                         positions=positions, offset=offset)  # fmt: skip
    status = reply.get("status")
    if status == "no_autograd":
        raise _NoAutograd(str(reply.get("why", "")))
    if status == "memory":
        raise TargetMemoryError(f"{impl.name} ran out of memory: {reply.get('error')}")
    if status != "ok":
        raise RuntimeError(str(reply.get("error", status)))
    out, grad, double = reply.get("out"), reply.get("grad"), reply.get("double")
    if not all(isinstance(v, np.ndarray) and v.shape == x.shape for v in (out, grad)) or not (
        double is None or (isinstance(double, np.ndarray) and double.shape == x.shape)
    ):
        raise _NoAutograd("the output or gradient under autograd is not of x's shape (the forward checks judge it)")
    return out, grad, str(reply.get("grad_dtype", "")), double, str(reply.get("why", ""))  # type: ignore[return-value]


def _within(err: np.ndarray, bound: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(err)) and np.all(err <= bound))


def check_backward(
    impl: Implementation, spec: RopeSpec, *, dtype: Any = "float32", device: str = "cpu", seed: int = 0, top: int = 4095
) -> list[BackwardResult]:
    """The backward checks of ``impl`` in ``dtype``: the gradient, then the double backward.

    Example:
        >>> from ropecheck.protocol import as_implementation, torch_reference
        >>> spec = RopeSpec(head_dim=8)
        >>> [r.status for r in check_backward(as_implementation(torch_reference(spec)), spec)]
        ['pass', 'pass']
    """
    dt = dtype_name(dtype)
    x, g, pos, arg = backward_inputs(impl, spec, dt, seed, top)
    try:
        out, grad, gdt, dd, why = _vjp(impl, x, g, arg, dt, device)
    except _NoAutograd as exc:
        return [BackwardResult("backward", "skip", f"not run: {exc}", dt)]
    except RuntimeError as exc:
        return [
            BackwardResult(
                "backward", "fail", str(exc), dt, "backward_not_transpose", "the backward must not raise on valid input"
            )
        ]
    results = [_judge_gradient(spec, x, g, pos, out, grad, gdt, dt)]
    if dd is None:
        results.append(BackwardResult("backward:double", "skip", f"not run: {why}", dt))
    else:
        results.append(_judge_double(spec, x, pos, out, dd, dt))
    return results


@dataclass(frozen=True)
class _Gradient:
    """One gradient under judgment, with the fp64 reference and the bounds that each cause's test reads."""

    spec: RopeSpec
    x: np.ndarray
    g: np.ndarray
    pos: np.ndarray  # (batch, seq)
    out: np.ndarray  # the target's forward, from the same call
    grad: np.ndarray
    dt: str
    pos_b: np.ndarray  # positions broadcast to x's shape
    want: np.ndarray  # the transpose W R(-theta) g
    bound: np.ndarray  # per element, scaled by max|g|
    rot: np.ndarray  # which dims the spec rotates
    err: np.ndarray  # |grad - want|
    worst: float  # the largest err / bound on the rotated dims
    details: dict[str, Any]

    @classmethod
    def of(
        cls, spec: RopeSpec, x: np.ndarray, g: np.ndarray, pos: np.ndarray, out: np.ndarray, grad: np.ndarray, dt: str
    ) -> _Gradient:
        pos_b = np.broadcast_to(pos[:, :, None, None], x.shape)
        want = apply_rope(g, pos[..., None], dataclasses.replace(spec, direction=-spec.direction))
        bound = gradient_bound(dt, pos_b, max(spec.attention_factor, 1.0) * float(np.abs(g).max()))
        rot = np.zeros(spec.head_dim, dtype=bool)
        rot[spec.rotated_dims()] = True
        err = np.abs(grad - want)
        worst = float(np.nanmax(err[..., rot] / bound[..., rot])) if rot.any() else 0.0
        details = {"worst_over_bound": worst, "positions": pos.tolist()}
        return cls(spec, x, g, pos, out, grad, dt, pos_b, want, bound, rot, err, worst, details)

    def fail(self, cause: str, evidence: str) -> BackwardResult:
        return BackwardResult("backward", "fail", evidence, self.dt, cause, _HINTS[cause], self.details)

    def passed(self, evidence: str) -> BackwardResult:
        return BackwardResult("backward", "pass", evidence, self.dt, details=self.details)


def _judge_gradient(
    spec: RopeSpec,
    x: np.ndarray,
    g: np.ndarray,
    pos: np.ndarray,
    out: np.ndarray,
    grad: np.ndarray,
    gdt: str,
    dt: str,
) -> BackwardResult:
    c = _Gradient.of(spec, x, g, pos, out, grad, dt)
    rot = c.rot
    rot_ok = _within(c.err[..., rot], c.bound[..., rot])
    pass_ok = bool(np.array_equal(grad[..., ~rot], g[..., ~rot]))
    if gdt != dt:
        return c.fail("backward_dtype", f"the gradient of a {dt} input is {gdt}, not {dt}")
    if rot_ok and pass_ok:
        return c.passed(
            f"the gradient is the transpose W R(-theta) g within the error model's bound at positions up to "
            f"{int(pos.max())} (worst {c.worst:.2g} of it); the pass-through dims get g back exactly; int64 positions "
            "take no gradient"
        )
    judged = _against_own_forward(c)
    if judged is not None:
        return judged
    if rot_ok:
        return _passthrough_failure(c)
    # the forward matches the spec: which wrong backward the gradient is (first match wins)
    for recognise in (_rotates_forward, _wrong_factor, _lower_dtype):
        judged = recognise(c)
        if judged is not None:
            return judged
    i = np.unravel_index(int(np.argmax(np.where(rot, c.err, 0))), c.err.shape)
    return c.fail(
        "backward_not_transpose",
        f"the gradient is not W R(-theta) g: off by {float(c.err[i]):.3g} (bound {float(c.bound[i]):.3g}) at position "
        f"{int(pos[i[0], i[1]])}, dim {int(i[3])}; the forward matches the spec, so the backward is not its transpose",
    )


def _against_own_forward(c: _Gradient) -> BackwardResult | None:
    """When the target's forward deviates from the spec: whether the gradient is at least its transpose.

    The adjoint identity <fn(x), g> = <x, grad>, per token and head, needs no spec. None when the
    forward matches the spec (the gradient is then judged against the spec's transpose).
    """
    spec, x, g = c.spec, c.x, c.g
    fwd_bound = gradient_bound(c.dt, c.pos_b, max(spec.attention_factor, 1.0) * float(np.abs(x).max()))
    if _within(np.abs(c.out - apply_rope(x, c.pos[..., None], spec)), fwd_bound):
        return None
    lhs, rhs = (c.out * g).sum(-1), (x * c.grad).sum(-1)
    norms = fwd_bound[..., 0] * np.linalg.norm(g, axis=-1) + c.bound[..., 0] * np.linalg.norm(x, axis=-1)
    adj_tol = np.sqrt(spec.head_dim) * norms
    if _within(np.abs(lhs - rhs), adj_tol):
        return c.passed(
            "the gradient is the transpose of the target's own forward (<fn(x), g> = <x, grad> per token); the "
            "forward itself deviates from the spec, which the forward checks report"
        )
    return c.fail(
        "backward_not_transpose",
        f"the gradient is not the transpose of the forward: <fn(x), g> and <x, grad> differ by up to "
        f"{float(np.abs(lhs - rhs).max()):.3g} (allowed {float(adj_tol.max()):.3g})",
    )


def _passthrough_failure(c: _Gradient) -> BackwardResult:
    """The rotated dims are right, so the first pass-through dim that does not get g back is named."""
    rot = c.rot
    bad = np.argwhere(c.grad[..., ~rot] != c.g[..., ~rot])
    dims = np.nonzero(~rot)[0]
    k = int(dims[bad[0][-1]])
    at = tuple(bad[0][:-1]) + (k,)
    return c.fail(
        "backward_passthrough",
        f"the backward is wrong on the pass-through dims: dim {k} (not rotated, rotary_dim={c.spec.rotary_dim}) "
        f"gets {float(c.grad[at]):.4g} instead of g = {float(c.g[at]):.4g}",
    )


def _rotates_forward(c: _Gradient) -> BackwardResult | None:
    same_way = apply_rope(c.g, c.pos[..., None], c.spec)
    if not _within(np.abs(c.grad - same_way)[..., c.rot], c.bound[..., c.rot]):
        return None
    return c.fail(
        "backward_direction",
        "the backward rotates the wrong way: the gradient is W R(+theta) g (the forward rotation), not its "
        f"transpose W R(-theta) g (worst {c.worst:.3g} of the bound)",
    )


def _wrong_factor(c: _Gradient) -> BackwardResult | None:
    a = c.spec.attention_factor
    wr, gr = c.want[..., c.rot], c.grad[..., c.rot]
    k = float((wr * gr).sum() / max(float((wr * wr).sum()), 1e-300))  # least-squares factor grad / want
    if not (abs(k - 1.0) > 1e-3 and _within(np.abs(gr - k * wr), c.bound[..., c.rot])):
        return None
    return c.fail(
        "backward_attention_factor",
        f"the backward carries the factor {k * a:.6g} instead of the attention factor {a:.6g} (the gradient is "
        f"{k:.6g} times the transpose)",
    )


def _lower_dtype(c: _Gradient) -> BackwardResult | None:
    """A gradient outside its dtype's bound but within a lower dtype's: computed in that dtype."""
    dt, rot = c.dt, c.rot
    for low in ("bfloat16", "float16"):
        if UNIT_ROUNDOFF[low] > UNIT_ROUNDOFF[dt]:
            low_bound = gradient_bound(low, c.pos_b, max(c.spec.attention_factor, 1.0) * float(np.abs(c.g).max()))
            if _within(c.err[..., rot], low_bound[..., rot]):
                return c.fail(
                    "backward_dtype",
                    f"the {dt} gradient is off by {float(c.err[..., rot].max()):.3g} (worst {c.worst:.3g} of the "
                    f"{dt} bound) but within {low}'s: the backward computes in {low}",
                )
    return None


def _judge_double(
    spec: RopeSpec, x: np.ndarray, pos: np.ndarray, out: np.ndarray, dd: np.ndarray, dt: str
) -> BackwardResult:
    """d<grad, x>/dg = M x: the double backward gives the forward again (compared with the target's own forward)."""
    pos_b = np.broadcast_to(pos[:, :, None, None], x.shape)
    bound = 2 * gradient_bound(dt, pos_b, max(spec.attention_factor, 1.0) * float(np.abs(x).max()))
    err = np.abs(dd - out)
    if _within(err, bound):
        return BackwardResult(
            "backward:double",
            "pass",
            f"the double backward (d<grad, x>/dg) is the forward again (worst {float((err / bound).max()):.2g} of "
            "the bound)",
            dt,
        )
    return BackwardResult(
        "backward:double",
        "fail",
        f"the double backward is not the forward: d<grad, x>/dg differs from fn(x) by up to {float(err.max()):.3g} "
        f"(allowed {float(bound.max()):.3g})",
        dt,
        "backward_not_transpose",
        "the backward must be differentiable as written (the transpose of the forward) for double backward",
    )
