"""Judging a q/k target: each side as a one-tensor RoPE, the attention scores, and what differs between them.

A target that takes and returns a query and a key (:mod:`ropecheck.qk`: vLLM's ``forward(positions, query,
key)``, ``fn(q, k, positions)``, the Hugging Face ``apply(q, k, cos, sin)`` with its rotary module) is judged
through three views made where it runs: the query side and the key side each go through the whole one-tensor
verifier (every check, every dtype, the backward), and the pair -- both in one call -- through three checks of
their own:

* ``qk:independent`` -- each side's output does not change when only the other side's input does (a key
  rotated from the query, ``k_embed = k*cos + rotate_half(q)*sin``, fails here);
* ``qk:scores`` -- the scores <q_m, k_n> between every two tokens of one call against the fp64 reference's,
  within the same error model's bound as the outputs (float32, or the first dtype judged);
* ``qk:asymmetry`` -- when one side conforms and the other does not, or both fail differently, what the
  other side does instead, in words: rotated at positions shifted by s (found by comparing it with the
  reference at p + s), rotated from the other side's input, or its own first finding.

The verdict holds every check of both sides (``query:``/``key:`` in front of the name) and the q/k checks; a
finding both sides share is reported once, for both. Both sides reordered the same way (an undeclared
``--output-layout``) is the convention finding on both, with the scores shown standard.

Design constraints: nothing here calls the target except through :class:`~ropecheck.protocol.Implementation`;
the reference and every comparison run in this process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import TargetError, UsageError
from ..protocol import Implementation, as_implementation, round_to_dtype
from ..reference import apply_rope
from ..spec import RopeSpec
from .model import Check, Finding, VerifyOptions, VerifyReport

__all__ = ["SIDES", "pair_checks", "qk_views", "verify_qk"]

SIDES = ("query", "key")
_SHIFTS = (1, -1, 2, -2, 3, -3)
_UNIT = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8, "float64": 2.0**-53}


def verify_qk(
    impl: Implementation,
    spec: RopeSpec | None,
    o: VerifyOptions,
    *,
    judge: Callable[..., VerifyReport],
    listener: Callable[[str, Any], None] | None = None,
    adjust: Callable[[Implementation, RopeSpec | None], RopeSpec | None] | None = None,
) -> VerifyReport:
    """Verify the q/k target ``impl`` (a :mod:`ropecheck.qk` shape, read where it runs) against ``spec``; ``judge``
    is the one-tensor verdict (:func:`ropecheck.verify.run.verify`), run once per side."""

    head_dim = spec.head_dim if spec is not None else o.head_dim
    if head_dim is None:
        raise UsageError("give a spec (or head_dim, to identify the target)")
    shape, views = qk_views(impl, int(head_dim))
    if adjust is not None:
        spec = adjust(views["query"], spec)
    name = o.name or impl.name
    sides: dict[str, VerifyReport] = {}
    for side in SIDES:
        forward = None if listener is None else _prefixed(listener, side)
        sides[side] = judge(views[side], spec, o.with_(name=f"{name} [{side}]"), listener=forward)
    q = sides["query"]
    report = VerifyReport(
        target=name,
        spec=spec if spec is not None else q.spec,
        spec_source=q.spec_source,
        dtypes=q.dtypes,
        device=q.device,
        max_position=q.max_position,
        convention=_CONVENTION[shape],
        seed=o.seed,
        identification=q.identification,
        range_source=q.range_source,
        raises_from=q.raises_from,
    )
    for side in SIDES:
        for c in sides[side].checks:
            report.checks.append(_renamed(c, f"{side}:{c.name}"))
    own = _pair_findings(views, sides, spec, report)
    shared = _shared_findings(sides)
    scores = next((c for c in report.checks if c.name == "qk:scores"), None)
    if scores is not None and scores.status == "pass":  # a convention both sides share leaves q.k standard: say so
        shared = [
            replace(f, message=f"{f.message} -- the scores <q_m, k_n> are standard RoPE's (qk:scores passes)")
            if f.message.startswith("query and key:") and f.cause == "output_layout" else f
            for f in shared
        ]  # fmt: skip
    report.findings = own + shared
    report.notes = [f"q and k as {_SHAPES[shape]} (found by probing)"]
    report.notes += [f"{side}: {n}" for side in SIDES for n in sides[side].notes]
    report.duration_s = sum(r.duration_s for r in sides.values())
    return report


def qk_views(impl: Implementation, head_dim: int) -> tuple[str, dict[str, Implementation]]:
    """The shape of q and k (``positions_query_key``, ``bshd`` or ``bhsd``: read and probed where the target runs)
    and the canonical views of the query, the key and the pair (:func:`ropecheck.qk.side_view`)."""
    reply = impl.request("qk_layout", head_dim=int(head_dim))
    if reply.get("status") == "usage":
        raise UsageError(f"{impl.name}: {reply.get('error')}")
    if reply.get("status") != "ok":
        raise TargetError(f"{impl.name}: probing the layout of q and k failed: {reply.get('error')}")
    kind, layout = str(reply["qk"]), str(reply["layout"])
    views = {
        side: as_implementation(impl.derive("qk", qk=kind, layout=layout, side=side), convention="positions")
        for side in (*SIDES, "pair")
    }
    return (kind if kind != "query_key_positions" else layout), views


_CONVENTION = {
    "positions_query_key": "q/k, tokens flattened",
    "bshd": "q/k, (batch, seq, heads, dim)",
    "bhsd": "q/k, (batch, heads, seq, dim)",
}
_SHAPES = {
    "positions_query_key": "forward(positions, query, key), tokens flattened, heads folded into the last dim",
    "bshd": "fn(q, k, positions), (batch, seq, heads, head_dim)",
    "bhsd": "fn(q, k, positions), (batch, heads, seq, head_dim)",
}


def _prefixed(listener: Callable[[str, Any], None], side: str) -> Callable[[str, Any], None]:
    def forward(kind: str, payload: Any) -> None:
        listener(kind, f"{side}: {payload}" if kind == "stage" else payload)

    return forward


def _renamed(c: Check, name: str) -> Check:
    return Check(name, c.category, c.status, c.evidence, c.dtype, c.hint, c.code, dict(c.details), c.cause)


def _shared_findings(sides: dict[str, VerifyReport]) -> list[Finding]:
    """Each side's findings, named by side; one both sides share (same label and words) is reported once."""
    out: list[Finding] = []
    key_findings = list(sides["key"].findings)
    for f in sides["query"].findings:
        twin = next((g for g in key_findings if g.label == f.label and g.message == f.message), None)
        if twin is not None:
            key_findings.remove(twin)
        out.append(_side_finding(f, "query and key" if twin is not None else "query"))
    out += [_side_finding(f, "key") for f in key_findings]
    return out


