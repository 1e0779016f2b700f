"""Multi-axis RoPE's facts (M-RoPE, 2-D axial) as executable checks over any implementation.

An implementation here is ``fn(x, positions)`` with x ``(batch, seq, heads, head_dim)`` and
positions int64 ``(axes, batch, seq)`` (the verifier's ``--positions axes``), numpy or torch.
Each ``check_axis_<name>(fn, spec, x, positions, *, dtype, device, ...)`` returns a
:class:`~ropecheck.properties.PropertyResult`:

* ``matches_reference`` -- agrees with the fp64 reference at independent per-axis positions;
* ``relative_position`` -- scores q_P . k_P' unchanged when axis ``a`` (or every axis) shifts by
  t for q and k alike: they depend on each axis's position difference only;
* ``text_reduction`` -- one position on every axis is 1-D RoPE with the same frequencies (M-RoPE
  on text tokens: the spec without its axes);
* ``section_coverage`` -- basis vectors at position 1 on one axis at a time: every pair turns by
  exactly the spec's axis.

Design constraints: the comparisons use :func:`ropecheck.tolerance.tolerance` after promoting
to float64, as :mod:`ropecheck.properties` does; an implementation that raises yields a failed
result, never an exception; the checks take explicit inputs so Hypothesis can shrink them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .axes import progressions
from .errors import UsageError
from .properties import PropertyResult
from .protocol import Implementation, as_implementation
from .reference import angle_extent, apply_rope
from .spec import RopeSpec
from .tolerance import tolerance

__all__ = [
    "AXIS_PROPERTIES",
    "axis_scores",
    "check_axis_matches_reference",
    "check_axis_relative_position",
    "check_axis_section_coverage",
    "check_axis_text_reduction",
]


def _impl(fn: Callable[..., Any] | Implementation) -> Implementation:
    return as_implementation(fn, convention="positions")


def _need_axes(spec: RopeSpec) -> int:
    if spec.axes is None:
        raise UsageError("the multi-axis properties need a spec with axes (M-RoPE or axial RoPE)")
    return len(spec.axes.axes)


def _need_integer_positions(spec: RopeSpec, name: str) -> None:
    """A :class:`UsageError` for axes with position maps: ``name`` reads ``p * theta_i`` at integer positions (the
    verifier's identification handles mapped axes, modulo a turn)."""
    if not spec.integer_positions:
        raise UsageError(f"{name} reads integer positions (p * theta_i); this spec's axes map them: "
                         f"{spec.axes.maps_in_words() if spec.axes is not None else ''}")  # fmt: skip


def _result(
    name: str, err: np.ndarray, ref: np.ndarray, tol: tuple[float, float], ok_text: str, bad: str
) -> PropertyResult:
    rtol, atol = tol
    excess = err - (atol + rtol * np.abs(ref))
    passed = not bool((excess > 0).any())
    rel = float((err / np.maximum(np.abs(ref), 1e-300)).max()) if err.size else 0.0
    context: dict[str, Any] = {"total": int(err.size), "mismatched": int((excess > 0).sum())}
    if err.size:
        context["index"] = tuple(int(i) for i in np.unravel_index(int(np.argmax(err)), err.shape))
    return PropertyResult(
        name,
        passed,
        float(err.max()) if err.size else 0.0,
        rel,
        tol,
        ok_text if passed else bad,
        context,
        code=None if passed else "axes",
    )


def _call(impl: Implementation, x: np.ndarray, positions: np.ndarray, dtype: str, device: str) -> np.ndarray:
    return np.asarray(impl.call(x, dtype=dtype, device=device, positions=np.ascontiguousarray(positions)), np.float64)


def axis_scores(
    impl: Implementation, q: np.ndarray, k: np.ndarray, positions: np.ndarray, *, dtype: str, device: str
) -> np.ndarray:
    """Normalised scores q_i . k_j (batch row 0, head 0) with q and k rotated at per-axis ``positions``."""
    qq, kk = _call(impl, q, positions, dtype, device)[0, :, 0], _call(impl, k, positions, dtype, device)[0, :, 0]
    return (qq @ kk.T) / (np.linalg.norm(q[0, :, 0], axis=-1)[:, None] * np.linalg.norm(k[0, :, 0], axis=-1))


def _raised(name: str, exc: Exception) -> PropertyResult:
    return PropertyResult(
        name, False, float("inf"), float("inf"), (0.0, 0.0), f"the implementation raised {exc!r}", code="raised"
    )


def check_axis_matches_reference(
    fn: Callable[..., Any] | Implementation,
    spec: RopeSpec,
    x: np.ndarray,
    positions: np.ndarray,
    *,
    dtype: str = "float32",
    device: str = "cpu",
) -> PropertyResult:
    """The output at per-axis ``positions`` ``(axes, batch, seq)`` against the fp64 reference."""
    _need_axes(spec)
    try:
        out = _call(_impl(fn), x, positions, dtype, device)
    except Exception as exc:
        return _raised("axis_matches_reference", exc)
    ref = apply_rope(x, np.asarray(positions)[..., None], spec, axes_at="first")
    tol = tolerance(dtype, max_position=angle_extent(spec, int(np.abs(positions).max(initial=0))))
    return _result(
        "axis_matches_reference",
        np.abs(out - ref),
        ref,
        tol,
        "agrees with the reference at per-axis positions",
        "differs from the reference at per-axis positions",
    )


def check_axis_relative_position(
    fn: Callable[..., Any] | Implementation,
    spec: RopeSpec,
    q: np.ndarray,
    k: np.ndarray,
    positions: np.ndarray,
    shift: int,
    *,
    axis: int | None = None,
    dtype: str = "float32",
    device: str = "cpu",
) -> PropertyResult:
    """Scores q_i . k_j (one batch row, head 0) unchanged when ``axis`` (None: every axis) shifts by ``shift``."""
    n = _need_axes(spec)
    step = np.ones(n, dtype=np.int64) if axis is None else np.eye(n, dtype=np.int64)[axis]
    moved = np.asarray(positions) + int(shift) * step[:, None, None]
    impl = _impl(fn)
    try:
        before = axis_scores(impl, q, k, np.asarray(positions), dtype=dtype, device=device)
        after = axis_scores(impl, q, k, moved, dtype=dtype, device=device)
    except Exception as exc:
        return _raised("axis_relative_position", exc)
    top = int(np.abs(moved).max(initial=0))
    rtol, atol = tolerance(dtype, "score", max_position=angle_extent(spec, top), head_dim=spec.head_dim)
    label = "every axis" if axis is None else f"axis {spec.axis_names[axis]!r}"
    return _result(
        "axis_relative_position",
        np.abs(after - before),
        np.zeros_like(before),
        (0.0, atol + rtol),
        f"scores unchanged when {label} shifts by {shift}",
        f"scores change when {label} shifts by {shift} for q and k alike",
    )


def check_axis_text_reduction(
    fn: Callable[..., Any] | Implementation,
    spec: RopeSpec,
    x: np.ndarray,
    positions: np.ndarray,
    *,
    dtype: str = "float32",
    device: str = "cpu",
) -> PropertyResult:
    """One position ``(batch, seq)`` on every axis: 1-D RoPE with the same frequencies (M-RoPE: no axes)."""
    n = _need_axes(spec)
    _need_integer_positions(spec, "axis_text_reduction")
    p = np.asarray(positions)
    try:
        out = _call(_impl(fn), x, np.broadcast_to(p, (n, *p.shape)), dtype, device)
    except Exception as exc:
        return _raised("axis_text_reduction", exc)
    one_d = spec.with_(axes=None) if spec.axes is not None and spec.axes.uses_spec_table(spec.rotary_dim) else spec
    ref = apply_rope(x, p[..., None], one_d)
    return _result(
        "axis_text_reduction",
        np.abs(out - ref),
        ref,
        tolerance(dtype, max_position=int(np.abs(p).max(initial=0))),
        "one position on every axis is 1-D RoPE with the same frequencies",
        "one position on every axis is not 1-D RoPE (text tokens are rotated as if their axes differed)",
    )


def check_axis_section_coverage(
    fn: Callable[..., Any] | Implementation, spec: RopeSpec, *, dtype: str = "float32", device: str = "cpu"
) -> PropertyResult:
    """Basis vectors at position 1 on one axis at a time: every pair turns by exactly its spec axis."""
    n = _need_axes(spec)
    _need_integer_positions(spec, "axis_section_coverage")
    d = spec.head_dim
    x = np.broadcast_to(np.eye(d), (1, n, d, d)).copy()
    pos = np.eye(n, dtype=np.int64)[:, None, :]  # probe k: position 1 on axis k
    try:
        out = _call(_impl(fn), x, pos, dtype, device)
    except Exception as exc:
        return _raised("axis_section_coverage", exc)
    a, b = spec.pairs().T
    m = np.swapaxes(out[0], -1, -2)
    turned = np.abs(np.arctan2(m[:, b, a], m[:, a, a]) / spec.inv_freq()) > 0.5  # (axes, pairs)
    expected = np.eye(n, dtype=bool)[:, spec.axis_of_pair()]
    wrong = np.flatnonzero((turned != expected).any(axis=0))
    passed = wrong.size == 0
    text = (
        "every pair turns by exactly the spec's axis"
        if passed
        else f"pairs {progressions(wrong.tolist())} do not turn by exactly the spec's axis"
    )
    return PropertyResult(
        "axis_section_coverage",
        passed,
        float(wrong.size),
        0.0,
        (0.0, 0.0),
        text,
        {"pairs": wrong.tolist()},
        code=None if passed else "axes",
    )


#: The multi-axis properties, by name.
AXIS_PROPERTIES: dict[str, Callable[..., PropertyResult]] = {
    "axis_matches_reference": check_axis_matches_reference,
    "axis_relative_position": check_axis_relative_position,
    "axis_text_reduction": check_axis_text_reduction,
    "axis_section_coverage": check_axis_section_coverage,
}
