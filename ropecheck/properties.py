"""RoPE's defining facts as executable checks over any implementation.

Each ``check_<name>(fn, spec, *, dtype, device, rng, sample)`` calls an implementation
(numpy or torch callable under the canonical protocol, see :mod:`ropecheck.protocol`) on
inputs drawn from ``rng`` -- or on an explicit :class:`Sample`, which is how the Hypothesis
tests shrink to readable counterexamples -- and returns a :class:`PropertyResult` with the
evidence: the greatest absolute and relative differences, where they are, and the RoPE
context there (position, dimension pair, head, batch row, dtype, layout).

The properties (``PROPERTIES`` maps the names to the checks):

* ``matches_reference`` -- agrees with the fp64 reference for the spec;
* ``layout_equivalence`` -- rope_half(P x) = P rope_interleaved(x) for the even-first
  permutation P, and scores agree when q and k are permuted alike;
* ``translation_invariance`` / ``translation_invariance_attention`` -- q_m . k_n, and the
  whole causal score matrix, unchanged when every position is shifted by t;
* ``relative_position`` -- <R_m q, R_n k> = s q . R_{n-m} k;
* ``norm_preservation``, ``identity_at_zero``, ``composition`` (R_a R_b = s R_{a+b}),
  ``inverse`` (R_a^T R_a = s^2 I, read from the implementation's own matrix);
* ``head_batch_independence`` -- each head and row rotated by its own positions only;
* ``passthrough`` -- dims past rotary_dim come back bit-exactly;
* ``consistency`` -- a token's rotation depends neither on the call's length, nor on the
  other tokens, nor on earlier calls (the dynamic-NTK cache trap).

Here s is the spec's attention factor (1 except YaRN / LongRoPE). Design constraints:
comparisons are made in float64 against :func:`ropecheck.tolerance.tolerance`;
positions stay moderate (< 4096, and within the original context for length-dependent
schedules) so that careful bf16/fp16 implementations pass; every check is callable on its
own, and an implementation that raises yields a failed result, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .diagnosis import explain, is_protocol_error
from .errors import TargetError, UsageError
from .gradients import check_backward
from .protocol import Implementation, as_implementation, reference_impl, round_to_dtype, torch_reference
from .reference import angle_extent, apply_rope, layout_permutation
from .schedules import DynamicNTK, LongRoPE
from .spec import RopeSpec
from .tolerance import dtype_name, tolerance

__all__ = [
    "PROPERTIES",
    "PROPERTY_CODES",
    "PROPERTY_MAX_POSITION",
    "PropertyResult",
    "Sample",
    "as_implementation",
    "assert_rope_properties",
    "backward_results",
    "check_composition",
    "check_consistency",
    "check_head_batch_independence",
    "check_identity_at_zero",
    "check_inverse",
    "check_layout_equivalence",
    "check_matches_reference",
    "check_norm_preservation",
    "check_passthrough",
    "check_relative_position",
    "check_translation_invariance",
    "check_translation_invariance_attention",
    "draw_sample",
    "failure_message",
    "position_limit",
    "reference_impl",
    "run_all",
    "torch_reference",
]

#: The largest position the properties draw by default (the error model's fp32 angle term stays small).
PROPERTY_MAX_POSITION = 4095
#: The finding code (``ropecheck.verify.FINDING_CODES``) a failed property reports, as the verifier does;
#: ``matches_reference`` takes the code of the cause it diagnoses.
PROPERTY_CODES: dict[str, str] = {
    "layout_equivalence": "layout",
    "translation_invariance": "relative_position",
    "translation_invariance_attention": "relative_position",
    "relative_position": "relative_position",
    "norm_preservation": "scale",
    "identity_at_zero": "positions",
    "composition": "relative_position",
    "inverse": "not_rotation",
    "head_batch_independence": "batch_head_mixing",
    "passthrough": "rotary_dim",
    "consistency": "length_dependence",
}
Fn = Callable[..., Any]


# --------------------------------------------------------------------------- data model


@dataclass(frozen=True)
class PropertyResult:
    """The outcome of one property check, with its evidence.

    ``tolerance`` is ``(rtol, atol)`` as applied (atol already scaled to the data);
    ``context`` holds the RoPE coordinates of the worst element (``position``, ``pair``,
    ``dtype``, ``layout``, ``head``, ``batch``, ...) and the mismatch counts.
    """

    name: str
    passed: bool
    max_abs_err: float
    max_rel_err: float
    tolerance: tuple[float, float]
    evidence: str
    context: dict[str, Any] = field(default_factory=dict)
    hint: str = ""
    code: str | None = None
    cause: str | None = None
    diagnosis: str = ""

    @property
    def label(self) -> str:
        """The verifier's finding code for this failure: ``code`` or ``code/cause`` (empty when it passed)."""
        if not self.code:
            return ""
        return self.code if not self.cause else f"{self.code}/{self.cause}"

    def message(self) -> str:
        """A ``torch.testing.assert_close``-like report, then the RoPE context and how to fix it.

        Example:
            >>> r = PropertyResult("norm_preservation", True, 0.0, 0.0, (1e-7, 1e-7), "norms kept")
            >>> r.message().splitlines()[0]
            'norm_preservation: passed -- norms kept'
        """
        c = self.context
        if self.passed:
            return f"{self.name}: passed -- {self.evidence}"
        lines = [f"{self.name}: {self.evidence}", ""]
        rtol, atol = self.tolerance
        if "total" in c:
            n, total = c.get("mismatched", 0), c["total"]
            lines.append(f"Mismatched elements: {n} / {total} ({100.0 * n / max(total, 1):.1f}%)")
            lines.append(
                f"Greatest absolute difference: {self.max_abs_err:.6g} at index {c.get('index')} (up to "
                f"{atol:.3g} allowed)"
            )
            lines.append(
                f"Greatest relative difference: {self.max_rel_err:.6g} at index {c.get('rel_index')} (up to "
                f"{rtol:.3g} allowed)"
            )
        where = []
        for key, label in (
            ("position", "position"),
            ("positions", "positions"),
            ("shift", "shift"),
            ("pair", "dimension pair"),
            ("dim", "dimension"),
            ("head", "head"),
            ("batch", "batch row"),
        ):
            if key in c:
                where.append(f"{label} {c[key]}")
        where += [f"dtype {c.get('dtype')}", f"layout {c.get('layout')}"]
        lines += ["", "RoPE context: " + ", ".join(where)]
        if c.get("spec"):
            lines.append(f"Spec: {c['spec']}")
        if c.get("expected") is not None:
            lines.append(f"At that element: got {c['actual']:.6g}, expected {c['expected']:.6g}")
        if self.diagnosis:
            lines.append(f"Diagnosis [{self.label}]: {self.diagnosis}")
        elif self.code:
            lines.append(f"Finding code: {self.label}")
        if self.hint:
            lines.append(f"How to fix: {self.hint}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Sample:
    """The inputs of one round of checks (float64 values; rounded to the dtype before use).

    Args:
        x: ``(batch, seq, heads, head_dim)``, the vectors rotated (q in score checks).
        y: same shape, a second tensor (k in score checks; the "other tokens" in consistency).
        positions: int64 ``(batch, seq)``, non-negative.
        positions_b: int64 ``(batch, seq)``, second positions (k's, or b in R_a R_b).
        shift: the translation t.
    """

    x: np.ndarray
    y: np.ndarray
    positions: np.ndarray
    positions_b: np.ndarray
    shift: int

    def rounded(self, dtype: str) -> Sample:
        return Sample(
            round_to_dtype(self.x, dtype),
            round_to_dtype(self.y, dtype),
            np.asarray(self.positions, np.int64),
            np.asarray(self.positions_b, np.int64),
            int(self.shift),
        )

    def __repr__(self) -> str:
        """Constructor form, all-zero tensors as ``np.zeros(shape)``: how Hypothesis prints a counterexample.

        Example:
            >>> z = np.zeros((1, 1, 1, 2))
            >>> Sample(z, z, np.array([[3]]), np.array([[0]]), 1)  # doctest: +ELLIPSIS
            Sample(x=np.zeros((1, 1, 1, 2)), y=np.zeros((1, 1, 1, 2)), positions=np.array([[3]]), ..., shift=1)
        """

        def show(a: np.ndarray) -> str:
            a = np.asarray(a)
            if a.dtype.kind == "f" and not a.any():
                return f"np.zeros({a.shape})"
            return f"np.array({a.tolist()!r})" if a.size <= 512 else repr(a)

        fields = ", ".join(f"{k}={show(getattr(self, k))}" for k in ("x", "y", "positions", "positions_b"))
        return f"Sample({fields}, shift={self.shift})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Hypothesis' (and IPython's) pretty-printer hook
        printer.text(repr(self))

    @property
    def max_position(self) -> int:
        return int(max(self.positions.max(initial=0), self.positions_b.max(initial=0)))


def position_limit(spec: RopeSpec, max_position: int | None = None) -> int:
    """The largest position the checks use: ``max_position`` (default 4095), and for
    length-dependent schedules (dynamic NTK, LongRoPE) at most L_0 - 1, so their frequencies stay fixed."""
    limit = PROPERTY_MAX_POSITION if max_position is None else int(max_position)
    if isinstance(spec.scaling, (DynamicNTK, LongRoPE)):
        limit = min(limit, spec.scaling.original_max_position_embeddings - 1)
    return max(limit, 0)


def draw_sample(
    spec: RopeSpec,
    rng: np.random.Generator | int | None = None,
    *,
    batch: int = 2,
    seq: int = 5,
    heads: int = 2,
    max_position: int | None = None,
) -> Sample:
    """A random :class:`Sample` whose positions keep a + b and p + t within :func:`position_limit`.

    Example:
        >>> s = draw_sample(RopeSpec(head_dim=4), 0)
        >>> s.x.shape, s.positions.shape
        ((2, 5, 2, 4), (2, 5))
    """
    rng = _rng(rng)
    quarter = max(position_limit(spec, max_position) // 4, 1)
    shape = (batch, seq, heads, spec.head_dim)
    x = np.clip(rng.standard_normal(shape), -4, 4)
    y = np.clip(rng.standard_normal(shape), -4, 4)
    start = rng.integers(0, quarter, size=(batch, 1))
    positions = start + np.sort(rng.integers(0, quarter, size=(batch, seq)), axis=1)
    positions[0] = np.arange(seq) + rng.integers(0, min(8, quarter))  # row 0: a contiguous run near 0
    positions = np.minimum(positions, 2 * quarter - 1)
    positions_b = rng.integers(0, quarter, size=(batch, seq))
    return Sample(x, y, positions.astype(np.int64), positions_b.astype(np.int64), int(rng.integers(1, quarter + 1)))


def _rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(0 if rng is None else int(rng))


# --------------------------------------------------------------------------- comparison


class _Ctx:
    """What every check needs: the implementation, spec, dtype, device and rounded sample (and a call-length cap)."""

    def __init__(
        self,
        fn: Fn,
        spec: RopeSpec,
        dtype: Any,
        device: str,
        rng: Any,
        sample: Sample | None,
        max_length: int | None = None,
    ) -> None:
        self.impl: Implementation = as_implementation(fn)
        self.max_length = max_length
        self.spec = spec
        self.dtype = dtype_name(dtype)
        self.device = device
        self.s = (sample if sample is not None else draw_sample(spec, rng)).rounded(self.dtype)
        self.factor = spec.attention_factor
        # the attention factor scales the rotated dims only: the implementation's matrix is W R, W = diag(w)
        self.rotated = np.zeros(spec.head_dim, dtype=bool)
        self.rotated[spec.rotated_dims()] = True
        self.w = np.where(self.rotated, self.factor, 1.0)
        if self.s.x.shape[-1] != spec.head_dim:
            raise UsageError(f"sample head_dim {self.s.x.shape[-1]} does not match spec.head_dim={spec.head_dim}")

    def run(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return self.impl.run(x, positions, dtype=self.dtype, device=self.device)

    def base_context(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "layout": self.spec.layout, "spec": self.spec.describe()}

    def pair_of(self, dim: int) -> str:
        if not self.rotated[dim]:
            return f"none (dim {dim} is a pass-through dim, rotary_dim={self.spec.rotary_dim})"
        a, b = next((int(a), int(b)) for a, b in self.spec.pairs() if dim in (a, b))
        return f"({a}, {b})"

    def token_context(self, index: tuple[int, ...], positions: np.ndarray) -> dict[str, Any]:
        b, s, h, d = index
        return {"position": int(positions[b, s]), "pair": self.pair_of(d), "head": h, "batch": b}


def _compare(
    ctx: _Ctx,
    name: str,
    actual: np.ndarray,
    expected: np.ndarray,
    *,
    kind: str,
    scale: float,
    max_position: int,
    what: str,
    hint: str,
    locate: Callable[[tuple[int, ...]], dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> PropertyResult:
    extent = angle_extent(ctx.spec, max_position)  # max_position itself for integer positions
    rtol, atol0 = tolerance(ctx.dtype, kind, max_position=extent, head_dim=ctx.spec.head_dim)
    atol = atol0 * max(scale, 1e-300)
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    err = np.abs(actual - expected)
    err = np.where(np.isnan(err), np.inf, err)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(err == 0, 0.0, err / np.abs(expected))
    bad = err > atol + rtol * np.abs(expected)
    context = ctx.base_context()
    context.update(extra or {})
    max_abs = float(err.max(initial=0.0))
    max_rel = float(rel.max(initial=0.0))
    passed = not bool(bad.any())
    if err.size:
        i_abs = tuple(int(i) for i in np.unravel_index(int(np.argmax(err)), err.shape))
        i_rel = tuple(int(i) for i in np.unravel_index(int(np.argmax(rel)), rel.shape))
        context.update(mismatched=int(bad.sum()), total=int(err.size), index=i_abs, rel_index=i_rel)
        if not passed:
            context.update(actual=float(actual[i_abs]), expected=float(expected[i_abs]))
            if locate is not None:
                context.update(locate(i_abs))
    evidence = f"{what} agree within tolerance" if passed else f"{what} are not close!"
    return PropertyResult(name, passed, max_abs, max_rel, (rtol, atol), evidence, context, "" if passed else hint)


def _guard(name: str, hint: str) -> Callable[[Callable[..., PropertyResult]], Callable[..., PropertyResult]]:
    """Turn a target's exception into a failed result, keep the check's signature and name."""

    def wrap(check: Callable[..., PropertyResult]) -> Callable[..., PropertyResult]:
        def guarded(
            fn: Fn,
            spec: RopeSpec,
            *,
            dtype: Any = "float32",
            device: str = "cpu",
            rng: np.random.Generator | int | None = None,
            sample: Sample | None = None,
            max_length: int | None = None,
        ) -> PropertyResult:
            ctx = _Ctx(fn, spec, dtype, device, rng, sample, max_length)
            try:
                res = check(ctx)
            except TargetError as exc:
                text = str(exc)
                protocol = is_protocol_error(text) or "shape" in text  # a wrong output shape: the protocol too
                return PropertyResult(
                    name,
                    False,
                    float("inf"),
                    float("inf"),
                    (0.0, 0.0),
                    text,
                    ctx.base_context(),
                    "make the implementation accept the canonical protocol: "
                    "fn(x, positions) with x (batch, seq, heads, head_dim), positions int64 (batch, seq), "
                    "returning x's shape, dtype and device"
                    if protocol
                    else "the implementation raised: see its exception and line above",
                    "raised",
                )
            if not res.passed and res.code is None:
                code = PROPERTY_CODES.get(name)
                if name == "consistency" and res.context.get("check") == "state":
                    code = "state"
                res = replace(res, code=code)
            return res

        guarded.__name__ = guarded.__qualname__ = check.__name__
        guarded.__doc__ = check.__doc__
        guarded.property_name = name  # type: ignore[attr-defined]
        guarded.hint = hint  # type: ignore[attr-defined]
        return guarded

    return wrap


def _scores(q: np.ndarray, k: np.ndarray, q0: np.ndarray, k0: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-token dot products over head_dim, normalised by |w q0| |w k0| (0 where a norm is 0)."""
    denom = np.linalg.norm(w * q0, axis=-1) * np.linalg.norm(w * k0, axis=-1)
    return np.sum(q * k, axis=-1) / np.where(denom > 0, denom, 1.0)


def _scale(ctx: _Ctx, *arrays: np.ndarray) -> float:
    return max(ctx.factor, 1.0) * max((float(np.abs(a).max(initial=0.0)) for a in arrays), default=0.0)


# --------------------------------------------------------------------------- the checks

_HINT_REF = (
    "compare your inverse frequencies with spec.inv_freq() (theta_i = base^(-2i/rotary_dim)), the rotation "
    "direction (x_a cos - x_b sin, x_a sin + x_b cos), the pairing of the spec's layout and the positions used"
)


@_guard("matches_reference", _HINT_REF)
def check_matches_reference(ctx: _Ctx) -> PropertyResult:
    """fn(x, p) equals the fp64 reference ``apply_rope(x, p, spec)``.

    A mismatch is diagnosed (:mod:`ropecheck.diagnosis`): the result carries the cause's code and sentence.
    """
    s = ctx.s
    out = ctx.run(s.x, s.positions)
    expected = apply_rope(s.x, s.positions[..., None], ctx.spec)
    res = _compare(
        ctx,
        "matches_reference",
        out,
        expected,
        kind="rotation",
        scale=_scale(ctx, s.x),
        max_position=s.max_position,
        what="the output and the fp64 reference",
        hint=_HINT_REF,
        locate=lambda i: ctx.token_context(i, s.positions),
    )
    if res.passed:
        return res
    rtol, atol = res.tolerance
    diag = explain(out, s.x, s.positions, ctx.spec, dtype=ctx.dtype, bound=atol + rtol * np.abs(expected))
    if diag is None:
        return res
    return replace(res, hint=diag.hint or res.hint, code=diag.code, cause=diag.cause, diagnosis=diag.message)


_HINT_LAYOUT = (
    "check the pairing: 'interleaved' rotates (x_2i, x_2i+1), 'half' rotates (x_i, x_i+r/2) "
    "(rotate_half); an implementation of the other layout needs the even-first permutation of its weights"
)


@_guard("layout_equivalence", _HINT_LAYOUT)
def check_layout_equivalence(ctx: _Ctx) -> PropertyResult:
    """rope_half(P x) = P rope_interleaved(x): fn in the spec's layout against the reference in the other one.

    Two steps, the first failure reported (``context["check"]``): ``"scores"`` -- the scores
    q_i . k_j of P-permuted q, k through fn equal those of the reference in the other layout
    (what attention sees); then ``"elementwise"`` -- fn(P x) = P reference_other(x), which
    also catches an output left in the wrong order (scores cannot see a fixed permutation).
    """
    s, spec = ctx.s, ctx.spec
    other = spec.with_(layout="interleaved" if spec.layout == "half" else "half")
    perm = layout_permutation(spec.rotary_dim, spec.head_dim, start=spec.rotary_start)  # interleaved -> half
    to_spec = perm if spec.layout == "half" else np.argsort(perm)
    q_out = ctx.run(s.x[..., to_spec], s.positions)
    k_out = ctx.run(s.y[..., to_spec], s.positions)
    q_ref = apply_rope(s.x, s.positions[..., None], other)
    k_ref = apply_rope(s.y, s.positions[..., None], other)
    extra = {"permutation": f"{'P' if spec.layout == 'half' else 'P^-1'} (even dims first)"}
    got = np.einsum("bihd,bjhd->bhij", q_out, k_out)
    want = np.einsum("bihd,bjhd->bhij", q_ref, k_ref)
    norm = (
        max(ctx.factor, 1.0) ** 2
        * np.linalg.norm(s.x, axis=-1).max(initial=0.0)
        * np.linalg.norm(s.y, axis=-1).max(initial=0.0)
    )
    res = _compare(
        ctx,
        "layout_equivalence",
        got,
        want,
        kind="score",
        scale=norm,
        max_position=s.max_position,
        what=f"scores of P-permuted q, k and of reference_{other.layout}(q, k)",
        hint=_HINT_LAYOUT,
        locate=lambda i: {
            "positions": f"q at {int(s.positions[i[0], i[2]])}, k at {int(s.positions[i[0], i[3]])}",
            "head": i[1],
            "batch": i[0],
        },
        extra={**extra, "check": "scores"},
    )
    if not res.passed:
        return res
    return _compare(
        ctx,
        "layout_equivalence",
        q_out,
        q_ref[..., to_spec],
        kind="rotation",
        scale=_scale(ctx, s.x),
        max_position=s.max_position,
        what=f"fn(P x) and P reference_{other.layout}(x)",
        hint=_HINT_LAYOUT,
        locate=lambda i: ctx.token_context(i, s.positions),
        extra={**extra, "check": "elementwise"},
    )


_HINT_SHIFT = (
    "the angle must be exactly position * theta_i with positions used as given: look for caches that are "
    "too short or clamp, lengths that change the frequencies, or offsets applied to q or k only"
)


@_guard("translation_invariance", _HINT_SHIFT)
def check_translation_invariance(ctx: _Ctx) -> PropertyResult:
    """q_m . k_n = q_{m+t} . k_{n+t}, one (m, n) pair per token."""
    s = ctx.s
    q_at = ctx.run(s.x, s.positions)
    k_at = ctx.run(s.y, s.positions_b)
    q_sh = ctx.run(s.x, s.positions + s.shift)
    k_sh = ctx.run(s.y, s.positions_b + s.shift)
    before = _scores(q_at, k_at, s.x, s.y, ctx.w)
    after = _scores(q_sh, k_sh, s.x, s.y, ctx.w)
    return _compare(
        ctx,
        "translation_invariance",
        after,
        before,
        kind="score",
        scale=1.0,
        max_position=s.max_position + s.shift,
        what=f"scores q_m.k_n before and after shifting by t={s.shift}",
        hint=_HINT_SHIFT,
        extra={"shift": s.shift},
        locate=lambda i: {
            "positions": f"q at {int(s.positions[i[0], i[1]])}, k at {int(s.positions_b[i[0], i[1]])}",
            "head": i[2],
            "batch": i[0],
        },
    )


@_guard("translation_invariance_attention", _HINT_SHIFT)
def check_translation_invariance_attention(ctx: _Ctx) -> PropertyResult:
    """The causal score matrix q_i . k_j (j <= i) is unchanged when all positions shift by t."""
    s = ctx.s
    seq = s.x.shape[1]
    causal = np.tril(np.ones((seq, seq), dtype=bool))

    def matrix(shift: int) -> np.ndarray:
        q, k = ctx.run(s.x, s.positions + shift), ctx.run(s.y, s.positions + shift)
        sc = np.einsum("bihd,bjhd->bhij", q, k)
        return np.where(causal, sc, 0.0)

    norm = (
        max(ctx.factor, 1.0) ** 2
        * np.linalg.norm(s.x, axis=-1).max(initial=0.0)
        * np.linalg.norm(s.y, axis=-1).max(initial=0.0)
    )
    return _compare(
        ctx,
        "translation_invariance_attention",
        matrix(s.shift),
        matrix(0),
        kind="score",
        scale=norm,
        max_position=s.max_position + s.shift,
        hint=_HINT_SHIFT,
        extra={"shift": s.shift},
        what=f"causal attention scores before and after shifting every position by t={s.shift}",
        locate=lambda i: {
            "positions": f"q at {int(s.positions[i[0], i[2]])}, k at {int(s.positions[i[0], i[3]])}",
            "head": i[1],
            "batch": i[0],
        },
    )


_HINT_REL = (
    "R_m must be an orthogonal rotation by m*theta_i (times the attention factor) that depends on the "
    "position only: check the rotation direction is the same for q and k and that heads/rows do not leak"
)


@_guard("relative_position", _HINT_REL)
def check_relative_position(ctx: _Ctx) -> PropertyResult:
    """<R_m q, R_n k> = (W q) . R_{n-m} k for m <= n (W: the attention factor on the rotated dims)."""
    s = ctx.s
    m, n = np.minimum(s.positions, s.positions_b), np.maximum(s.positions, s.positions_b)
    lhs = _scores(ctx.run(s.x, m), ctx.run(s.y, n), s.x, s.y, ctx.w)
    rhs = _scores(s.x * ctx.w, ctx.run(s.y, n - m), s.x, s.y, ctx.w)
    return _compare(
        ctx,
        "relative_position",
        lhs,
        rhs,
        kind="score",
        scale=1.0,
        max_position=int(n.max(initial=0)),
        what="<R_m q, R_n k> and q.R_{n-m} k",
        hint=_HINT_REL,
        locate=lambda i: {"positions": f"m={int(m[i[0], i[1]])}, n={int(n[i[0], i[1]])}", "head": i[2], "batch": i[0]},
    )


_HINT_NORM = (
    "RoPE is a rotation: it must keep every token's norm (times the spec's attention factor); look for a "
    "stray scale, cos/sin applied twice, or cos and sin of different angles"
)


@_guard("norm_preservation", _HINT_NORM)
def check_norm_preservation(ctx: _Ctx) -> PropertyResult:
    """|fn(x, p)| = |W x| for every token and head (W: the attention factor on the rotated dims)."""
    s = ctx.s
    out = ctx.run(s.x, s.positions)
    got, want = np.linalg.norm(out, axis=-1), np.linalg.norm(ctx.w * s.x, axis=-1)
    return _compare(
        ctx,
        "norm_preservation",
        got,
        want,
        kind="norm",
        scale=float(want.max(initial=0.0)),
        max_position=0,
        what="output norms and input norms",
        hint=_HINT_NORM,
        locate=lambda i: {"position": int(s.positions[i[0], i[1]]), "head": i[2], "batch": i[0]},
    )


_HINT_ZERO = "position 0 must leave x unchanged (up to the attention factor): look for positions shifted by one"


@_guard("identity_at_zero", _HINT_ZERO)
def check_identity_at_zero(ctx: _Ctx) -> PropertyResult:
    """R_0 = identity: fn(x, 0) = W x (W: the attention factor on the rotated dims)."""
    s = ctx.s
    zeros = np.zeros_like(s.positions)
    out = ctx.run(s.x, zeros)
    return _compare(
        ctx,
        "identity_at_zero",
        out,
        ctx.w * s.x,
        kind="rotation",
        scale=_scale(ctx, s.x),
        max_position=0,
        what="fn(x, 0) and x",
        hint=_HINT_ZERO,
        locate=lambda i: ctx.token_context(i, zeros),
    )


_HINT_COMP = (
    "rotating by b then by a must equal rotating by a+b: the angle must be linear in the position "
    "(no offset added, no position-dependent scale)"
)


@_guard("composition", _HINT_COMP)
def check_composition(ctx: _Ctx) -> PropertyResult:
    """R_a R_b = R_{a+b}: fn(fn(x, b), a) = W fn(x, a + b)."""
    s = ctx.s
    a, b = s.positions, s.positions_b
    once = round_to_dtype(ctx.run(s.x, b), ctx.dtype)
    twice = ctx.run(once, a)
    direct = ctx.w * ctx.run(s.x, a + b)
    return _compare(
        ctx,
        "composition",
        twice,
        direct,
        kind="self",
        scale=max(ctx.factor, 1.0) * _scale(ctx, s.x),
        max_position=int((a + b).max(initial=0)),
        what="R_a R_b x and R_{a+b} x",
        hint=_HINT_COMP,
        locate=lambda i: {
            "positions": f"a={int(a[i[0], i[1]])}, b={int(b[i[0], i[1]])}",
            "pair": ctx.pair_of(i[3]),
            "head": i[2],
            "batch": i[0],
        },
    )


_HINT_INV = (
    "R_a must be orthogonal (R_a^T R_a = I, so R_a^-1 = R_a^T = R_-a): both dims of a pair must use the "
    "same angle and the same scale"
)


@_guard("inverse", _HINT_INV)
def check_inverse(ctx: _Ctx) -> PropertyResult:
    """R_a^T R_a x = W^2 x, with R_a read from the implementation by feeding basis vectors."""
    s, d = ctx.s, ctx.spec.head_dim
    positions = np.unique(s.positions[0, : min(3, s.positions.shape[1])])
    basis = np.eye(d)[:, None, None, :]  # (d, 1, 1, d)
    tokens = s.x[0, : len(positions), 0]  # (n, d)
    got, want = [], []
    for pos, tok in zip(positions, tokens):
        mat = ctx.run(basis, np.full((d, 1), pos))[:, 0, 0, :].T  # column j = R_a e_j
        y = ctx.run(tok[None, None, None, :], np.array([[pos]]))[0, 0, 0]
        got.append(mat.T @ y)
        want.append(ctx.w**2 * tok)
    got_a, want_a = np.array(got), np.array(want)
    return _compare(
        ctx,
        "inverse",
        got_a,
        want_a,
        kind="self",
        scale=max(ctx.factor, 1.0) * _scale(ctx, s.x),
        max_position=int(positions.max(initial=0)),
        what="R_a^T R_a x and x",
        hint=_HINT_INV,
        locate=lambda i: {"position": int(positions[i[0]]), "pair": ctx.pair_of(i[1])},
    )


_HINT_INDEP = (
    "each batch row must use its own positions and each head the same rotation: look for positions[0] "
    "broadcast to all rows, or heads and sequence axes swapped ((batch, seq, heads, head_dim) is the layout)"
)


@_guard("head_batch_independence", _HINT_INDEP)
def check_head_batch_independence(ctx: _Ctx) -> PropertyResult:
    """fn(x, p)[b, :, h] equals fn on row b and head h alone."""
    s = ctx.s
    full = ctx.run(s.x, s.positions)
    alone = np.empty_like(full)
    for b in range(s.x.shape[0]):
        for h in range(s.x.shape[2]):
            alone[b, :, h] = ctx.run(s.x[b : b + 1, :, h : h + 1], s.positions[b : b + 1])[0, :, 0]
    return _compare(
        ctx,
        "head_batch_independence",
        full,
        alone,
        kind="self",
        scale=_scale(ctx, s.x),
        max_position=s.max_position,
        what="the batched output and each (row, head) rotated alone",
        hint=_HINT_INDEP,
        locate=lambda i: ctx.token_context(i, s.positions),
    )


_HINT_PASS = "dims past rotary_dim must be returned untouched (partial rotary rotates only the first rotary_dim dims)"


@_guard("passthrough", _HINT_PASS)
def check_passthrough(ctx: _Ctx) -> PropertyResult:
    """Dims past rotary_dim pass through bit-exactly.

    (With ``rotary_dims="last"``, the dims before the rotated block.)
    """
    s, r = ctx.s, ctx.spec.rotary_dim
    keep = np.nonzero(~ctx.rotated)[0]
    span = f"{int(keep[0])}..{int(keep[-1])}" if keep.size else ""
    if r == ctx.spec.head_dim:
        return PropertyResult(
            "passthrough",
            True,
            0.0,
            0.0,
            (0.0, 0.0),
            "no pass-through dims (rotary_dim == head_dim)",
            ctx.base_context(),
        )
    out = ctx.run(s.x, s.positions)
    got, want = out[..., keep], s.x[..., keep]
    err = np.abs(got - want)
    err = np.where(np.isnan(err), np.inf, err)
    bad = err > 0
    context = ctx.base_context()
    if not bad.any():
        return PropertyResult(
            "passthrough",
            True,
            0.0,
            0.0,
            (0.0, 0.0),
            f"dims {span} passed through bit-exactly",
            context,
        )
    i = tuple(int(j) for j in np.unravel_index(int(np.argmax(err)), err.shape))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = float(np.max(np.where(bad, err / np.abs(want), 0.0)))
    context.update(
        mismatched=int(bad.sum()),
        total=int(bad.size),
        index=i[:3] + (int(keep[i[3]]),),
        rel_index=i[:3] + (int(keep[i[3]]),),
        position=int(s.positions[i[0], i[1]]),
        dim=f"{int(keep[i[3]])} (pass-through)",
        head=i[2],
        batch=i[0],
        actual=float(got[i]),
        expected=float(want[i]),
    )
    return PropertyResult(
        "passthrough",
        False,
        float(err.max()),
        rel,
        (0.0, 0.0),
        f"pass-through dims {span} are not bit-exact",
        context,
        _HINT_PASS,
    )


_HINT_OTHER = (
    "a token's output must depend only on its own vector and position: look for reads along the sequence "
    "axis (a roll, a shifted index, a reshape that mixes seq with heads)"
)
_HINT_CONS = (
    "a token's rotation must depend only on its own position: recompute frequencies per call from the spec, "
    "never from x.shape[1] or a cache grown by an earlier, longer call (the dynamic-NTK trap)"
)


@_guard("consistency", _HINT_CONS)
def check_consistency(ctx: _Ctx) -> PropertyResult:
    """The same token at the same position gives the same output among other tokens, alone, and after a long call.

    Three steps, the first failure reported (``context["check"]``): ``"other tokens"`` (the
    last token, same positions, the other tokens' values replaced), ``"length"`` (every
    token in a call of length 1) and ``"state"`` (the first call repeated after a long one).
    The long call has max(128, 2 * (max position + shift + seq) + 2) tokens, and for
    dynamic NTK / LongRoPE at least 2 * L_0 + 2 (capped at 4 * 4095), so a cache that grows
    with the longest call seen and never resets is caught.
    """
    s = ctx.s
    batch, seq, heads, d = s.x.shape
    full = ctx.run(s.x, s.positions)
    alone = ctx.run(s.x.reshape(batch * seq, 1, heads, d), s.positions.reshape(batch * seq, 1)).reshape(s.x.shape)

    def loc(i: tuple[int, ...]) -> dict[str, Any]:
        return ctx.token_context(i, s.positions)

    common: dict[str, Any] = {
        "kind": "self",
        "scale": _scale(ctx, s.x),
        "max_position": s.max_position,
        "hint": _HINT_CONS,
        "locate": loc,
    }
    mixed = s.y.copy()
    mixed[:, -1] = s.x[:, -1]
    other = ctx.run(mixed, s.positions)

    def at_last(i: Any) -> Any:  # the compared slice holds the last token only: report full-call indices
        return None if i is None else (i[0], seq - 1, *i[2:])

    last = {**common, "hint": _HINT_OTHER, "locate": lambda i: loc(at_last(i))}
    res = _compare(
        ctx,
        "consistency",
        other[:, -1:],
        full[:, -1:],
        extra={"check": "other tokens"},
        what="the last token among other tokens and among the original ones",
        **last,
    )
    if not res.passed:
        c = res.context
        return replace(res, context={**c, "index": at_last(c.get("index")), "rel_index": at_last(c.get("rel_index"))})
    res = _compare(
        ctx,
        "consistency",
        full,
        alone,
        what=f"each token in a call of length {seq} and alone (length 1)",
        extra={"check": "length"},
        **common,
    )
    if not res.passed:
        return res
    # longer than every call so far (a growing cache grows), and past L_0 where a schedule switches there
    long_len = max(128, 2 * (s.max_position + s.shift + seq) + 2)
    if isinstance(ctx.spec.scaling, (DynamicNTK, LongRoPE)):
        long_len = max(long_len, 2 * ctx.spec.scaling.original_max_position_embeddings + 2)
    long_len = int(min(long_len, 4 * PROPERTY_MAX_POSITION))
    if ctx.max_length is not None:  # never past the valid range (a bounded table raising there is right)
        long_len = int(min(long_len, ctx.max_length))
    ctx.run(np.zeros((1, long_len, 1, d)), np.arange(long_len)[None])
    again = ctx.run(s.x, s.positions)
    return _compare(
        ctx,
        "consistency",
        again,
        full,
        extra={"check": "state"},
        what=f"the output before and after a call of length {long_len}",
        **common,
    )


PROPERTIES: dict[str, Callable[..., PropertyResult]] = {
    f.property_name: f  # type: ignore[attr-defined]
    for f in (
        check_matches_reference,
        check_layout_equivalence,
        check_translation_invariance,
        check_translation_invariance_attention,
        check_relative_position,
        check_norm_preservation,
        check_identity_at_zero,
        check_composition,
        check_inverse,
        check_head_batch_independence,
        check_passthrough,
        check_consistency,
    )
}


# --------------------------------------------------------------------------- all at once


def run_all(
    fn: Fn | Implementation,
    spec: RopeSpec,
    *,
    dtype: Any = "float32",
    device: str = "cpu",
    seed: int = 0,
    properties: list[str] | tuple[str, ...] | None = None,
) -> list[PropertyResult]:
    """Every property (or the named ones) on one shared random sample drawn from ``seed``.

    Example:
        >>> spec = RopeSpec(head_dim=4)
        >>> all(r.passed for r in run_all(torch_reference(spec), spec))
        True
    """
    names = list(PROPERTIES) if properties is None else list(properties)
    unknown = [n for n in names if n not in PROPERTIES]
    if unknown:
        raise UsageError(f"unknown properties {unknown}; choose from {', '.join(PROPERTIES)}")
    impl = as_implementation(fn)
    sample = draw_sample(spec, seed)
    return [PROPERTIES[n](impl, spec, dtype=dtype, device=device, sample=sample) for n in names]


def backward_results(
    fn: Fn | Implementation,
    spec: RopeSpec,
    *,
    dtype: Any = "float32",
    device: str = "cpu",
    seed: int = 0,
) -> list[PropertyResult]:
    """The backward checks (:mod:`ropecheck.gradients`) as property results; none for a target without autograd.

    ``backward`` (the gradient of <fn(x, p), g> is the transpose W R(-theta) g, g itself on the pass-through
    dims) and ``backward:double`` (the double backward gives the forward again), SKIPs left out.

    Example:
        >>> spec = RopeSpec(head_dim=4)
        >>> [r.name for r in backward_results(torch_reference(spec), spec)]
        ['backward', 'backward:double']
    """
    impl = as_implementation(fn)
    out = []
    for res in check_backward(impl, spec, dtype=dtype, device=device, seed=seed):
        if res.status == "skip":
            continue
        passed = res.status == "pass"
        worst = float(res.details.get("worst_over_bound", 0.0))
        out.append(
            PropertyResult(
                res.name,
                passed,
                worst,
                worst,
                tolerance(dtype, "rotation"),
                res.evidence,
                {"dtype": dtype_name(dtype), "layout": spec.layout, "spec": spec.describe()},
                res.hint,
                None if passed else "backward",
                res.cause,
                "" if passed else res.evidence,
            )
        )
    return out


def assert_rope_properties(
    fn: Fn | Implementation,
    spec: RopeSpec,
    *,
    dtype: Any = "float32",
    device: str = "cpu",
    seed: int = 0,
    properties: list[str] | tuple[str, ...] | None = None,
    backward: bool = True,
) -> list[PropertyResult]:
    """Raise ``AssertionError`` with every failed property's message; return the results otherwise.

    With ``backward`` (the default), the backward checks run too where the target supports
    autograd (:func:`backward_results`); the results returned are the properties'.

    Example:
        >>> spec = RopeSpec(head_dim=4)
        >>> len(assert_rope_properties(torch_reference(spec), spec)) == len(PROPERTIES)
        True
    """
    __tracebackhide__ = True
    results = run_all(fn, spec, dtype=dtype, device=device, seed=seed, properties=properties)
    grads = backward_results(fn, spec, dtype=dtype, device=device, seed=seed) if backward else []
    grads = [r for r in grads if not r.passed]
    failed = [r for r in results + grads if not r.passed]
    if failed:
        raise AssertionError(failure_message(results + grads))
    return results


def failure_message(results: list[PropertyResult], *, header: str = "") -> str:
    """The assertion text for failed properties: the diagnosed cause first (the verifier's code and sentence),
    then each failure, those the cause explains marked as its consequences."""
    failed = [r for r in results if not r.passed]
    names = ", ".join(r.name for r in failed)
    lines = [f"RoPE properties failed ({len(failed)} of {len(results)}): {names}"]
    root = next((r for r in failed if r.diagnosis), None)
    if header:
        lines += ["", header]
    elif root is not None:
        lines += ["", f"Diagnosis [{root.label}]: {root.diagnosis}"]
        if root.hint:
            lines.append(f"How to fix: {root.hint}")
    if header or root is not None:
        others = [r.name for r in failed if r is not root or header]
        if others:
            lines.append(f"(failed as consequences of this cause: {', '.join(others)})")
    body = []
    for r in failed:
        if (root is not None or header) and (r is not root or header):
            r = replace(r, hint="(a consequence of the diagnosis above)", code=None, cause=None, diagnosis="")
        body.append(r.message())
    return "\n".join(lines) + "\n\n" + "\n\n".join(body)
