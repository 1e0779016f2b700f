"""The "Multi-axis RoPE" report section: theorem 8, the pair -> axis diagrams, the properties, the adapters.

One collector, :func:`collect_axes`: theorem 8 (relative per axis, for every even d and every
pair -> axis assignment) with the schemes the configs use; a diagram of which axis turns each
pair, per scheme; the multi-axis properties on the fp64 reference (PASS) and on the reference
with two axes swapped (the checks must FAIL: they are shown to bite); and ``ropecheck verify
--positions axes`` on the multi-axis adapters in every dtype.

Design constraints: deterministic pages (fixed seeds, no timings); a missing torch/transformers
makes the adapter rows SKIP with the reason, never a failure of the report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..adapters import ADAPTERS
from ..axes import SCHEMES, MultiAxis
from ..axis_properties import (
    check_axis_matches_reference,
    check_axis_relative_position,
    check_axis_section_coverage,
    check_axis_text_reduction,
)
from ..proofs import run_proofs
from ..proofs.multi_axis import EXAMPLES
from ..reference import apply_rope
from ..spec import RopeSpec
from ..svg import axes_svg
from ..verify import verify
from ..verify.model import DEFAULT_DTYPES
from .model import Page, Plot, Row, Section

__all__ = ["MULTI_AXIS_ADAPTERS", "collect_axes"]

Progress = Callable[[str], None]

#: The adapters with multi-axis RoPE (``--positions axes``), in report order.
MULTI_AXIS_ADAPTERS = ("hf-qwen2-vl", "hf-qwen2.5-vl", "hf-qwen3-vl", "hf-qwen2-vl-vision", "hf-pixtral-vision")


def _reference(spec: RopeSpec) -> Callable[..., np.ndarray]:
    def fn(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return apply_rope(np.asarray(x, dtype=np.float64), np.asarray(positions)[..., None], spec, axes_at="first")

    fn.rope_backend = "numpy"  # type: ignore[attr-defined]
    return fn


def _swapped(axes: MultiAxis) -> MultiAxis:
    """The scheme with its last two axes' pairs exchanged (h <-> w): what a swapped implementation applies."""
    a = list(axes.axes)
    a[-2], a[-1] = (
        type(a[-2])(a[-2].name, a[-1].pairs, a[-1].freq_index, a[-1].freq_dim, a[-1].base),
        type(a[-1])(a[-1].name, a[-2].pairs, a[-2].freq_index, a[-2].freq_dim, a[-2].base),
    )
    return MultiAxis("custom", tuple(a), axes.sections, axes.text_same_position)


def _properties(spec: RopeSpec, fn: Any) -> dict[str, bool]:
    rng = np.random.default_rng(0)
    n = len(spec.axis_names)
    x = rng.standard_normal((1, 6, 1, spec.head_dim))
    pos = rng.integers(0, 4096, size=(n, 1, 6))
    return {
        "per-axis reference": check_axis_matches_reference(fn, spec, x, pos, dtype="float64").passed,
        "section coverage": check_axis_section_coverage(fn, spec, dtype="float64").passed,
        "text-token reduction": check_axis_text_reduction(fn, spec, x, pos[0], dtype="float64").passed,
        "per-axis relative position": all(
            check_axis_relative_position(
                fn, spec, x, rng.standard_normal(x.shape), pos, 777, axis=axis, dtype="float64"
            ).passed
            for axis in [None, *range(n)]
        ),
    }