def _side_finding(f: Finding, side: str) -> Finding:
    first = side.split(" ")[0]
    return Finding(
        f.code,
        f"{side}: {f.message}",
        f.hint,
        f"{first}:{f.check}",
        f.dtype,
        f.category,
        f.cause,
        [dict(c, check=f"{first}:{c['check']}") for c in f.consequences],
    )


def pair_checks(pair: Implementation, spec: RopeSpec, report: VerifyReport) -> list[Finding]:
    """The checks of q and k in one call -- ``qk:independent:*`` and ``qk:scores`` -- added to ``report`` (which
    gives the dtypes, device, seed and range); the findings they make. The pytest plugin runs them too."""
    dtype = "float32" if "float32" in report.dtypes else report.dtypes[0]
    rng = np.random.default_rng(report.seed + 7)
    h = 2
    positions = np.minimum(np.array([[0, 1, 2, 5, 17, 64, 300, 2047]]), report.max_position - 1)
    x = round_to_dtype(rng.standard_normal((1, positions.shape[1], 2 * h, spec.head_dim)), dtype)
    try:
        out = pair.run(x, positions, dtype=dtype, device=report.device)
        crossed = _independence(pair, x, positions, dtype, report, out)
    except TargetError as exc:
        report.checks.append(Check("qk:pair", "qk", "fail", f"the pair call failed: {exc}", dtype, "", "raised"))
        return [Finding("raised", f"q and k together: {exc}", "", "qk:pair", dtype, "qk")]
    report.checks.append(_scores(x, out, positions, spec, dtype, h))
    return [crossed] if crossed is not None else []


