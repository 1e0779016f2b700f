"""The reviewed expected findings: what each family is known to do, per transformers version.

``expected.json`` (next to this module) holds, per transformers version, per family, the
finding labels (``code/cause``) of each verdict cell -- ``mode[/layer type]/dtype``, e.g.
``cast/bfloat16`` -- and, per label and mode, the reviewed explanation. A cell not listed is
expected to PASS. Comparing a survey with it gives the *unexpected* findings (new ones) and
the *vanished* ones (listed but not found): either makes the survey exit 1, so a fix in
transformers or a regression both turn the survey red until the file is reviewed again.

Design constraints: pure data in, data out; a family not run (``--family``) or a dtype not
asked for (``--dtype``) is not compared; an installed version absent from the file expects
every cell to pass, so every finding is new.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..inputs import read_input

__all__ = ["EXPECTED_LIMIT", "EXPECTED_PATH", "Expected", "Mismatch", "compare", "load_expected"]

#: The reviewed file shipped with the package (package data, found through importlib.resources).
EXPECTED_PATH = Path(str(resources.files("ropecheck.survey") / "expected.json"))


@dataclass(frozen=True)
class Expected:
    """The expected findings of one transformers version, and the explanations."""

    version: str
    cells: Mapping[str, Mapping[str, Sequence[str]]]  # family -> cell -> labels
    why: Mapping[str, str] = field(default_factory=dict)  # "label@mode" -> explanation

    def labels(self, family: str, cell: str) -> list[str]:
        return sorted(self.cells.get(family, {}).get(cell, ()))

    def explain(self, label: str, mode: str) -> str:
        return self.why.get(f"{label}@{mode}", self.why.get(label, ""))


@dataclass(frozen=True)
class Mismatch:
    """A cell whose findings differ from the file: ``new`` labels found, ``vanished`` labels expected."""

    family: str
    cell: str
    new: tuple[str, ...]
    vanished: tuple[str, ...]

    def describe(self) -> str:
        parts = []
        if self.new:
            parts.append(f"new finding {', '.join(self.new)}")
        if self.vanished:
            parts.append(f"expected finding gone: {', '.join(self.vanished)}")
        return f"{self.family} {self.cell}: {'; '.join(parts)}"


#: The largest expected-findings file read (the packaged one is well under 1 MiB).
EXPECTED_LIMIT = 16 << 20


def load_expected(version: str, path: str | Path | None = None, library: str = "transformers") -> Expected:
    """The expectations for ``version`` of ``library`` (none listed: every cell expected to pass).

    transformers' are the file's top-level ``versions`` and ``why``; another library's are the same two keys
    under its name (``{"diffusers": {"versions": {...}, "why": {...}}}``).
    """
    p = Path(path) if path is not None else EXPECTED_PATH
    raw = read_input(p, name="--expected", limit=EXPECTED_LIMIT)  # a regular file only: never a FIFO or device
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise UsageError(f"--expected {p}: cannot read the expected findings ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("versions", {}), dict):
        raise UsageError(f"--expected {p}: not an expected-findings file (a 'versions' object)")
    if library != "transformers":
        data = data.get(library, {})
        if not isinstance(data, dict) or not isinstance(data.get("versions", {}), dict):
            raise UsageError(f"--expected {p}: its {library!r} entry is not a 'versions' object")
    cells = data.get("versions", {}).get(version, {})
    return Expected(version, cells, dict(data.get("why", {})))


def compare(
    actual: Mapping[str, Mapping[str, Sequence[str]]], expected: Expected, *, dtypes: Iterable[str]
) -> list[Mismatch]:
    """Every cell of the families surveyed (``actual``: family -> cell -> labels) that differs from the file.

    Only cells of the dtypes surveyed count; a listed cell of a surveyed family that the survey did not
    produce at all (a layer type gone) counts as vanished.
    """
    wanted = tuple(dtypes)
    out: list[Mismatch] = []
    for family in sorted(actual):
        cells = actual[family]
        listed = {c for c in expected.cells.get(family, {}) if c.rsplit("/", 1)[-1] in wanted}
        for cell in sorted(set(cells) | listed):
            have, want = set(cells.get(cell, ())), set(expected.labels(family, cell))
            if have != want:
                out.append(Mismatch(family, cell, tuple(sorted(have - want)), tuple(sorted(want - have))))
    return out


def expected_document(
    version: str,
    actual: Mapping[str, Mapping[str, Sequence[str]]],
    base: Mapping[str, Any] | None = None,
    library: str = "transformers",
) -> dict[str, Any]:
    """A file listing ``actual`` as the expectations of ``version`` of ``library`` (other versions, other
    libraries and explanations kept): what a reviewer starts from after checking every new finding by hand."""
    doc: dict[str, Any] = {"versions": {}, "why": {}}
    if base:
        doc.update({k: v for k, v in base.items() if k not in ("versions", "why")})
        doc["versions"].update(base.get("versions", {}))
        doc["why"].update(base.get("why", {}))
    target = doc
    if library != "transformers":
        own = dict(doc.get(library) or {})
        target = doc[library] = {"versions": dict(own.get("versions", {})), "why": dict(own.get("why", {}))}
    target["versions"][version] = {
        fam: {cell: sorted(labels) for cell, labels in sorted(cells.items()) if labels}
        for fam, cells in sorted(actual.items())
        if any(cells.values())
    }
    return doc