def collect_axes(progress: Progress) -> Section:
    """Theorem 8, the diagrams, the multi-axis properties and the multi-axis adapters' verdicts."""
    rows: list[Row] = []
    timings: dict[str, float] = {}
    lines = ["# Multi-axis RoPE", ""]

    progress("theorem 8")
    (proof,) = run_proofs(["multi_axis"])[:1]
    timings["theorem 8"] = proof.seconds
    link = "axes.md"
    expected = proof.verdict.value if proof.as_intended else "PROVED"
    evidence = f"{len(proof.steps)} steps, every even d and every pair -> axis assignment"
    rows.append(Row(f"Theorem 8: {proof.title}", proof.verdict.value, expected, evidence, link=link))
    lines += [
        f"**Theorem 8** ({proof.verdict.value}): {proof.title}. For every even d and every assignment of the "
        "rotated pairs to position axes, the score q·k after rotation depends on the positions only through the "
        "per-axis differences; shifting each axis by its own amount keeps it; one position on every axis is 1-D "
        "RoPE. The schemes below are the axes of `RopeSpec.from_hf_config` on configs shaped like the published "
        "ones, each checked to be such an assignment. See [the proof](proofs/multi_axis.md).",
        "",
        "## Schemes",
        "",
        "| scheme | config | pairs per axis | pair -> axis |",
        "|---|---|---|---|",
    ]
    for _, (words, scheme) in EXAMPLES.items():
        per = scheme.pairs_in_words()
        where = "; ".join(f"{n}: {per[n]}" for n in scheme.names)
        counts = " ".join(f"{n}:{len(a.pairs)}" for n, a in zip(scheme.names, scheme.axes))
        lines.append(f"| {SCHEMES[scheme.scheme]} | {words} | {counts} | {where} |")

    progress("pair -> axis diagrams")
    plot = Plot(
        "axes",
        "Pair -> axis",
        "Which position axis turns each rotated pair, per scheme (M-RoPE in sections and interleaved; the two "
        "2-D vision layouts).",
        axes_svg([(words, scheme) for words, scheme in EXAMPLES.values()]),
    )
    lines += ["", f"![pair -> axis]({plot.file})", "", "## Properties on the fp64 reference", ""]
    lines += ["| scheme | property | reference | h and w swapped |", "|---|---|---|---|"]
    for key, (words, scheme) in EXAMPLES.items():
        progress(f"properties: {key}")
        spec = RopeSpec(head_dim=2 * scheme.pair_count, axes=scheme)
        good = _properties(spec, _reference(spec))
        bad = _properties(spec, _reference(spec.with_(axes=_swapped(scheme))))
        for name in good:
            rows.append(Row(f"{key}: {name}", "PASS" if good[name] else "FAIL", "PASS", "the fp64 reference",
                            link=link))  # fmt: skip
            lines.append(
                f"| {words} | {name} | {'PASS' if good[name] else 'FAIL'} | {'PASS' if bad[name] else 'FAIL'} |"
            )
        swapped_caught = not bad["per-axis reference"] and not bad["section coverage"]
        rows.append(Row(f"{key}: h and w swapped is caught", "PASS" if swapped_caught else "FAIL", "PASS",
                        "per-axis reference and section coverage fail on the reference with h and w exchanged",
                        link=link))  # fmt: skip

    lines += ["", "## Adapters (`ropecheck verify --positions axes`)", ""]
    lines += ["| adapter | spec | " + " | ".join(DEFAULT_DTYPES) + " |", "|---|---|" + "---|" * len(DEFAULT_DTYPES)]
    for name in MULTI_AXIS_ADAPTERS:
        adapter = ADAPTERS[name]
        reason = adapter.unavailable_reason()
        if reason:
            rows.append(Row(name, "SKIP", "SKIP", reason, link=link))
            lines.append(f"| {name} | {adapter.spec.axes.describe() if adapter.spec.axes else ''} | SKIP: {reason} |")
            continue
        progress(f"verify {name}")
        t0 = time.perf_counter()
        fn, spec = adapter.load()
        report = verify(fn, spec, dtypes=DEFAULT_DTYPES, device="cpu", name=name, seed=0)
        timings[f"verify {name}"] = time.perf_counter() - t0
        cells = []
        for dt in DEFAULT_DTYPES:
            v = report.dtype_verdict(dt)
            rows.append(Row(f"{name} / {dt}", v["verdict"], "PASS", ", ".join(v["labels"]) or "conforms", link=link))
            cells.append(v["verdict"] + (f" ({', '.join(v['labels'])})" if v["labels"] else ""))
        assert spec.axes is not None
        lines.append(f"| {name} | `{spec.axes.describe()}` | " + " | ".join(cells) + " |")
    lines.append("")
    section = Section(
        "axes",
        "Multi-axis RoPE",
        "M-RoPE (Qwen2-VL sections, Qwen3-VL interleaved) and 2-D axial RoPE (Qwen2-VL's and Pixtral's vision "
        "encoders): theorem 8, which axis turns each pair, the multi-axis properties on the reference (and on the "
        "reference with two axes swapped, where they must fail), and the multi-axis adapters' verdicts.",
        rows=rows,
        plots=[plot],
        pages=[Page(link, "Multi-axis RoPE", "\n".join(lines))],
        matrix_columns=(),
    )
    section.timings = timings
    return section