def _pair_findings(
    views: dict[str, Implementation], sides: dict[str, VerifyReport], spec: RopeSpec | None, report: VerifyReport
) -> list[Finding]:
    """The pair's checks, then what differs between the sides when they do not fail alike."""
    if spec is None:
        dtype = report.dtypes[0]
        report.checks.append(Check("qk:pair", "qk", "skip", "no spec: the pair is checked against a spec only", dtype))
        return []
    findings = pair_checks(views["pair"], spec, report)
    if any(f.code == "raised" for f in findings):
        return findings
    scores = next(c for c in report.checks if c.name == "qk:scores")
    crossed = bool(findings)
    failing = [s for s in SIDES if not sides[s].conforms]
    if not crossed and (len(failing) == 1 or (len(failing) == 2 and _differ(sides))):
        asym = _asymmetry(views, sides, failing, spec, scores.dtype or report.dtypes[0], report)
        if asym is not None:
            findings.append(asym)
    elif scores.status == "fail" and not failing and not crossed:
        findings.append(Finding("qk", f"q and k: {scores.evidence}", scores.hint, "qk:scores", None, "qk"))
    return findings


def _independence(
    pair: Implementation,
    x: np.ndarray,
    positions: np.ndarray,
    dtype: str,
    report: VerifyReport,
    out: np.ndarray,
) -> Finding | None:
    """Each side's output unchanged when only the other side's input changes (exactly, up to rounding)."""
    rng = np.random.default_rng(report.seed + 13)
    h = x.shape[2] // 2
    found = None
    for changed, kept in (("query", "key"), ("key", "query")):
        y = x.copy()
        part = slice(0, h) if changed == "query" else slice(h, 2 * h)
        y[:, :, part] = round_to_dtype(rng.standard_normal(y[:, :, part].shape), dtype)
        again = pair.run(y, positions, dtype=dtype, device=report.device)
        keep = slice(h, 2 * h) if kept == "key" else slice(0, h)
        moved = float(np.max(np.abs(again[:, :, keep] - out[:, :, keep])))
        scale = float(np.max(np.abs(out[:, :, keep]))) or 1.0
        ok = moved <= 4 * _UNIT[dtype] * scale
        evidence = (
            f"the {kept}'s output moves by {moved:.3g} (of {scale:.3g}) when only the {changed}'s input changes"
            if not ok
            else f"the {kept}'s output does not depend on the {changed}'s input"
        )
        hint = f"compute the {kept}'s rotation from the {kept} alone (e.g. k_embed = k*cos + rotate_half(k)*sin)"
        status, code, cause = ("pass", None, None) if ok else ("fail", "qk", "qk_cross_wired")
        report.checks.append(
            Check(f"qk:independent:{kept}", "qk", status, evidence, dtype, "" if ok else hint, code, cause=cause)
        )
        if not ok and found is None:
            found = Finding(
                "qk",
                f"the {kept} is rotated from the {changed}'s input: its output moves by {moved:.3g} (of {scale:.3g}) "
                f"when only the {changed} changes (a copy-paste slip such as k_embed = k*cos + rotate_half(q)*sin)",
                hint,
                f"qk:independent:{kept}",
                None,
                "qk",
                "qk_cross_wired",
            )
    return found


def _reference_pair(x: np.ndarray, positions: np.ndarray, spec: RopeSpec) -> np.ndarray:
    return apply_rope(x, positions[..., None], spec)


def _bound(x: np.ndarray, positions: np.ndarray, spec: RopeSpec, dtype: str) -> np.ndarray:
    """Per token: the size of an output error the error model allows (angles in float32 grow with the position,
    and the rounding of the output in ``dtype``), times |x|."""
    theta = float(np.max(spec.inv_freq())) * max(spec.attention_factor, 1.0)
    angle = 8 * _UNIT["float32"] * (1.0 + positions.astype(np.float64) * theta)
    own = 8 * _UNIT[dtype] * np.sqrt(spec.head_dim)
    norms = np.linalg.norm(x, axis=-1) * max(spec.attention_factor, 1.0)
    return norms * (angle[..., None] + own)  # type: ignore[no-any-return]


