"""``ropecheck spec``: print a spec's frequencies, wavelengths and attention factor.

A multi-axis spec (M-RoPE, 2-D axial) also shows which position axis turns each pair, as a
pair -> axis table in runs of consecutive pairs and an ``axis`` column per pair.

With ``--hf-config`` the output says which (sub-)config was read (``source: text_config of
PATH``; ``--config-key`` picks another). Exit codes: 0, or 2 for a bad flag, an unreadable
config or an invalid spec (one line on stderr naming the flag or the dotted config key).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from ..axes import SCHEMES
from ..schedules import MAX_POSITION_EMBEDDINGS
from ..spec import RopeSpec
from .args import EXIT_OK, add_spec_arguments, check_flag_range, spec_from_args, spec_source, write_json

__all__ = ["add_parser", "run", "spec_table"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "spec",
        help="print a spec's frequencies, wavelengths and attention factor",
        description="Print the inverse frequencies, wavelengths and pairs of a RoPE spec, "
        "given by flags or read from a Hugging Face config.json.",
    )
    add_spec_arguments(p, required=True)
    p.add_argument(
        "--seq-len",
        type=int,
        metavar="L",
        help="current length, for length-dependent schedules (dynamic NTK, LongRoPE), 1..2^32",
    )
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="write JSON to PATH (or stdout with no PATH) instead of the table",
    )
    p.set_defaults(run=run, outputs=[("--json", "json", False, None)])


def spec_table(spec: Any, seq_len: int | None = None) -> dict[str, Any]:
    """The data ``ropecheck spec`` prints: summary plus one row per rotated pair."""

    inv = spec.inv_freq(seq_len)
    default = RopeSpec(head_dim=spec.head_dim, rotary_dim=spec.rotary_dim, base=spec.base).inv_freq()
    names = spec.axis_names
    axis_of = spec.axis_of_pair()
    scale, offset = spec.position_map()
    rows = []
    for i, (a, b) in enumerate(spec.pairs()):
        row: dict[str, Any] = {
            "index": i,
            "pair": [int(a), int(b)],
            "inv_freq": float(inv[i]),
            "wavelength": float(2 * np.pi / inv[i]),
            "scale_vs_default": float(inv[i] / default[i]),
        }
        if names:
            row["axis"] = names[int(axis_of[i])]
        if not spec.integer_positions:  # turns by (scale * p + offset) * inv_freq
            row["position_map"] = {"scale": float(scale[i]), "offset": float(offset[i])}
        rows.append(row)
    out: dict[str, Any] = {"spec": spec.to_dict(), "description": spec.describe(), "seq_len": seq_len, "pairs": rows}
    if spec.axes is not None:
        out["axes"] = [{"pairs": list(r["pairs"]), "axis": r["axis"], "count": r["count"]} for r in spec.axes.table()]
    return out


def run(args: argparse.Namespace) -> int:
    check_flag_range("--seq-len", args.seq_len, 1, MAX_POSITION_EMBEDDINGS, " (2^32)")
    spec = spec_from_args(args)
    source = spec_source(args)
    data = spec_table(spec, args.seq_len)
    data["source"] = source
    if args.json is not None:
        write_json(data, args.json)
        return EXIT_OK

    console = Console()
    console.print(spec.describe(conventions=False))  # the conventions follow, one line each
    if source is not None:
        console.print(f"source: {source}", highlight=False, soft_wrap=True)
    if spec.attention_factor_in == "softmax":
        console.print(
            f"attention factor: {spec.schedule_attention_factor:.12g}, applied to the softmax scale "
            "(as its square); the RoPE output is unscaled"
        )
    else:
        console.print(f"attention factor: {spec.attention_factor:.12g}")
    console.print(
        f"direction: {spec.direction:+d} (each pair turns by {'+' if spec.direction > 0 else '-'}m*theta_i); "
        f"rotated dims: {spec.rotary_dims} ({spec.rotary_start}-{spec.rotary_start + spec.rotary_dim - 1})"
    )
    if spec.output_layout is not None:
        written = spec.with_(layout=spec.output_layout, output_layout=None).pairs()
        console.print(
            f"output layout: {spec.output_layout} (pair 0 stored at dims {written[0][0]}, {written[0][1]}; "
            f"pair 1 at {written[1][0]}, {written[1][1]}, ...)"
            if len(written) > 1
            else f"output layout: {spec.output_layout}"
        )
    if spec.max_position_embeddings:
        console.print(f"max_position_embeddings: {spec.max_position_embeddings}")
    if spec.depends_on_length:
        console.print(f"frequencies depend on the current length; shown for seq_len={args.seq_len}")
    if spec.axes is not None:
        console.print(f"axes: {SCHEMES[spec.axes.scheme]}", highlight=False, soft_wrap=True)
        text = "the same 1-D position on every axis" if spec.axes.text_same_position else "none (vision only)"
        console.print(f"positions: one per axis ({', '.join(spec.axis_names)}); text tokens: {text}", highlight=False)
        runs = Table(show_edge=False, title="pair -> axis")
        mapped = not spec.integer_positions  # each axis's angle (scale * p + offset) * theta_i, shown per axis
        for col in ("axis", "pairs", "count", *(("angle at p",) if mapped else ())):
            runs.add_column(col)
        words = spec.axes.pairs_in_words()
        for a in spec.axes.axes:
            runs.add_row(
                a.name, words[a.name], str(len(a.pairs)), *((f"({a.position_words()}) * θ_i",) if mapped else ())
            )
        console.print(runs)
    table = Table(show_edge=False)
    columns = [
        ("i", "right"),
        ("pair", "left"),
        ("inv_freq θ_i", "right"),
        ("wavelength (tokens)", "right"),
        ("θ_i / default", "right"),
    ]
    if spec.axes is not None:
        columns.append(("axis", "left"))
    for col, just in columns:
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for row in data["pairs"]:
        cells = [
            str(row["index"]),
            f"({row['pair'][0]}, {row['pair'][1]})",
            f"{row['inv_freq']:.10e}",
            f"{row['wavelength']:.6g}",
            f"{row['scale_vs_default']:.6g}",
        ]
        if "axis" in row:
            cells.append(row["axis"])
        table.add_row(*cells)
    console.print(table)
    return EXIT_OK
