"""The survey as data and text: counts, the family x dtype matrix, findings by root cause, code paths, pages.

:func:`survey_data` is the JSON (schema ``ropecheck.survey/1``); :func:`render_index` the
Markdown summary; :func:`render_family` one family's detail page; :func:`render_pages` the
folder ``--out`` writes. Rendering is pure: data in, text out (the CLI writes the files).

Design constraints: deterministic -- families sorted, no timings outside the JSON's
``seconds`` fields (which :func:`render_pages` leaves out of the folder's JSON).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..io import round_floats
from ..verify.render import render_markdown
from .expected import Expected, Mismatch
from .run import FamilyResult

__all__ = [
    "cells",
    "counts",
    "page_path",
    "render_family",
    "render_index",
    "render_pages",
    "roots_across",
    "render_roots_across",
    "survey_data",
]


def page_path(result: FamilyResult) -> str:
    """``families/llama4.md``; another rotary class: ``families/llama4.Llama4VisionRotaryEmbedding.md``."""
    return f"families/{result.name.replace('/', '.')}.md"


def cells(result: FamilyResult, dtypes: Sequence[str]) -> dict[str, list[str]]:
    """``mode[/layer type]/dtype`` -> finding labels (empty: PASS), the unit the expected file lists.

    A finding about the family's default config is in a ``config/<dtype>`` cell of every dtype: the default is
    what a user gets in each of them.
    """
    out = {f"{v.key}/{dt}": v.labels(dt) for v in result.verdicts for dt in dtypes if v.covers(dt)}
    if result.config_findings:
        labels = sorted({label for label, _ in result.config_findings})
        out.update({f"config/{dt}": list(labels) for dt in dtypes})
    for cell, label, _ in result.structural:
        if cell.rsplit("/", 1)[-1] in dtypes:
            out[cell] = sorted({*out.get(cell, []), label})
    return out


def counts(results: Sequence[FamilyResult], dtypes: Sequence[str], mismatches: Sequence[Mismatch]) -> dict[str, int]:
    """found, driven, skipped, errors, conforming (every cell PASS), expected-only findings, unexpected."""
    driven = [r for r in results if r.status == "driven"]
    off = {m.family for m in mismatches}
    clean = [r for r in driven if not any(cells(r, dtypes).values())]
    return {
        "found": len(results),
        "driven": len(driven),
        "skipped": sum(r.status == "skip" for r in results),
        "errors": sum(r.status == "error" for r in results),
        "conforming": len(clean),
        "expected_findings_only": sum(1 for r in driven if r not in clean and r.name not in off),
        "unexpected": len(off),
        "code_paths": len({r.code_path for r in driven}),
    }


def _root_causes(results: Sequence[FamilyResult], dtypes: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """``label @ mode`` -> {family: [cells]}: the families sharing each root cause."""
    out: dict[str, dict[str, list[str]]] = {}
    for r in results:
        for cell, labels in cells(r, dtypes).items():
            mode = cell.split("/", 1)[0]
            for label in labels:
                out.setdefault(f"{label} @ {mode}", {}).setdefault(r.name, []).append(cell)
    return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def _message(results: Sequence[FamilyResult], family: str, label: str) -> str:
    for r in results:
        if r.name == family:
            for found, message in [*r.config_findings, *((lb, m) for _, lb, m in r.structural)]:
                if found == label:
                    return message
            for v in r.verdicts:
                for f in v.report.findings:
                    if f.label == label:
                        return f.message
    return ""


def _cell_text(result: FamilyResult, dtype: str) -> str:
    if result.status != "driven":
        found = sorted({lb for cell, lb, _ in result.structural if cell.endswith(f"/{dtype}")})
        return ("SKIP" if result.status == "skip" else "ERROR") + (f" (cast: FAIL {', '.join(found)})" if found else "")
    parts = []
    for v in result.verdicts:
        if not v.covers(dtype):
            continue
        labels = v.labels(dtype)
        parts.append(f"{v.key}: {'FAIL ' + ', '.join(labels) if labels else 'PASS'}")
    structural = sorted({lb for cell, lb, _ in result.structural if cell.endswith(f"/{dtype}")})
    if structural:  # a mode the protocol does not run for this class (its complex table cast), checked by structure
        parts.append(f"cast: FAIL {', '.join(structural)}")
    if all(p.endswith(": PASS") for p in parts):
        return "PASS"
    return "<br>".join(parts)


def survey_data(
    results: Sequence[FamilyResult],
    *,
    dtypes: Sequence[str],
    mismatches: Sequence[Mismatch],
    expected: Expected,
    transformers: str,
    options: dict[str, Any],
    library: str = "transformers",
) -> dict[str, Any]:
    """The survey as JSON (schema ``ropecheck.survey/1``); ``transformers`` is the surveyed library's version
    (another library's document says which: ``"library": "diffusers", "diffusers": "0.42.1"``)."""
    return _for_library(
        {
            "schema": "ropecheck.survey/1",
            "transformers": transformers,
            "options": {"dtypes": list(dtypes), **options},
            "counts": counts(results, dtypes, mismatches),
            "ok": not mismatches and not any(r.status == "error" for r in results),
            "unexpected": [
                {"family": m.family, "cell": m.cell, "new": list(m.new), "vanished": list(m.vanished)}
                for m in mismatches
            ],
            "root_causes": [
                {"cause": k, "families": sorted(v), "explanation": expected.explain(*k.split(" @ "))}
                for k, v in _root_causes(results, dtypes).items()
            ],
            "families": [
                {
                    "name": r.name,
                    **r.family.to_dict(),
                    "status": r.status,
                    "reason": r.reason or None,
                    "rotary_class": r.rotary_class or None,
                    "apply_function": r.apply_function or None,
                    "code_path": r.code_path or None,
                    "specs": r.specs,
                    "notes": r.notes,
                    "cells": cells(r, dtypes),
                    "seconds": round(r.seconds, 2),
                }
                for r in results
            ],
        },
        library,
    )


def _for_library(data: dict[str, Any], library: str) -> dict[str, Any]:
    """The document as ``library``'s: its version under its own name, and which library it is."""
    if library != "transformers":
        data["library"] = library
        data[library] = data.pop("transformers")
    return data


#: What the summary page says was surveyed, per library.
_INTRO = {
    "transformers": "Every model family whose modeling module defines a rotary embedding, driven from "
    "its own config class (its text config for a composite model), its own rotary module and its own "
    "`apply_rotary*` function, verified against the spec `RopeSpec.from_hf_config` reads from that config.",
    "diffusers": "Every rotary embedding class of diffusers' models and pipelines (and the rotary helpers of "
    "`diffusers.models.embeddings`), built with the arguments its model's defaults give it and applied with the "
    "function its attention calls, verified against the axial spec those arguments declare (each axis its own "
    "block of pairs and frequency table), with distinct positions per axis.",
    "timm": "Every rotary embedding class and helper of timm's layers and models, built as its vision "
    "transformers build it (`in_pixels=False`, on a patch grid) and applied with the function its attention "
    "calls, verified against the 2-D axial spec its arguments declare (`head_dim / 4` frequencies per axis at "
    "`temperature`, or Gemma 4's `rope_theta` over each half of the head; an image M-RoPE's temporal pairs on an "
    "inert axis; DINOv3's patch centres in [-1, 1] as an affine map of the cell index), with distinct positions per "
    "axis. "
    "timm's packages are never imported (they import torchvision): its rotary modules are loaded from the "
    "installed files, and where a model file needs torchvision, its rotary definitions are compiled from it.",
}


def render_index(
    results: Sequence[FamilyResult],
    *,
    dtypes: Sequence[str],
    mismatches: Sequence[Mismatch],
    expected: Expected,
    transformers: str,
    invocation: str,
    links: bool = True,
    library: str = "transformers",
) -> str:
    """The survey's summary page: counts, the matrix, the root causes, the code paths, the skips."""
    c = counts(results, dtypes, mismatches)
    noun = "families" if library == "transformers" else "classes"
    lines = [
        f"# Rotary embeddings of {library} {transformers}",
        "",
        f"{invocation}. {_INTRO.get(library, _INTRO['transformers'])} "
        "`fp32`: the module built in float32 and called with each dtype; `cast`: `module.to(dtype)` for each dtype.",
        "",
        f"**{c['found']} {noun} found, {c['driven']} driven, {c['skipped']} skipped, {c['errors']} errors; "
        f"{c['conforming']} conform in every cell, {c['expected_findings_only']} fail only with expected findings, "
        f"{c['unexpected']} differ from the expected findings; {c['code_paths']} distinct implementations.**",
        "",
    ]
    if mismatches:
        lines += ["## Differences from the expected findings", ""]
        lines += [f"- {m.describe()}" for m in mismatches] + [""]
    lines += ["## Findings by root cause", ""]
    causes = _root_causes(results, dtypes)
    if not causes:
        lines += ["None: every driven family conforms in every cell.", ""]
    for key, fams in causes.items():
        label, mode = key.split(" @ ")
        lines.append(f"### `{label}` ({mode}): {len(fams)} famil{'y' if len(fams) == 1 else 'ies'}")
        lines.append("")
        first = sorted(fams)[0]
        msg = _message(results, first, label)
        if msg:
            lines += [f"{first}: {msg}", ""]
        why = expected.explain(label, mode)
        if why:
            lines += [f"Why (reviewed): {why}", ""]
        lines += [", ".join(f"`{f}`" for f in sorted(fams)), ""]
    lines += [
        "## Families",
        "",
        "| family | implementation | " + " | ".join(dtypes) + " |",
        "|---|---|" + "---|" * len(dtypes),
    ]
    for r in results:
        name = f"[`{r.name}`]({page_path(r)})" if links else f"`{r.name}`"
        impl = f"`{r.code_path}`" if r.code_path else "-"
        row = [_cell_text(r, dt) for dt in dtypes]
        if r.status != "driven" and not r.structural:
            row = [f"{row[0]}: {r.reason}"] + [""] * (len(dtypes) - 1)
        lines.append(f"| {name} | {impl} | " + " | ".join(row) + " |")
    lines += [
        "",
        "## Distinct implementations",
        "",
        "Families sharing the source of the rotary class's `forward` and default frequencies and of the apply "
        "function (docstrings, comments and class-name prefixes left out), most shared first.",
        "",
        "| code path | families | rotary class (first) | apply |",
        "|---|---|---|---|",
    ]
    paths: dict[str, list[FamilyResult]] = {}
    for r in results:
        if r.status == "driven":
            paths.setdefault(r.code_path, []).append(r)
    for path, rs in sorted(paths.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = ", ".join(r.name for r in rs)
        lines.append(f"| `{path}` | {len(rs)}: {names} | `{rs[0].rotary_class}` | `{rs[0].apply_function}` |")
    skipped = [r for r in results if r.status != "driven"]
    if skipped:
        lines += ["", "## Not driven", "", "| family | why |", "|---|---|"]
        lines += [f"| `{r.name}` | {r.status}: {r.reason} |" for r in skipped]
    return "\n".join(lines) + "\n"


def render_family(result: FamilyResult, dtypes: Sequence[str], expected: Expected) -> str:
    """One family's page: what was driven, the spec per layer type, each verdict's findings and its detail."""
    f = result.family
    lines = [f"# `{result.name}`", "", f"- modeling module: `{f.module}`"]
    lines += [f"- config: `{f.config_class}`"] if f.library == "transformers" else [f"- library: {f.library}"]
    if f.components:
        lines.append(f"- components (sub-configs): {', '.join(f'`{c}`' for c in f.components)}")
    if f.library == "transformers" or f.rotary_classes:
        lines.append(f"- rotary classes in the module: {', '.join(f'`{c}`' for c in f.rotary_classes) or 'none'}")
    else:
        lines.append(f"- helper: `{', '.join(f.apply_functions)}`")
    if result.status != "driven":
        lines += [f"- **{result.status.upper()}**: {result.reason}"]
        known = {lb for cell, _, _ in result.structural for lb in expected.labels(result.name, cell)}
        lines += [
            f"- **structural finding** `{label}` ({cell}){'' if label in known else ' (new)'}: {message}"
            for cell, label, message in result.structural
        ]
        return "\n".join([*lines, ""]) + "\n"
    lines += [
        f"- driven: `{result.rotary_class}` + `{result.apply_function}` (code path `{result.code_path}`)",
        *[f"- spec{f' ({lt})' if lt else ''}: {desc}" for lt, desc in result.specs.items()],
        *[f"- note: {n}" for n in result.notes],
        *[
            f"- **config finding** `{label}`{'' if label in _known_config(result, dtypes, expected) else ' (new)'}: "
            f"{message}"
            for label, message in result.config_findings
        ],
        "",
        "| verdict | " + " | ".join(dtypes) + " |",
        "|---|" + "---|" * len(dtypes),
    ]
    for v in result.verdicts:
        row = []
        for dt in dtypes:
            if not v.covers(dt):
                row.append("-")
                continue
            labels = v.labels(dt)
            known = set(expected.labels(result.name, f"{v.key}/{dt}"))
            row.append(", ".join(f"{lb}{'' if lb in known else ' (new)'}" for lb in labels) if labels else "PASS")
        lines.append(f"| {v.key} | " + " | ".join(row) + " |")
    for v in result.verdicts:
        lines += ["", f"## {v.key}", ""]
        body = render_markdown(v.report).splitlines()
        lines += ["##" + ln if ln.startswith("#") else ln for ln in body]
    return "\n".join(lines) + "\n"


def _known_config(result: FamilyResult, dtypes: Sequence[str], expected: Expected) -> set[str]:
    return {label for dt in dtypes for label in expected.labels(result.name, f"config/{dt}")}


def render_pages(
    results: Sequence[FamilyResult],
    *,
    dtypes: Sequence[str],
    mismatches: Sequence[Mismatch],
    expected: Expected,
    transformers: str,
    invocation: str,
    options: dict[str, Any],
    library: str = "transformers",
) -> dict[str, str]:
    """``README.md``, ``survey.json`` and ``families/<model_type>.md``, paths relative to the folder."""
    data = survey_data(
        results,
        dtypes=dtypes,
        mismatches=mismatches,
        expected=expected,
        transformers=transformers,
        options=options,
        library=library,
    )
    for fam in data["families"]:
        fam.pop("seconds", None)
    files = {
        "README.md": render_index(
            results,
            dtypes=dtypes,
            mismatches=mismatches,
            expected=expected,
            transformers=transformers,
            invocation=invocation,
            library=library,
        ),
        "survey.json": json.dumps(round_floats(data, 6), indent=2) + "\n",
    }
    for r in results:
        files[page_path(r)] = render_family(r, dtypes, expected)
    return files


def roots_across(documents: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The root causes of several libraries' surveys side by side (``documents``: library -> its survey JSON):
    ``[{"cause": "label @ mode", "libraries": {library: [rows]}}]``, the causes more libraries share first. The
    same cause in two libraries (``precision/inv_freq_low_precision @ cast``) is the same mistake made twice."""
    found: dict[str, dict[str, list[str]]] = {}
    for library, data in documents.items():
        for cause in data.get("root_causes", []):
            found.setdefault(cause["cause"], {})[library] = list(cause["families"])
    ranked = sorted(found.items(), key=lambda kv: (-len(kv[1]), -sum(map(len, kv[1].values())), kv[0]))
    return [{"cause": cause, "libraries": libs} for cause, libs in ranked]


def render_roots_across(documents: dict[str, dict[str, Any]]) -> str:
    """The cross-library root causes as a Markdown page (``roots.md`` beside the libraries' pages)."""
    libraries = list(documents)
    lines = [
        "# Root causes across libraries",
        "",
        "Each finding of the surveys of "
        + ", ".join(f"{lib} {documents[lib].get(lib, '?')}" for lib in libraries)
        + ", by root cause (label @ mode), with the rows that show it in each library.",
        "",
        "| root cause | " + " | ".join(libraries) + " |",
        "|---|" + "---|" * len(libraries),
    ]
    for entry in roots_across(documents):
        row = [entry["cause"]]
        for lib in libraries:
            rows = entry["libraries"].get(lib, [])
            row.append(f"{len(rows)}: " + ", ".join(f"`{r}`" for r in rows[:6]) + (", ..." if len(rows) > 6 else "")
                       if rows else "-")  # fmt: skip
        lines.append("| `" + row[0] + "` | " + " | ".join(row[1:]) + " |")
    if len(lines) == 6:
        lines.append("| none | " + " | ".join("-" for _ in libraries) + " |")
    return "\n".join(lines) + "\n"