def _scores(x: np.ndarray, out: np.ndarray, positions: np.ndarray, spec: RopeSpec, dtype: str, h: int) -> Check:
    """<q_m, k_n> for every two tokens of the call, per head, against the reference's, within the bound."""
    ref = _reference_pair(x, positions, spec)
    got_s = np.einsum("bihd,bjhd->bijh", out[:, :, :h], out[:, :, h:])
    ref_s = np.einsum("bihd,bjhd->bijh", ref[:, :, :h], ref[:, :, h:])
    bq, bk = _bound(x[:, :, :h], positions, spec, dtype), _bound(x[:, :, h:], positions, spec, dtype)
    nq = np.linalg.norm(ref[:, :, :h], axis=-1)
    nk = np.linalg.norm(ref[:, :, h:], axis=-1)
    allowed = (
        nq[:, :, None, :] * bk[:, None, :, :] + bq[:, :, None, :] * nk[:, None, :, :] + bq[:, :, None] * bk[:, None]
    )
    ratio = np.abs(got_s - ref_s) / np.maximum(allowed, 1e-300)
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    _, i, j, _ = worst
    m, n = int(positions[0, i]), int(positions[0, j])
    if float(ratio[worst]) <= 1.0:
        return Check("qk:scores", "qk", "pass",
                     f"<q_m, k_n> within the bound for every two of {positions.shape[1]} tokens, positions up to "
                     f"{int(positions.max())} (worst {float(ratio[worst]):.2g} of the bound)", dtype)  # fmt: skip
    return Check(
        "qk:scores",
        "qk",
        "fail",
        f"<q_m, k_n> at m = {m}, n = {n} is {float(got_s[worst]):.6g}, the reference's {float(ref_s[worst]):.6g} "
        f"({float(ratio[worst]):.3g} times the bound)",
        dtype,
        "rotate q and k with the same cos/sin at their own positions",
        "qk",
    )


def _differ(sides: dict[str, VerifyReport]) -> bool:
    return {f.label for f in sides["query"].findings} != {f.label for f in sides["key"].findings}


def _asymmetry(
    views: dict[str, Implementation],
    sides: dict[str, VerifyReport],
    failing: list[str],
    spec: RopeSpec,
    dtype: str,
    report: VerifyReport,
) -> Finding | None:
    """What the side that fails does instead, when the other conforms (or fails otherwise)."""
    side = failing[0] if len(failing) == 1 else "key"
    other = "query" if side == "key" else "key"
    top = report.max_position - 1
    positions = np.array([[10, 11, 40, 100, 513]])
    positions = np.minimum(positions, max(top - 3, 3))
    shape = (1, positions.shape[1], 2, spec.head_dim)
    x = round_to_dtype(np.random.default_rng(report.seed + 11).standard_normal(shape), dtype)
    try:
        got = views[side].run(x, positions, dtype=dtype, device=report.device)
    except TargetError:
        got = None
    bound = _bound(x, positions, spec, dtype)
    if got is not None:
        for s in _SHIFTS:
            if int(positions.min()) + s < 0 or int(positions.max()) + s > top:
                continue
            want = _reference_pair(x, positions + s, spec)
            if np.all(np.linalg.norm(got - want, axis=-1) <= bound):
                state = "conforms" if len(failing) == 1 else "fails otherwise"
                delta = s if side == "key" else -s
                text = (
                    f"the {side} is rotated at positions shifted by {s:+d} (a {side} at position p is rotated as "
                    f"p{s:+d}) while the {other} {state}: the scores <q_m, k_n> follow n - m {delta:+d}, not n - m"
                )
                hint = f"give the {side} the same positions as the {other}"
                report.checks.append(Check("qk:asymmetry", "qk", "fail", text, dtype, hint, "qk", cause="qk_shifted"))
                return Finding("qk", text, hint, "qk:asymmetry", None, "qk", "qk_shifted")
    first = sides[side].findings[0] if sides[side].findings else None
    if first is None:
        return None
    state = "conforms" if len(failing) == 1 else f"fails otherwise ({sides[other].findings[0].label})"
    text = f"the {side} and the {other} are rotated differently: the {other} {state}, the {side} fails ({first.label})"
    report.checks.append(Check("qk:asymmetry", "qk", "fail", text, dtype, first.hint, "qk"))
    return Finding("qk", text, first.hint, "qk:asymmetry", None, "qk")
